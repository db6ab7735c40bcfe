// End to end: the real app (Console: server thread, queue, window) with its window on the
// offscreen platform; the official TypeScript client, as a separate process, calls a gated action
// whose apply command deletes a real directory; the test approves through the window's widgets;
// the client gets the result with a receipt that verifies.
#include "approvalqueue.h"
#include "auditmodel.h"
#include "auditview.h"
#include "commandline.h"
#include "console.h"
#include "database.h"
#include "mainwindow.h"
#include "policychangebanner.h"
#include "receipt.h"
#include "systemclock.h"
#include "tokenstore.h"

#include <QDir>
#include <QElapsedTimer>
#include <QFile>
#include <QLineEdit>
#include <QListWidget>
#include <QPlainTextEdit>
#include <QProcess>
#include <QPushButton>
#include <QSpinBox>
#include <QTemporaryDir>
#include <QTest>
#include <QTreeWidget>
#include <QUrl>

#include <csignal>

using namespace Countersign;
using json = nlohmann::json;

class EndToEndTest : public QObject
{
    Q_OBJECT
private:
    // A configured action that deletes a folder under the temporary folder's work/, at that risk;
    // its plan names the folder as its target and diff.
    static json deleteDirConfig(const QTemporaryDir &dir, const char *risk)
    {
        return {
            {"keyStore", "file"},
            {"actions",
             {{{"name", "delete_dir"},
               {"title", "Delete a directory"},
               {"inputSchema",
                {{"type", "object"}, {"properties", {{"dir", {{"type", "string"}}}}}, {"required", {"dir"}}}},
               {"plan",
                {"sh", "-c", "printf '{\"targets\":[\"%s\"],\"diff\":\"-%s\"}' \"$0\" \"$0\"", "{dir}"}},
               {"apply", {"rm", "-r", "{dir}"}},
               {"workingDirectory", dir.filePath(QStringLiteral("work")).toStdString()},
               {"risk", risk}}}}};
    }

private Q_SLOTS:
    void typescriptClient_isAnswered_afterApprovalInTheWindow()
    {
        QTemporaryDir dir;
        QVERIFY(QDir(dir.path()).mkpath(QStringLiteral("work/victim/sub")));
        QFile marker(dir.filePath(QStringLiteral("work/victim/sub/f.txt")));
        QVERIFY(marker.open(QIODevice::WriteOnly));
        marker.close();
        const json config = deleteDirConfig(dir, "high");
        CommandLine cl;
        QString token;
        const auto console = start(dir, config, cl, token);
        QVERIFY2(console.ok(), console.ok() ? "" : qPrintable(console.error()));
        MainWindow *window = console.value()->window();
        QVERIFY(window);
        QVERIFY(QTest::qWaitForWindowExposed(window));

        // How long a card takes from the first pass to the queue (printed, not asserted).
        qint64 cardDelayMs = -1;
        connect(&console.value()->queue(), &ApprovalQueue::cardAdded, this, [&](const Operation &op) {
            cardDelayMs = QDateTime::currentMSecsSinceEpoch() - op.createdMs;
        });

        QProcess agent;
        agent.setProcessChannelMode(QProcess::SeparateChannels);
        agent.start(QStringLiteral(NODE_EXECUTABLE),
                    {QStringLiteral(E2E_CLIENT), console.value()->url(), token, QStringLiteral("delete_dir"),
                     QStringLiteral("{\"dir\":\"victim\"}")});
        QVERIFY(agent.waitForStarted());
        auto *list = window->findChild<QListWidget *>(QStringLiteral("pendingList"));
        QTRY_COMPARE_WITH_TIMEOUT(list->count(), 1, 20000);
        qInfo("card in the queue %lld ms after the first pass was minted", cardDelayMs);
        QVERIFY(QFile::exists(marker.fileName())); // nothing runs before the human decides

        auto *approve = window->findChild<QPushButton *>(QStringLiteral("approveButton"));
        QVERIFY(!approve->isEnabled()); // high risk: the target must be typed
        QTest::keyClicks(window->findChild<QLineEdit *>(QStringLiteral("confirmTarget")),
                         QStringLiteral("victim"));
        // Approve opens once the card has been on screen for its minimum time (1 s by default).
        QTRY_VERIFY_WITH_TIMEOUT(approve->isEnabled(), 5000);
        QTest::mouseClick(approve, Qt::LeftButton);
        QTRY_COMPARE_WITH_TIMEOUT(list->count(), 0, 5000);

        QVERIFY(agent.waitForFinished(30000));
        const QByteArray out = agent.readAllStandardOutput();
        QVERIFY2(agent.exitCode() == 0, agent.readAllStandardError().constData());
        const json result = json::parse(out.toStdString());
        QVERIFY2(!result.value("isError", false), out.constData());
        QVERIFY(!QFile::exists(marker.fileName()));
        QVERIFY(!QDir(dir.filePath(QStringLiteral("work/victim"))).exists());
        const json receipt = result.at("_meta").at("dev.countersign/receipt");
        QCOMPARE(QString::fromStdString(receipt.at("approver").get<std::string>()),
                 ApprovalQueue::consoleUser());
        QFile pub(QDir(cl.dataDir).filePath(QStringLiteral("receipt-public-key")));
        QVERIFY(pub.open(QIODevice::ReadOnly));
        QVERIFY(ReceiptSigner::verify(receipt, QByteArray::fromBase64(pub.readAll().trimmed())).ok());
    }

