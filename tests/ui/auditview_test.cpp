// The audit view under the offscreen platform, over a real SQLite file through AuditStore (so the
// view reads its listings on its own thread, as in the app): the detail pane shows what the card
// showed, the blast radius in words, the chart's numbers and period, pending rows waiting, export
// saying where and how many, the date boxes, sorts off the window's thread, and the window's
// connection left writable while many rows are shown.
#include "auditviewfixture.h"

#include <QTest>

class AuditViewTest : public QObject, protected AuditViewFixture
{
    Q_OBJECT

private Q_SLOTS:
    void init() { setUp(); }
    void cleanup() { tearDown(); }

    void chart_showsItsCounts_andThePeriod()
    {
        const qint64 day0 = QDateTime(QDate(2026, 11, 2), QTime(10, 0), Qt::UTC).toMSecsSinceEpoch();
        add(QStringLiteral("a"), Operation::Status::Approved, day0);
        add(QStringLiteral("b"), Operation::Status::Approved, day0 + 1000);
        add(QStringLiteral("c"), Operation::Status::Declined, day0 + 2000);
        add(QStringLiteral("d"), Operation::Status::Declined,
            day0 + 2 * kDayMs); // a day without rows between
        add(QStringLiteral("e"), Operation::Status::Approved, day0 + 2 * kDayMs + 1000);
        showView();
        QVERIFY(listed());
        const QString summary = find<QLabel>("decisionChartSummary")->text();
        for (const char *expected : {"2026-11-02 to 2026-11-04", "3 days", "3 approved", "2 declined"})
            QVERIFY2(summary.contains(QLatin1String(expected)), qPrintable(summary));
        auto *chart = find<DecisionChart>("decisionChart");
        QCOMPARE(chart->counts().size(), 3); // the day between at zero
        QCOMPARE(chart->counts()[1].approved + chart->counts()[1].declined, 0);
        // Each day's counts under the pointer; the bars carry them where they fit.
        QStringList tips;
        for (int x = 0; x < chart->width(); x += 4) {
            const QString tip = chart->toolTipAt(QPoint(x, chart->height() - 30));
            if (!tip.isEmpty() && !tips.contains(tip))
                tips.append(tip);
        }
        QCOMPARE(tips, (QStringList{QStringLiteral("2026-11-02: 2 approved, 1 declined"),
                                    QStringLiteral("2026-11-03: 0 approved, 0 declined"),
                                    QStringLiteral("2026-11-04: 1 approved, 1 declined")}));
        // The chart follows the filter.
        find<QComboBox>("filterDecision")
            ->setCurrentIndex(find<QComboBox>("filterDecision")->findData(QStringLiteral("declined")));
        QTRY_VERIFY(
            find<QLabel>("decisionChartSummary")->text().contains(QLatin1String("0 approved, 2 declined")));
    }

    // The configuration's changes under their own filter: a row each, in words, and their detail.
    void configurationChanges_areRowsOfTheView()
    {
        add(QStringLiteral("web-1"), Operation::Status::Approved);
        QVERIFY(m_store
                    ->recordEvent(
                        QStringLiteral("policy-widened-accepted"),
                        {{"file", "/home/a/config.json"},
                         {"by", "console:alice"},
                         {"widening", {{{"subject", "mode"}, {"before", "strict"}, {"after", "standard"}}}}})
                    .ok());
        showView();
        QVERIFY(listed());
        QCOMPARE(m_view->model()->rowCount(), 1); // the calls alone
        auto *decision = find<QComboBox>("filterDecision");
        decision->setCurrentIndex(decision->findData(QStringLiteral("configuration")));
        QCOMPARE(decision->currentText(), QStringLiteral("configuration changes"));
        QTRY_COMPARE(m_view->model()->rowCount(), 1);
        QVERIFY(listed());
        const auto at = [this](int column) {
            return m_view->model()->data(m_view->model()->index(0, column)).toString();
        };
        QCOMPARE(at(AuditModel::Decision), QStringLiteral("configuration widened, accepted"));
        QCOMPARE(at(AuditModel::Who), QStringLiteral("console:alice"));
        find<QTableView>("auditTable")->selectRow(0);
        const QString shown = find<QTextBrowser>("auditDetail")->toPlainText();
        for (const char *expected :
             {"configuration widened, accepted", "/home/a/config.json", "console:alice",
              "mode: strict -> standard", "In the audit chain as policy-"})
            QVERIFY2(shown.contains(QLatin1String(expected)), qPrintable(shown));
    }

