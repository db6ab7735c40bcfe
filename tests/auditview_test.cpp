// The audit view under the offscreen platform, over a real SQLite file through AuditStore (so the
// view reads its listings on its own thread, as in the app): the detail pane shows what the card
// showed, the blast radius in words, the chart's numbers and period, pending rows waiting, export
// saying where and how many, the date boxes, sorts off the window's thread, and the window's
// connection left writable while many rows are shown.
#include "auditmodel.h"
#include "auditstore.h"
#include "auditview.h"
#include "blastradiustext.h"
#include "canonicaljson.h"
#include "database.h"
#include "decisionchart.h"
#include "fakeclock.h"
#include "fileundo.h"
#include "helperfailure.h"
#include "receipt.h"
#include "snapshotstore.h"

#include <QAbstractItemModelTester>
#include <QApplication>
#include <QCheckBox>
#include <QComboBox>
#include <QDateEdit>
#include <QDialog>
#include <QDir>
#include <QElapsedTimer>
#include <QFile>
#include <QFileDialog>
#include <QLabel>
#include <QLineEdit>
#include <QLocale>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QSignalSpy>
#include <QTableView>
#include <QTemporaryDir>
#include <QTest>
#include <QTextBrowser>
#include <QTimer>

using namespace Countersign;
using nlohmann::json;

Q_DECLARE_METATYPE(nlohmann::json)

namespace {

constexpr qint64 kDayMs = 24LL * 3600 * 1000;

} // namespace

class AuditViewTest : public QObject
{
    Q_OBJECT
private:
    FakeClock m_clock;
    QTemporaryDir m_dir;
    std::unique_ptr<Database> m_db;
    const ReceiptSigner m_signer{QByteArray(32, '\x07')};
    std::unique_ptr<AuditStore> m_store;
    std::unique_ptr<AuditView> m_view;
    int m_next = 0;

    QString path() const { return m_dir.filePath(QStringLiteral("countersign.db")); }