    // A card another process decides in the same SQLite file (countersign-test-decide here; a
    // script, or a console on a copy of the folder) leaves the window's list at once, not at the
    // agent's next call; the agent hears the decline.
    void cardDecidedByAnotherProcess_leavesTheWindow()
    {
        QTemporaryDir dir;
        QVERIFY(QDir(dir.path()).mkpath(QStringLiteral("work/victim")));
        const json config = deleteDirConfig(dir, "medium");
        CommandLine cl;
        QString token;
        const auto console = start(dir, config, cl, token);
        QVERIFY2(console.ok(), console.ok() ? "" : qPrintable(console.error()));
        MainWindow *window = console.value()->window();
        QVERIFY(QTest::qWaitForWindowExposed(window));
        QProcess agent;
        agent.start(QStringLiteral(NODE_EXECUTABLE),
                    {QStringLiteral(E2E_CLIENT), console.value()->url(), token, QStringLiteral("delete_dir"),
                     QStringLiteral("{\"dir\":\"victim\"}")});
        QVERIFY(agent.waitForStarted());
        auto *list = window->findChild<QListWidget *>(QStringLiteral("pendingList"));
        QTRY_COMPARE_WITH_TIMEOUT(list->count(), 1, 20000);

        QProcess decide;
        decide.start(QStringLiteral(DECIDE_BINARY),
                     {cl.dataDir, QStringLiteral("decline"), QStringLiteral("--reason"),
                      QStringLiteral("decided in another process"), QStringLiteral("--by"),
                      QStringLiteral("script")});
        QVERIFY(decide.waitForFinished(20000));
        QVERIFY2(decide.exitCode() == 0, decide.readAllStandardError().constData());
        QElapsedTimer gone;
        gone.start();
        QTRY_COMPARE_WITH_TIMEOUT(list->count(), 0, 3000);
        qInfo("the card left the window %lld ms after the other process declined it", gone.elapsed());
        QCOMPARE(console.value()->queue().pending().size(), 0);

        // The event loop turns while the agent is waited for: the console's main thread is live.
        QTRY_COMPARE_WITH_TIMEOUT(agent.state(), QProcess::NotRunning, 30000);
        const QByteArray out = agent.readAllStandardOutput();
        QVERIFY2(out.contains("decided in another process"), out.constData());
        QVERIFY(QDir(dir.filePath(QStringLiteral("work/victim"))).exists());
    }