    void pendingRows_sayWaiting_notNotRun()
    {
        const QString pending = add(QStringLiteral("web-1"), Operation::Status::Pending);
        const QString approved = add(QStringLiteral("web-2"), Operation::Status::Approved);
        showView();
        QVERIFY(listed());
        QCOMPARE(cell(pending, AuditModel::Outcome), QStringLiteral("waiting"));
        QCOMPARE(cell(pending, AuditModel::Decision), QStringLiteral("pending"));
        QCOMPARE(cell(approved, AuditModel::Outcome), QStringLiteral("not run"));
        QVERIFY(select(pending));
        QVERIFY(find<QTextBrowser>("auditDetail")
                    ->toPlainText()
                    .contains(QLatin1String("waiting for a decision")));
    }

    void export_saysWhereAndHowManyRows()
    {
        for (int i = 0; i < 3; ++i)
            add(QStringLiteral("svc-%1").arg(i));
        showView();
        QVERIFY(listed());
        auto *message = find<QLabel>("auditExportMessage");
        QVERIFY(!message->isVisible());
        // Through the button and its file dialog.
        const QString csv = m_dir.filePath(QStringLiteral("rows.csv"));
        QTimer::singleShot(0, this, [&] {
            // The dialog is modal: answer it once it is up.
            (void)QTest::qWaitFor(
                [] { return qobject_cast<QFileDialog *>(QApplication::activeModalWidget()); }, 5000);
            if (auto *dialog = qobject_cast<QFileDialog *>(QApplication::activeModalWidget())) {
                dialog->selectFile(csv);
                QMetaObject::invokeMethod(dialog, "accept");
            } else if (QWidget *modal = QApplication::activeModalWidget()) {
                modal->close(); // not a file dialog: the checks below fail
            }
        });
        QTest::mouseClick(find<QPushButton>("exportButton"), Qt::LeftButton);
        QTRY_COMPARE(message->text(),
                     QStringLiteral("Exported 3 rows to %1 (CSV)").arg(QDir::toNativeSeparators(csv)));
        QVERIFY(message->isVisible());
        QFile written(csv);
        QVERIFY(written.open(QIODevice::ReadOnly));
        QCOMPARE(written.readAll().trimmed().split('\n').size(), 4);
        // One row, as JSON.
        find<QLineEdit>("filterText")->setText(QStringLiteral("svc-1"));
        QVERIFY(listed());
        QSignalSpy finished(m_view.get(), &AuditView::exportFinished);
        m_view->exportTo(m_dir.filePath(QStringLiteral("one.json")));
        // Written on the model's thread: the window goes on meanwhile, the button waits.
        QCOMPARE(message->text(),
                 QStringLiteral("Exporting to %1…")
                     .arg(QDir::toNativeSeparators(m_dir.filePath(QStringLiteral("one.json")))));
        QVERIFY(!find<QPushButton>("exportButton")->isEnabled());
        QVERIFY(finished.wait(10000));
        QCOMPARE(finished.takeFirst().at(0).toBool(), true);
        QVERIFY(find<QPushButton>("exportButton")->isEnabled());
        QCOMPARE(message->text(),
                 QStringLiteral("Exported 1 row to %1 (JSON)")
                     .arg(QDir::toNativeSeparators(m_dir.filePath(QStringLiteral("one.json")))));
        // And why, when it cannot.
        const QString nowhere = m_dir.filePath(QStringLiteral("no-such-folder/rows.csv"));
        m_view->exportTo(nowhere);
        QVERIFY(finished.wait(10000));
        const QList<QVariant> failed = finished.takeFirst();
        QCOMPARE(failed.at(0).toBool(), false);
        const QString error = failed.at(1).toString();
        QVERIFY(!error.isEmpty());
        QVERIFY(!QFile::exists(nowhere));
        QCOMPARE(
            message->text(),
            QStringLiteral("Nothing was exported to %1: %2").arg(QDir::toNativeSeparators(nowhere), error));
        QVERIFY(message->isVisible());
    }

