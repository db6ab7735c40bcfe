// The window's audit tab under the offscreen platform: the audit model (Qt's model tester, filters), the
// export of the filtered rows, and a failing query or sort said in the view.
#include "mainwindowfixture.h"

#include <QTest>

class MainWindowAuditTest : public QObject, protected MainWindowFixture
{
    Q_OBJECT

private Q_SLOTS:
    void init() { setUp(); }
    void cleanup() { tearDown(); }

    void auditModel_passesTheModelTester_andFilters()
    {
        for (int i = 0; i < 30; ++i) {
            const Operation op =
                park(Risk::Low, i % 3 ? QStringLiteral("delete_service") : QStringLiteral("scale"),
                     QStringLiteral("t%1").arg(i), i % 2 ? "Cursor" : "Claude Code");
            if (i % 5 == 0)
                QVERIFY(m_queue
                            ->decline(op.nonce, QStringLiteral("console:alice"),
                                      QStringLiteral("not now %1").arg(i))
                            .ok());
            else
                QVERIFY(m_queue->approve(op.nonce, QStringLiteral("console:alice")).ok());
        }
        AuditModel model(m_db->connectionName());
        QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
        QCOMPARE(model.rowCount(), 30);
        model.setFilter({QStringLiteral("declined"), {}, {}, {}, {}, {}, {}, {}});
        QCOMPARE(model.rowCount(), 6);
        QCOMPARE(model.data(model.index(0, AuditModel::Decision)).toString(), QStringLiteral("declined"));
        model.setFilter({{}, QStringLiteral("Cursor"), QStringLiteral("scale"), {}, {}, {}, {}, {}});
        QCOMPARE(model.rowCount(), 5); // i in {3, 9, 15, 21, 27}
        model.setFilter({{}, {}, {}, {}, {}, QStringLiteral("not now 1"), {}, {}});
        QCOMPARE(model.rowCount(), 2); // reasons "not now 10" and "not now 15"
        model.setFilter({{}, {}, {}, {}, {}, QStringLiteral("100%_"), {}, {}}); // LIKE wildcards are literal
        QCOMPARE(model.rowCount(), 0);
        const QDate today = QDateTime::fromMSecsSinceEpoch(m_clock.nowMs(), Qt::UTC).date();
        model.setFilter({{}, {}, {}, today, today, {}, {}, {}});
        QCOMPARE(model.rowCount(), 30);
        model.setFilter({{}, {}, {}, today.addDays(1), today.addDays(2), {}, {}, {}});
        QCOMPARE(model.rowCount(), 0);
        model.setFilter({});
        model.sort(AuditModel::Tool, Qt::AscendingOrder);
        QCOMPARE(model.data(model.index(0, AuditModel::Tool)).toString(), QStringLiteral("delete_service"));
        model.sort(AuditModel::Tool, Qt::DescendingOrder);
        QCOMPARE(model.data(model.index(0, AuditModel::Tool)).toString(), QStringLiteral("scale"));
        const auto days = model.perDay().value();
        QCOMPARE(days.size(), 1);
        QCOMPARE(days[0].approved, 24);
        QCOMPARE(days[0].declined, 6);
    }

    void auditView_exportsTheFilteredRows()
    {
        for (int i = 0; i < 4; ++i) {
            const Operation op =
                park(Risk::Low, QStringLiteral("delete_service"), QStringLiteral("t%1").arg(i));
            if (i < 3)
                QVERIFY(
                    m_queue->decline(op.nonce, QStringLiteral("console:alice"), QStringLiteral("no")).ok());
        }
        AuditView *view = m_window->auditView();
        QLineEdit *search = view->findChild<QLineEdit *>(QStringLiteral("filterText"));
        QTest::keyClicks(search, QStringLiteral("t1"));
        QCOMPARE(view->model()->rowCount(), 1);
        QTemporaryDir dir;
        QSignalSpy finished(view, &AuditView::exportFinished);
        view->exportTo(dir.filePath(QStringLiteral("rows.csv")));
        QCOMPARE(finished.size(), 1); // over ":memory:" it is written at once
        QVERIFY(finished.takeFirst().at(0).toBool());
        QFile csv(dir.filePath(QStringLiteral("rows.csv")));
        QVERIFY(csv.open(QIODevice::ReadOnly));
        const QList<QByteArray> lines = csv.readAll().trimmed().split('\n');
        QCOMPARE(lines.size(), 2);
        QVERIFY(lines[1].contains(",delete_service,t1,low,declined,console:alice,no,"));
        search->clear();
        view->exportTo(dir.filePath(QStringLiteral("rows.json")));
        QVERIFY(finished.takeFirst().at(0).toBool());
        QFile json(dir.filePath(QStringLiteral("rows.json")));
        QVERIFY(json.open(QIODevice::ReadOnly));
        QCOMPARE(nlohmann::json::parse(json.readAll().toStdString()).size(), 4u);
    }

    void auditView_whenItsQueryFails_showsTheError_untilAQuerySucceeds()
    {
        park();
        m_window->showTab(QStringLiteral("audit"));
        AuditView *view = m_window->auditView();
        QAbstractItemModelTester tester(view->model(),
                                        QAbstractItemModelTester::FailureReportingMode::QtTest);
        auto *error = find<QLabel>("auditError");
        auto *table = find<QTableView>("auditTable");
        QTRY_COMPARE(view->model()->rowCount(), 1);
        QVERIFY(!error->isVisible());
        // The table the view reads is gone, as in a damaged or foreign file.
        QVERIFY(m_db->exec("ALTER TABLE operations RENAME TO operations_gone").ok());
        view->refreshSoon();
        QTRY_VERIFY(error->isVisible());
        QVERIFY2(error->text().contains(QLatin1String("no such table: operations")),
                 qPrintable(error->text()));
        QCOMPARE(view->model()->rowCount(), 0);
        QVERIFY(!view->model()->queryError().isEmpty());
        QTemporaryDir dir;
        QSignalSpy finished(view, &AuditView::exportFinished);
        view->exportTo(dir.filePath(QStringLiteral("rows.csv")));
        QCOMPARE(finished.size(), 1);
        QVERIFY(!finished.first().at(0).toBool());
        const QString exportError = finished.first().at(1).toString();
        QVERIFY2(exportError.contains(QLatin1String("no such table")), qPrintable(exportError));

        QVERIFY(m_db->exec("ALTER TABLE operations_gone RENAME TO operations").ok());
        view->refreshSoon();
        QTRY_VERIFY(!error->isVisible());
        QCOMPARE(view->model()->rowCount(), 1);
        QVERIFY(table->isColumnHidden(AuditModel::Id)); // the columns are set up again
    }

    void auditView_whenASortFails_showsTheError()
    {
        park();
        m_window->showTab(QStringLiteral("audit"));
        auto *table = find<QTableView>("auditTable");
        QVERIFY(m_db->exec("ALTER TABLE decisions RENAME TO decisions_gone").ok());
        // The header's sort runs the model's query at once, with no refresh by the view.
        table->sortByColumn(AuditModel::Who, Qt::AscendingOrder);
        QVERIFY(find<QLabel>("auditError")->isVisible());
        const QString shown = find<QLabel>("auditError")->text();
        QVERIFY2(shown.contains(QLatin1String("no such table: decisions")), qPrintable(shown));
    }
};

QTEST_MAIN(MainWindowAuditTest)
#include "mainwindowaudit_test.moc"