    // Calls a rule allows or denies raise no card: the audit view shows them all the same, while
    // it is open, without being touched.
    void ruleSettledCalls_reachTheOpenAuditView()
    {
        QTemporaryDir dir;
        const json schema = {{"type", "object"}, {"properties", {{"n", {{"type", "string"}}}}}};
        const json action = {{"inputSchema", schema},
                             {"plan", {"sh", "-c", "printf '{\"targets\":[\"x\"]}'"}},
                             {"apply", {"true"}},
                             {"risk", "high"}};
        json allowed = action, denied = action;
        allowed["name"] = "count_things";
        denied["name"] = "drop_things";
        const json config = {{"keyStore", "file"},
                             {"actions", {allowed, denied}},
                             {"rules",
                              {{{"tool", "count_things"}, {"decision", "allow"}},
                               {{"tool", "drop_things"}, {"decision", "deny"}, {"reason", "never here"}}}}};
        CommandLine cl;
        QString token;
        const auto console = start(dir, config, cl, token);
        QVERIFY2(console.ok(), console.ok() ? "" : qPrintable(console.error()));
        MainWindow *window = console.value()->window();
        window->showTab(QStringLiteral("audit"));
        QVERIFY(QTest::qWaitForWindowExposed(window));
        QAbstractItemModel *rows = window->auditView()->model();
        QTRY_VERIFY(!window->auditView()->model()->isLoading());
        QCOMPARE(rows->rowCount(), 0);

        for (const char *tool : {"count_things", "drop_things"}) {
            QProcess agent;
            agent.start(QStringLiteral(NODE_EXECUTABLE),
                        {QStringLiteral(E2E_CLIENT), console.value()->url(), token, QString::fromLatin1(tool),
                         QStringLiteral("{\"n\":\"1\"}")});
            QVERIFY(agent.waitForStarted());
            QTRY_COMPARE_WITH_TIMEOUT(agent.state(), QProcess::NotRunning, 30000);
            QVERIFY2(agent.exitCode() == 0, agent.readAllStandardError().constData());
        }
        QCOMPARE(console.value()->queue().pending().size(), 0);
        QTRY_COMPARE_WITH_TIMEOUT(rows->rowCount(), 2, 5000);
        QStringList decisions;
        for (int row = 0; row < 2; ++row)
            decisions.append(rows->index(row, AuditModel::Decision).data().toString());
        decisions.sort();
        QCOMPARE(decisions,
                 (QStringList{QStringLiteral("allowed, no card"), QStringLiteral("denied, no card")}));
    }

    // Settings shows what is in force: the address served (--listen wins over the file's), the
    // workspace roots and the upstreams (their header values never), the mode and the undo bounds;
    // saving a changed TTL writes that key alone, never the served address.
    void settings_showWhatIsInForce_andSaveOnlyWhatChanged()
    {
        QTemporaryDir dir;
        const json config = {{"keyStore", "file"},
                             {"listen", "127.0.0.1:7331"},
                             {"workspaceRoots", {dir.path().toStdString()}},
                             {"upstreams",
                              {{{"name", "remote"},
                                {"url", "http://127.0.0.1:9/mcp"},
                                {"headers", {{"Authorization", "Bearer upstream-secret"}}}}}}};
        CommandLine cl;
        QString token;
        const auto console = start(dir, config, cl, token);
        QVERIFY2(console.ok(), console.ok() ? "" : qPrintable(console.error()));
        MainWindow *window = console.value()->window();
        window->showTab(QStringLiteral("settings"));
        const QString served = QUrl(console.value()->url()).authority();
        const QString text =
            window->findChild<QPlainTextEdit *>(QStringLiteral("effectiveSettings"))->toPlainText();
        for (const QString &expected :
             {QStringLiteral("\"serving\": \"%1\"").arg(served), QStringLiteral("\"workspaceRoots\""),
              QDir(dir.path()).dirName(), QStringLiteral("\"remote\""), QStringLiteral("Authorization"),
              QStringLiteral("\"mode\": \"standard\""), QStringLiteral("\"undoMegabytes\"")})
            QVERIFY2(text.contains(expected), qPrintable(expected + QStringLiteral("\n") + text));
        QVERIFY2(!text.contains(QLatin1String("upstream-secret")), qPrintable(text));
        window->findChild<QSpinBox *>(QStringLiteral("settingTtl"))->setValue(120);
        QTest::mouseClick(window->findChild<QPushButton *>(QStringLiteral("saveSettings")), Qt::LeftButton);
        QFile file(cl.configPath);
        QVERIFY(file.open(QIODevice::ReadOnly));
        const json saved = json::parse(file.readAll().toStdString());
        QCOMPARE(saved.value("ttlSeconds", 0), 120);
        QCOMPARE(QString::fromStdString(saved.value("listen", std::string())),
                 QStringLiteral("127.0.0.1:7331"));
    }