    void dateBoxes_areDisabled_whileFromIsOff()
    {
        showView();
        auto *useDates = find<QCheckBox>("filterUseDates");
        auto *from = find<QDateEdit>("filterFrom");
        auto *to = find<QDateEdit>("filterTo");
        QVERIFY(!useDates->isChecked());
        QVERIFY(!from->isEnabled());
        QVERIFY(!to->isEnabled());
        QTest::mouseClick(useDates, Qt::LeftButton, {}, QPoint(4, useDates->height() / 2));
        QVERIFY(useDates->isChecked());
        QVERIFY(from->isEnabled());
        QVERIFY(to->isEnabled());
        QTest::mouseClick(useDates, Qt::LeftButton, {}, QPoint(4, useDates->height() / 2));
        QVERIFY(!from->isEnabled());
        QVERIFY(!to->isEnabled());
    }

    void sorts_areReadOffTheWindowsThread_andShownSorted_data()
    {
        QTest::addColumn<int>("column");
        QTest::addColumn<Qt::SortOrder>("order");
        QTest::addColumn<QString>("first");
        QTest::newRow("who, ascending") << int(AuditModel::Who) << Qt::AscendingOrder << QStringLiteral("t0");
        QTest::newRow("who, descending")
            << int(AuditModel::Who) << Qt::DescendingOrder << QStringLiteral("t299");
        QTest::newRow("target, ascending")
            << int(AuditModel::Target) << Qt::AscendingOrder << QStringLiteral("t0");
        QTest::newRow("reason, descending")
            << int(AuditModel::Reason) << Qt::DescendingOrder << QStringLiteral("t299");
        QTest::newRow("outcome, descending")
            << int(AuditModel::Outcome) << Qt::DescendingOrder << QStringLiteral("t0");
    }

    void sorts_areReadOffTheWindowsThread_andShownSorted()
    {
        QFETCH(int, column);
        QFETCH(Qt::SortOrder, order);
        QFETCH(QString, first);
        // t0 alone waits; the others were decided, each by its own person and reason, t299 last.
        add(QStringLiteral("t0"), Operation::Status::Pending);
        for (int i = 1; i < 300; ++i) {
            Operation op =
                operation(QStringLiteral("t%1").arg(i, 3, 10, QLatin1Char('0')), m_clock.nowMs() + i);
            if (i == 299)
                op.plan.targets = {QStringLiteral("t299")};
            QVERIFY(record(*m_store, op));
            QVERIFY(m_store
                        ->decide(op.nonce,
                                 {Operation::Status::Declined,
                                  QStringLiteral("console:u%1").arg(i, 3, 10, QLatin1Char('0')),
                                  QStringLiteral("reason %1").arg(i, 3, 10, QLatin1Char('0')), op.createdMs})
                        .ok());
        }
        showView();
        QVERIFY(listed());
        AuditModel *model = m_view->model();
        QAbstractItemModelTester tester(model, QAbstractItemModelTester::FailureReportingMode::QtTest);
        QCOMPARE(model->rowCount(), 300);
        find<QTableView>("auditTable")->sortByColumn(column, order);
        // The header's click returns before the rows are sorted: they are read on the model's thread.
        QVERIFY(model->isLoading());
        QCOMPARE(find<QLabel>("auditStatus")->text(), QStringLiteral("Reading the audit log…"));
        QVERIFY(listed());
        QCOMPARE(find<QLabel>("auditStatus")->text(), QStringLiteral("300 operations"));
        QCOMPARE(model->data(model->index(0, AuditModel::Target)).toString(), first);
        QCOMPARE(model->rowCount(), 300);
    }

