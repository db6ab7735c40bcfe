// End to end: the real app (Console: server thread, queue, window) with its window on the
// offscreen platform; the official TypeScript client, as a separate process, calls a gated action
// whose apply command deletes a real directory; the test approves through the window's widgets;
// the client gets the result with a receipt that verifies.
#include "approvalqueue.h"
#include "commandline.h"
#include "console.h"
#include "database.h"
#include "mainwindow.h"
#include "receipt.h"
#include "systemclock.h"
#include "tokenstore.h"

#include <QDir>
#include <QElapsedTimer>
#include <QFile>
#include <QLineEdit>
#include <QListWidget>
#include <QProcess>
#include <QPushButton>
#include <QTemporaryDir>
#include <QTest>

using namespace Countersign;
using json = nlohmann::json;

class EndToEndTest : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void typescriptClient_isAnswered_afterApprovalInTheWindow()
    {
        QTemporaryDir dir;
        QVERIFY(QDir(dir.path()).mkpath(QStringLiteral("work/victim/sub")));
        QFile marker(dir.filePath(QStringLiteral("work/victim/sub/f.txt")));
        QVERIFY(marker.open(QIODevice::WriteOnly));
        marker.close();
        const json config = {
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
               {"risk", "high"}}}}};
        QFile configFile(dir.filePath(QStringLiteral("config.json")));
        QVERIFY(configFile.open(QIODevice::WriteOnly));
        configFile.write(QByteArray::fromStdString(config.dump()));
        configFile.close();

        CommandLine cl;
        cl.mode = CommandLine::Mode::Window;
        cl.configPath = configFile.fileName();
        cl.dataDir = dir.filePath(QStringLiteral("data"));
        cl.listen = QStringLiteral("127.0.0.1:0");
        QString token;
        {
            QVERIFY(QDir().mkpath(cl.dataDir));
            auto db = Database::open(QDir(cl.dataDir).filePath(QStringLiteral("countersign.db")));
            QVERIFY(db.ok());
            SystemClock clock;
            TokenStore tokens(*db.value(), clock);
            token = tokens.add(QStringLiteral("e2e")).value();
        }
        auto console = Console::start(cl);
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
        console.value().reset();
    }
};

QTEST_MAIN(EndToEndTest)
#include "e2e_test.moc"