    // The Connections tab lists an upstream as the console starts it: ready, with its server and
    // protocol, and its tools with their decisions (read-only allowed, destructive asked).
    void connectionsTab_showsAnUpstream_asItComesUp()
    {
        QTemporaryDir dir;
        const json config = {{"keyStore", "file"},
                             {"upstreams",
                              {{{"name", "fake"},
                                {"command", {NODE_EXECUTABLE, FAKE_UPSTREAM}},
                                {"cwd", dir.path().toStdString()}}}}};
        CommandLine cl;
        QString token;
        const auto console = start(dir, config, cl, token);
        QVERIFY2(console.ok(), console.ok() ? "" : qPrintable(console.error()));
        MainWindow *window = console.value()->window();
        window->showTab(QStringLiteral("connections"));
        QVERIFY(QTest::qWaitForWindowExposed(window));
        auto *list = window->findChild<QTreeWidget *>(QStringLiteral("upstreamList"));
        QVERIFY(list);
        QTRY_VERIFY_WITH_TIMEOUT(list->topLevelItemCount() == 1 &&
                                     list->topLevelItem(0)->text(1) == QLatin1String("ready"),
                                 20000);
        QTreeWidgetItem *fake = list->topLevelItem(0);
        QCOMPARE(fake->text(0), QStringLiteral("fake"));
        QCOMPARE(fake->text(2), QStringLiteral("fake-upstream, protocol 2025-11-25"));
        QHash<QString, QString> decisions;
        for (int i = 0; i < fake->childCount(); ++i)
            decisions.insert(fake->child(i)->text(0), fake->child(i)->text(1));
        QCOMPARE(decisions.value(QStringLiteral("fake_echo")), QStringLiteral("allow"));
        QCOMPARE(decisions.value(QStringLiteral("fake_record")), QStringLiteral("ask"));
    }