    void theWindowsConnection_staysWritable_whileManyRowsAreShown()
    {
        // More rows than one page, so that a lazily read query would have stayed open.
        for (int i = 0; i < 600; ++i)
            add(QStringLiteral("svc-%1").arg(i));
        showView();
        QVERIFY(listed());
        auto *table = find<QTableView>("auditTable");
        table->scrollTo(m_view->model()->index(300, 0));
        QApplication::processEvents();
        // The server's thread writes through its own connection...
        auto server = Database::open(path());
        QVERIFY(server.ok());
        AuditStore serverStore(*server.value(), m_clock, &m_signer);
        Operation arrived = operation(QStringLiteral("new-card"), m_clock.nowMs() + 10'000);
        QVERIFY(record(serverStore, arrived));
        // ...and the window decides it through its own: neither locked out nor blind to the row.
        QElapsedTimer took;
        took.start();
        auto decided =
            m_store->decide(arrived.nonce, {Operation::Status::Approved, QStringLiteral("console:alice"),
                                            QString(), m_clock.nowMs()});
        QVERIFY2(decided.ok(), decided.ok() ? "" : qPrintable(decided.error()));
        QVERIFY2(took.elapsed() < 2000, "the write waited on a lock");
        QVERIFY(relisted());
        QCOMPARE(m_view->model()->rowCount(), 601);
        QCOMPARE(m_view->model()->idAt(0), arrived.nonce);
    }

    void selection_staysOnItsOperation_whenRowsArrive()
    {
        add(QStringLiteral("web-1"));
        const QString chosen = add(QStringLiteral("web-2"));
        add(QStringLiteral("web-3"));
        showView();
        QVERIFY(listed());
        QVERIFY(select(chosen));
        QCOMPARE(rowOf(chosen), 1);
        add(QStringLiteral("web-4")); // newest first: the chosen row moves down
        QVERIFY(relisted());
        QCOMPARE(rowOf(chosen), 2);
        auto *table = find<QTableView>("auditTable");
        QCOMPARE(table->selectionModel()->currentIndex().row(), 2);
        QVERIFY(find<QTextBrowser>("auditDetail")
                    ->toPlainText()
                    .contains(QLatin1String("Delete service web-2?")));
    }

    void aFailedRead_onTheModelsThread_isShown_untilOneSucceeds()
    {
        add(QStringLiteral("web-1"));
        showView();
        QVERIFY(listed());
        auto *error = find<QLabel>("auditError");
        QVERIFY(!error->isVisible());
        QVERIFY(m_db->exec("ALTER TABLE decisions RENAME TO decisions_gone").ok());
        find<QTableView>("auditTable")->sortByColumn(AuditModel::Who, Qt::AscendingOrder);
        QVERIFY(listed());
        QVERIFY(error->isVisible());
        QVERIFY2(error->text().contains(QLatin1String("no such table: decisions")),
                 qPrintable(error->text()));
        QCOMPARE(m_view->model()->rowCount(), 0);
        QVERIFY(m_db->exec("ALTER TABLE decisions_gone RENAME TO decisions").ok());
        QVERIFY(relisted());
        QVERIFY2(!error->isVisible(), qPrintable(error->text()));
        QCOMPARE(m_view->model()->rowCount(), 1);
    }
};

QTEST_MAIN(AuditViewTest)
#include "auditview_test.moc"