    Operation operation(const QString &target, qint64 createdMs)
    {
        Operation op;
        op.nonce = QStringLiteral("%1").arg(++m_next, 32, 10, QLatin1Char('0'));
        op.tool = QStringLiteral("delete_service");
        op.principal = QStringLiteral("vscode");
        op.clientInfo = {{"name", "Claude Code"}};
        op.arguments = {{"service", target.toStdString()}};
        op.argsDigest = QString::fromLatin1(CanonicalJson::digest(op.arguments));
        op.plan.title = QStringLiteral("Delete %1").arg(target);
        op.plan.prompt = QStringLiteral("Delete service %1?").arg(target);
        op.plan.diff = QStringLiteral("-name: %1\n").arg(target);
        op.plan.targets = {target};
        op.plan.risk = Risk::Medium;
        op.rule = QStringLiteral("no rule matched: default ask");
        op.createdMs = createdMs;
        op.expiresMs = createdMs + 300'000;
        return op;
    }
    bool record(AuditStore &store, Operation &op)
    {
        op.planDigest = op.plan.digest();
        if (auto recorded = store.recordOperation(op); !recorded)
            return helperFailed(QStringLiteral("record failed: %1").arg(recorded.error()));
        return true;
    }
    // A pending operation, then decided as asked (Pending leaves it waiting).
    QString add(const QString &target, Operation::Status outcome = Operation::Status::Approved,
                qint64 createdMs = 0, const QString &by = QStringLiteral("console:alice"))
    {
        Operation op = operation(target, createdMs ? createdMs : m_clock.nowMs() + m_next);
        if (!record(*m_store, op))
            return {};
        if (outcome != Operation::Status::Pending) {
            const Decision decision{outcome, by, QString(), op.createdMs + 1000};
            if (auto decided = m_store->decide(op.nonce, decision); !decided)
                helperFailed(QStringLiteral("decide failed: %1").arg(decided.error()));
        }
        return op.nonce;
    }
    void showView()
    {
        m_view = std::make_unique<AuditView>(*m_store, m_db->connectionName());
        m_view->resize(1100, 760);
        m_view->show();
    }
    // Waits for the view's listing (read on its thread) to be shown.
    bool listed()
    {
        AuditModel *model = m_view->model();
        return QTest::qWaitFor([model] { return !model->isLoading(); }, 10'000) ||
               helperFailed(QStringLiteral("the listing was not shown in 10 s"));
    }
    // Reads the store again, as when operations arrive, and waits for the rows.
    bool relisted()
    {
        QSignalSpy loading(m_view->model(), &AuditModel::loadingChanged);
        m_view->refreshSoon();
        const auto done = [&loading] {
            for (const QList<QVariant> &change : loading) {
                if (!change.value(0).toBool())
                    return true;
            }
            return false;
        };
        return QTest::qWaitFor(done, 10'000) ||
               helperFailed(QStringLiteral("the view did not read the store again in 10 s"));
    }
    int rowOf(const QString &nonce)
    {
        const AuditModel *model = m_view->model();
        for (int row = 0; row < model->rowCount(); ++row) {
            if (model->idAt(row) == nonce)
                return row;
        }
        return -1;
    }
    QString cell(const QString &nonce, AuditModel::Column column)
    {
        const int row = rowOf(nonce);
        return row < 0 ? QStringLiteral("(no row)")
                       : m_view->model()->data(m_view->model()->index(row, column)).toString();
    }
    bool select(const QString &nonce)
    {
        auto *table = find<QTableView>("auditTable");
        const int row = rowOf(nonce);
        if (row < 0)
            return helperFailed(QStringLiteral("no row for %1").arg(nonce));
        table->selectRow(row);
        return true;
    }
    template <typename T> T *find(const char *name)
    {
        if (T *w = m_view->findChild<T *>(QLatin1String(name)))
            return w;
        helperFailed(QStringLiteral("no widget %1").arg(QLatin1String(name)));
        auto *standIn = new T;
        m_standIns.emplace_back(standIn);
        return standIn;
    }
    std::vector<std::unique_ptr<QObject>> m_standIns;

private Q_SLOTS:
    void init()
    {
        QVERIFY(m_dir.isValid());
        QFile::remove(path());
        auto db = Database::open(path());
        QVERIFY2(db.ok(), db.ok() ? "" : qPrintable(db.error()));
        m_db = std::move(db).value();
        m_store = std::make_unique<AuditStore>(*m_db, m_clock, &m_signer);
    }
    void cleanup()
    {
        m_view.reset();
        m_store.reset();
        m_db.reset();
        m_standIns.clear();
        for (const QString &suffix : {QString(), QStringLiteral("-wal"), QStringLiteral("-shm")})
            QFile::remove(path() + suffix);
    }

    void detail_showsWhatTheCardShowed()
    {
        Operation op = operation(QStringLiteral("c-volume"), m_clock.nowMs());
        op.plan.summary = QStringLiteral("3 files and 1 volume go with the service");
        op.plan.targets = {QStringLiteral("c-volume"), QStringLiteral("a-service"),
                           QStringLiteral("b-records")};
        op.plan.blastRadius = {{"files", 3},     {"bytes", 24576},   {"dnsRecords", 4},
                               {"volumeGB", 40}, {"newFile", false}, {"irreversible", true}};
        op.plan.risk = Risk::High;
        op.rule = QStringLiteral("rule 2: delete_service asks");
        QVERIFY(record(*m_store, op));
        showView();
        QVERIFY(listed());
        QVERIFY(select(op.nonce));
        const QString shown = find<QTextBrowser>("auditDetail")->toPlainText();
        for (const QString &expected : {op.plan.summary, QStringLiteral("High risk · irreversible"),
                                        QStringLiteral("rule 2: delete_service asks"),
                                        QStringLiteral("3 files, %1").arg(QLocale().formattedDataSize(24576)),
                                        QStringLiteral("4 DNS records"), QStringLiteral("40 GB volume"),
                                        QStringLiteral("Delete service c-volume?")})
            QVERIFY2(shown.contains(expected),
                     qPrintable(QStringLiteral("%1 not in:\n%2").arg(expected, shown)));
        for (const char *raw : {"dnsRecords", "volumeGB", "newFile", "irreversible:", "bytes:", "false"})
            QVERIFY2(!shown.contains(QLatin1String(raw)), raw);
        // The targets sorted.
        const qsizetype targets = shown.indexOf(QLatin1String("Targets\n"));
        const qsizetype a = shown.indexOf(QLatin1String("a-service"), targets);
        const qsizetype b = shown.indexOf(QLatin1String("b-records"), targets);
        const qsizetype c = shown.indexOf(QLatin1String("c-volume"), targets);
        QVERIFY2(targets >= 0 && targets < a && a < b && b < c, qPrintable(shown));
    }
    void detail_showsInvisibleCharactersAsMarks()
    {
        Operation op =
            operation(QStringLiteral("web") + QChar(0x202E) + QStringLiteral("1"), m_clock.nowMs());
        op.plan.summary = QStringLiteral("tag ") + QString::fromUcs4(U"\U000E0041") + QStringLiteral(" char");
        QVERIFY(record(*m_store, op));
        showView();
        QVERIFY(listed());
        QVERIFY(select(op.nonce));
        const QString shown = find<QTextBrowser>("auditDetail")->toPlainText();
        QVERIFY2(shown.contains(QStringLiteral("web\u27e6U+202E\u27e71")), qPrintable(shown));
        QVERIFY2(shown.contains(QStringLiteral("tag \u27e6U+E0041\u27e7 char")), qPrintable(shown));
        QVERIFY(!shown.contains(QChar(0x202E)));
    }
    void blastRadius_readsAsWords_data()
    {
        QTest::addColumn<json>("blast");
        QTest::addColumn<QStringList>("lines");
        const auto size = [](qint64 bytes) { return QLocale().formattedDataSize(bytes); };
        QTest::newRow("one file") << json{{"files", 1}} << QStringList{QStringLiteral("1 file")};
        QTest::newRow("two files") << json{{"files", 2}} << QStringList{QStringLiteral("2 files")};
        QTest::newRow("bytes once") << json{{"bytes", 102}} << QStringList{size(102)};
        QTest::newRow("files and their size") << json{{"files", 3}, {"bytes", 24576}}
                                              << QStringList{QStringLiteral("3 files, %1").arg(size(24576))};
        QTest::newRow("a new file")
            << json{{"files", 1}, {"newFile", true}, {"bytes", 14}, {"linesAdded", 2}, {"linesRemoved", 0}}
            << QStringList{QStringLiteral("a new file, %1").arg(size(14)),
                           QStringLiteral("2 lines added, 0 removed")};
        QTest::newRow("an edit")
            << json{{"files", 1}, {"newFile", false}, {"linesAdded", 1}, {"linesRemoved", 3}}
            << QStringList{QStringLiteral("1 file"), QStringLiteral("1 line added, 3 removed")};
        QTest::newRow("a recursive delete")
            << json{{"files", 12},      {"bytes", 2048},         {"untracked", 1},
                    {"uncommitted", 0}, {"inGitWorkTree", true}, {"irreversible", true}}
            << QStringList{QStringLiteral("12 files, %1").arg(size(2048)), QStringLiteral("1 untracked file"),
                           QStringLiteral("no uncommitted changes"),
                           QStringLiteral("inside a git work tree")};
        QTest::newRow("outside git") << json{{"inGitWorkTree", false}}
                                     << QStringList{QStringLiteral(
                                            "not in a git work tree: nothing can be restored")};
        QTest::newRow("a move that overwrites")
            << json{{"overwrites", true}, {"bytesOverwritten", 4096}}
            << QStringList{QStringLiteral("overwrites an existing file of %1").arg(size(4096))};
        QTest::newRow("a move that does not") << json{{"overwrites", false}, {"bytesOverwritten", 0}}
                                              << QStringList{QStringLiteral("overwrites nothing")};
        QTest::newRow("a command") << json{{"cwd", "/home/me/app"},
                                           {"pinnedFiles", {{"run.sh", "ab"}, {"lib.sh", "cd"}}}}
                                   << QStringList{
                                          QStringLiteral("runs in /home/me/app"),
                                          QStringLiteral("2 files pinned by their content: lib.sh, run.sh")};
        QTest::newRow("counted nouns")
            << json{{"dnsRecords", 4}, {"instances", 1}, {"policies", 1}}
            << QStringList{QStringLiteral("4 DNS records"), QStringLiteral("1 instance"),
                           QStringLiteral("1 policy")};
        QTest::newRow("units before their noun")
            << json{{"volumeGB", 40}, {"downtimeMinutes", 1}, {"logBytes", 2048}}
            << QStringList{QStringLiteral("1 minute downtime"), QStringLiteral("%1 log").arg(size(2048)),
                           QStringLiteral("40 GB volume")};
        QTest::newRow("flags") << json{{"deletesBackups", true}, {"keepsSnapshots", false}}
                               << QStringList{QStringLiteral("deletes backups")};
        QTest::newRow("values") << json{{"cluster", "prod-eu"}, {"maxSurge", 2}, {"regions", {"eu", "us"}}}
                                << QStringList{QStringLiteral("cluster: prod-eu"),
                                               QStringLiteral("max surge: 2"),
                                               QStringLiteral("regions: eu, us")};
        QTest::newRow("a known key of another type is still shown")
            << json{{"files", "many"}} << QStringList{QStringLiteral("files: many")};
        QTest::newRow("irreversible is the risk's") << json{{"irreversible", true}} << QStringList();
        QTest::newRow("what an agent's command would lose, measured")
            << json{{"measured",
                     {{{"kind", "discard"}, {"files", {{{"path", "main.rs"}, {"added", 3}, {"removed", 1}}}}},
                      {{"kind", "push"},
                       {"targets",
                        {{{"remote", "origin"}, {"branch", "main"}, {"deleting", false}, {"commits", 2}}}}},
                      {{"kind", "branch"}, {"branch", "spike"}, {"commits", 1}}}}}
            << QStringList{QStringLiteral("discards uncommitted changes: main.rs (+3 −1)"),
                           QStringLiteral("overwrites origin/main: 2 commits lost"),
                           QStringLiteral("deletes the branch spike: 1 commit no other branch holds")};
        QTest::newRow("what a write the card asks about replaces")
            << json{{"measured",
                     {{{"kind", "write"},
                       {"path", "/home/a/.bashrc"},
                       {"replaces", true},
                       {"lines", 3},
                       {"bytes", 2048},
                       {"restorable", false}},
                      {{"kind", "write"}, {"path", "/home/a/.profile"}, {"replaces", false}, {"lines", 1}},
                      {{"kind", "write"},
                       {"path", "/home/a/.zshrc"},
                       {"replaces", true},
                       {"exists", false}}}}}
            << QStringList{QStringLiteral("replaces /home/a/.bashrc: 3 lines, %1 (git cannot bring it back)")
                               .arg(size(2048)),
                           QStringLiteral("adds to /home/a/.profile (1 line now)"),
                           QStringLiteral("creates /home/a/.zshrc")};
        QTest::newRow("an undo kept")
            << json{{"undo", {{"files", 2}, {"bytes", 2048}}}}
            << QStringList{
                   QStringLiteral("undo: a copy of 2 files (%1) is kept before it runs").arg(size(2048))};
        QTest::newRow("no undo") << json{{"undo", {{"refused", "it deletes more than 2000 files"}}}}
                                 << QStringList{
                                        QStringLiteral("undo: none, as it deletes more than 2000 files")};
    }
    void blastRadius_readsAsWords()
    {
        QFETCH(json, blast);
        QFETCH(QStringList, lines);
        QCOMPARE(BlastRadiusText::lines(blast), lines);
        QCOMPARE(BlastRadiusText::text(blast), lines.isEmpty()
                                                   ? QStringLiteral("(nothing measured beyond the targets)")
                                                   : lines.join(QLatin1Char('\n')));
    }
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
    // A row whose change kept what it overwrote offers Revert: the dialog shows the diff it applies,
    // Revert restores the bytes and says so, and a second one is refused in the view. A row that
    // kept nothing offers none.
    void revert_showsTheDiff_restoresTheBytes_once()
    {
        SnapshotStore snapshots(m_dir.filePath(QStringLiteral("snapshots")), {});
        FileUndo undo(*m_store, snapshots);
        const QString file = m_dir.filePath(QStringLiteral("edited.txt"));
        const auto put = [&file](const QByteArray &bytes) {
            QFile f(file);
            return f.open(QIODevice::WriteOnly | QIODevice::Truncate) && f.write(bytes) == bytes.size();
        };
        QVERIFY(put("kept line\nbefore\n"));
        auto kept = snapshots.keep(file);
        QVERIFY(kept.ok());
        QVERIFY(put("kept line\nafter\n"));
        const QString nonce = add(QStringLiteral("quiet-edit"), Operation::Status::Approved);
        QVERIFY(m_store
                    ->recordEvent(QStringLiteral("agent-tool-ran"), nonce,
                                  {{"undo", FileUndo::record({kept.value()})}})
                    .ok());
        const QString other = add(QStringLiteral("nothing-kept"), Operation::Status::Approved);
        showView();
        m_view->setUndo(&undo, QStringLiteral("console:alice"));
        QVERIFY(listed());
        auto *revert = find<QPushButton>("auditRevert");
        QVERIFY(select(other));
        QVERIFY(!revert->isVisible());
        QVERIFY(select(nonce));
        QVERIFY(revert->isVisible());
        revert->click();
        auto *dialog = m_view->findChild<QDialog *>(QStringLiteral("revertDialog"));
        QVERIFY(dialog);
        const QString diff = dialog->findChild<QPlainTextEdit *>(QStringLiteral("revertDiff"))->toPlainText();
        QVERIFY2(diff.contains(QLatin1String("-after\n+before")), qPrintable(diff));
        dialog->findChild<QPushButton *>(QStringLiteral("revertConfirm"))->click();
        QTRY_VERIFY(find<QLabel>("auditRevertMessage")->text().contains(QLatin1String("Reverted 1 file")));
        QFile restored(file);
        QVERIFY(restored.open(QIODevice::ReadOnly));
        QCOMPARE(restored.readAll(), QByteArray("kept line\nbefore\n"));
        QVERIFY(relisted());
        QVERIFY(select(nonce));
        revert->click();
        QVERIFY(find<QLabel>("auditRevertMessage")->text().contains(QLatin1String("reverted already")));
        QVERIFY(!m_view->findChild<QDialog *>(QStringLiteral("revertDialog"), Qt::FindDirectChildrenOnly) ||
                !m_view->findChild<QDialog *>(QStringLiteral("revertDialog"))->isVisible());
        m_view->setUndo(nullptr, {});
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