    // An upstream of the test's own re-annotates a tool that asked as read-only, in the real console
    // with its window: the banner shows the change, the tool stays on ask until Accept, then allows.
    void anUpstreamsWidening_showsInTheWindow_andAppliesOnlyWhenAccepted()
    {
        QTemporaryDir dir;
        const QString tools = dir.filePath(QStringLiteral("tools.json"));
        const QString pidFile = dir.filePath(QStringLiteral("pid"));
        const auto writeTools = [&tools](bool readOnly) {
            QFile f(tools);
            json annotations = readOnly ? json{{"readOnlyHint", true}} : json{{"destructiveHint", true}};
            const json list = json::array(
                {{{"name", "wipe"}, {"inputSchema", {{"type", "object"}}}, {"annotations", annotations}}});
            return f.open(QIODevice::WriteOnly) && f.write(QByteArray::fromStdString(list.dump())) > 0;
        };
        QVERIFY(writeTools(false));
        const json config = {{"keyStore", "file"},
                             {"upstreams",
                              {{{"name", "rug"},
                                {"command", {NODE_EXECUTABLE, RUGPULL_UPSTREAM}},
                                {"env",
                                 {{"TOOLS", tools.toStdString()},
                                  {"RUNS", dir.filePath(QStringLiteral("runs")).toStdString()},
                                  {"PIDFILE", pidFile.toStdString()}}}}}}};
        CommandLine cl;
        QString token;
        const auto console = start(dir, config, cl, token);
        QVERIFY2(console.ok(), console.ok() ? "" : qPrintable(console.error()));
        MainWindow *window = console.value()->window();
        window->showTab(QStringLiteral("connections"));
        QVERIFY(QTest::qWaitForWindowExposed(window));
        auto *list = window->findChild<QTreeWidget *>(QStringLiteral("upstreamList"));
        QVERIFY(list);
        const auto decision = [list] {
            if (list->topLevelItemCount() != 1 || list->topLevelItem(0)->childCount() != 1)
                return QString();
            return list->topLevelItem(0)->child(0)->text(1);
        };
        QTRY_COMPARE_WITH_TIMEOUT(decision(), QStringLiteral("ask"), 20000);

        QVERIFY(writeTools(true));
        QFile pid(pidFile);
        QVERIFY(pid.open(QIODevice::ReadOnly));
        QCOMPARE(::kill(pid.readAll().trimmed().toInt(), SIGUSR1), 0);
        PolicyChangeBanner *banner = window->upstreamChangeBanner();
        QTRY_VERIFY_WITH_TIMEOUT(banner->isVisible(), 10000);
        const QString shown =
            banner->findChild<QPlainTextEdit *>(QStringLiteral("policyChangeText"))->toPlainText();
        QVERIFY2(shown.contains(QStringLiteral("tool wipe: readOnlyHint: no → yes")), qPrintable(shown));
        QTest::qWait(500); // the list has been rebuilt since: still asks
        QCOMPARE(decision(), QStringLiteral("ask"));
        QVERIFY(list->topLevelItem(0)->child(0)->text(2).contains(QLatin1String("waits for you")));

        auto *accept = banner->findChild<QPushButton *>(QStringLiteral("acceptPolicyChange"));
        QTRY_VERIFY_WITH_TIMEOUT(accept->isEnabled(), 5000);
        QTest::mouseClick(accept, Qt::LeftButton);
        QTRY_COMPARE_WITH_TIMEOUT(decision(), QStringLiteral("allow"), 10000);
        QTRY_VERIFY(!banner->isVisible());
    }

private:
    // A console with its window over config, and a token for it.
    static Result<std::unique_ptr<Console>> start(const QTemporaryDir &dir, const json &config,
                                                  CommandLine &cl, QString &token)
    {
        QFile configFile(dir.filePath(QStringLiteral("config.json")));
        if (!configFile.open(QIODevice::WriteOnly))
            return failure(configFile.errorString());
        configFile.write(QByteArray::fromStdString(config.dump()));
        configFile.close();
        cl.mode = CommandLine::Mode::Window;
        cl.configPath = configFile.fileName();
        cl.dataDir = dir.filePath(QStringLiteral("data"));
        cl.listen = QStringLiteral("127.0.0.1:0");
        QDir().mkpath(cl.dataDir);
        {
            auto db = Database::open(QDir(cl.dataDir).filePath(QStringLiteral("countersign.db")));
            if (!db)
                return failure(db.error());
            SystemClock clock;
            TokenStore tokens(*db.value(), clock);
            auto added = tokens.add(QStringLiteral("e2e"), QStringLiteral("tester"));
            if (!added)
                return failure(added.error());
            token = added.value();
        }
        return Console::start(cl);
    }
};

QTEST_MAIN(EndToEndTest)
#include "e2e_test.moc"
