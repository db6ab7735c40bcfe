// The real countersign binary, run as a user would: token commands, configuration errors,
// --headless over real loopback HTTP, and --stdio.
#include <nlohmann/json.hpp>

#include "jsoncompare.h"
#include <QFile>
#include <QProcess>
#include <QRegularExpression>
#include <QTcpSocket>
#include <QTemporaryDir>

#include <QTest>

using json = nlohmann::json;

namespace {

struct Run
{
    int exitCode = -1;
    QByteArray out;
    QByteArray err;
};

Run run(const QStringList &args)
{
    QProcess p;
    p.start(QStringLiteral(COUNTERSIGN_BINARY), args);
    p.closeWriteChannel();
    if (!p.waitForFinished(20000))
        p.kill();
    return Run{p.exitCode(), p.readAllStandardOutput(), p.readAllStandardError()};
}

const char *kEnvelope =
    R"("_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}})";

QByteArray rpc(int id, const char *method)
{
    return QStringLiteral(R"({"jsonrpc":"2.0","id":%1,"method":"%2","params":{%3}})")
        .arg(id)
        .arg(QLatin1String(method), QLatin1String(kEnvelope))
        .toUtf8();
}

} // namespace

class CliTest : public QObject
{
    Q_OBJECT
private:
    QTemporaryDir m_dir;
    QString dataDir() const { return m_dir.filePath(QStringLiteral("data")); }

private Q_SLOTS:
    void version_isPrinted()
    {
        const Run r = run({QStringLiteral("--version")});
        QCOMPARE(r.exitCode, 0);
        QVERIFY(r.out.contains(COUNTERSIGN_VERSION));
    }
    void help_listsOptionsAndCommands()
    {
        const Run r = run({QStringLiteral("--help")});
        QCOMPARE(r.exitCode, 0);
        for (const char *word : {"--config", "--data-dir", "--listen", "--headless", "--stdio", "token add"})
            QVERIFY2(r.out.contains(word), word);
    }
    void token_addListRevoke()
    {
        const Run added = run({QStringLiteral("token"), QStringLiteral("add"), QStringLiteral("vscode"),
                               QStringLiteral("--data-dir"), dataDir()});
        QCOMPARE(added.exitCode, 0);
        QVERIFY(QRegularExpression(QStringLiteral("^cs_[A-Za-z0-9_-]{40,}\n$"))
                    .match(QString::fromLatin1(added.out))
                    .hasMatch());
        const Run again = run({QStringLiteral("token"), QStringLiteral("add"), QStringLiteral("vscode"),
                               QStringLiteral("--data-dir"), dataDir()});
        QCOMPARE(again.exitCode, 1);
        QVERIFY(again.err.contains("already exists"));
        const Run list =
            run({QStringLiteral("token"), QStringLiteral("list"), QStringLiteral("--data-dir"), dataDir()});
        QCOMPARE(list.exitCode, 0);
        QVERIFY(list.out.contains("vscode"));
        QVERIFY(list.out.contains("active"));
        QVERIFY2(!list.out.contains(added.out.trimmed()), "list must never print a token");
        const Run revoked = run({QStringLiteral("token"), QStringLiteral("revoke"), QStringLiteral("vscode"),
                                 QStringLiteral("--data-dir"), dataDir()});
        QCOMPARE(revoked.exitCode, 0);
        const Run twice = run({QStringLiteral("token"), QStringLiteral("revoke"), QStringLiteral("vscode"),
                               QStringLiteral("--data-dir"), dataDir()});
        QCOMPARE(twice.exitCode, 1);
    }
    void token_badUsage_exits2()
    {
        QCOMPARE(run({QStringLiteral("token"), QStringLiteral("add")}).exitCode, 2);
        QCOMPARE(run({QStringLiteral("frobnicate")}).exitCode, 2);
    }
    void badConfig_isRefusedWithFileAndLine()
    {
        const QString path = m_dir.filePath(QStringLiteral("bad.json"));
        QFile f(path);
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write("{\n  \"ttlSeconds\": -4\n}\n");
        f.close();
        const Run r = run({QStringLiteral("--headless"), QStringLiteral("--config"), path,
                           QStringLiteral("--data-dir"), dataDir()});
        QCOMPARE(r.exitCode, 1);
        QVERIFY2(r.err.contains((path + QStringLiteral(":2: ttlSeconds")).toUtf8()), r.err.constData());
    }
    void listen_nonLoopback_isRefused()
    {
        const Run r = run({QStringLiteral("--headless"), QStringLiteral("--listen"),
                           QStringLiteral("0.0.0.0:7331"), QStringLiteral("--data-dir"), dataDir()});
        QCOMPARE(r.exitCode, 1);
        QVERIFY(r.err.contains("loopback"));
    }
    void headless_printsListenLine_andServesAuthenticatedClients()
    {
        const Run added = run({QStringLiteral("token"), QStringLiteral("add"), QStringLiteral("http"),
                               QStringLiteral("--data-dir"), dataDir()});
        QCOMPARE(added.exitCode, 0);
        const QByteArray token = added.out.trimmed();

        QProcess server;
        server.start(QStringLiteral(COUNTERSIGN_BINARY),
                     {QStringLiteral("--headless"), QStringLiteral("--listen"), QStringLiteral("127.0.0.1:0"),
                      QStringLiteral("--data-dir"), dataDir(), QStringLiteral("--config"),
                      m_dir.filePath(QStringLiteral("none.json"))});
        QVERIFY(server.waitForStarted());
        QByteArray err;
        const QRegularExpression line(
            QStringLiteral("countersign: listening on http://127\\.0\\.0\\.1:(\\d+)/mcp\n"));
        QRegularExpressionMatch m;
        QTRY_VERIFY_WITH_TIMEOUT(
            (err += server.readAllStandardError(), m = line.match(QString::fromUtf8(err))).hasMatch(), 10000);
        const quint16 port = m.captured(1).toUShort();

        auto post = [&](const QByteArray &auth) {
            QTcpSocket s;
            s.connectToHost(QStringLiteral("127.0.0.1"), port);
            if (!s.waitForConnected(2000))
                return QByteArray();
            const QByteArray body = rpc(1, "server/discover");
            s.write(
                "POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
                "MCP-Protocol-Version: 2026-07-28\r\nMcp-Method: server/discover\r\nConnection: close\r\n" +
                auth + "Content-Length: " + QByteArray::number(body.size()) + "\r\n\r\n" + body);
            QByteArray response;
            while (s.waitForReadyRead(3000))
                response += s.readAll();
            return response;
        };
        const QByteArray ok = post("Authorization: Bearer " + token + "\r\n");
        QVERIFY2(ok.startsWith("HTTP/1.1 200"), ok.constData());
        QVERIFY(ok.contains("\"supportedVersions\":[\"2026-07-28\"]"));
        QVERIFY(post({}).startsWith("HTTP/1.1 401"));
        QVERIFY(post("Authorization: Bearer cs_wrong\r\n").startsWith("HTTP/1.1 401"));

        server.terminate();
        QVERIFY(server.waitForFinished(5000));
    }
    void stdio_answersLineByLine_andExitsOnEof()
    {
        QProcess p;
        p.start(QStringLiteral(COUNTERSIGN_BINARY),
                {QStringLiteral("--stdio"), QStringLiteral("--data-dir"), dataDir(),
                 QStringLiteral("--config"), m_dir.filePath(QStringLiteral("none.json"))});
        QVERIFY(p.waitForStarted());
        p.write(rpc(1, "server/discover") + "\n");
        p.write(rpc(2, "tools/list") + "\n");
        p.write("{not json\n");
        p.write(R"({"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":1}})"
                "\n");
        p.write(rpc(3, "ping") + "\n");
        p.closeWriteChannel();
        QVERIFY(p.waitForFinished(10000));
        QCOMPARE(p.exitCode(), 0);
        const QList<QByteArray> lines = p.readAllStandardOutput().split('\n');
        QCOMPARE(lines.size(), 5); // four answers (no answer to the notification) and the final newline
        QVERIFY(lines.last().isEmpty());
        const json discover = json::parse(lines[0].toStdString());
        QCOMPARE_JSON(discover.at("id"), json(1));
        QCOMPARE_JSON(discover.at("result").at("resultType"), json("complete"));
        const json list = json::parse(lines[1].toStdString());
        QCOMPARE_JSON(list.at("result").at("tools")[0].at("name"), json("countersign_status"));
        QCOMPARE_JSON(json::parse(lines[2].toStdString()).at("error").at("code"), json(-32700));
        const json ping = json::parse(lines[3].toStdString());
        QCOMPARE_JSON(ping.at("id"), json(3));
        QCOMPARE_JSON(ping.at("error").at("code"), json(-32601));
    }
    void configReload_followsTheFile_andKeepsTheLastGoodOne()
    {
        const QString path = m_dir.filePath(QStringLiteral("reload.json"));
        const auto writeConfig = [&](const QByteArray &text) {
            QFile f(path);
            QVERIFY(f.open(QIODevice::WriteOnly | QIODevice::Truncate));
            f.write(text);
        };
        const auto action = [](const char *name) {
            return QByteArray("{\"keyStore\": \"file\", \"actions\": [{\"name\": \"") + name +
                   "\", \"plan\": [\"true\"], \"apply\": [\"true\"]}]}";
        };
        writeConfig(action("act_a"));
        QProcess p;
        p.start(QStringLiteral(COUNTERSIGN_BINARY), {QStringLiteral("--stdio"), QStringLiteral("--data-dir"),
                                                     dataDir(), QStringLiteral("--config"), path});
        QVERIFY(p.waitForStarted());
        QByteArray out;
        int id = 10;
        // Asks for tools/list until the answer names the tool (the reload is asynchronous).
        const auto listed = [&](const char *name) {
            p.write(rpc(++id, "tools/list") + "\n");
            if (!p.waitForReadyRead(3000))
                return false;
            QTest::qWait(50);
            out = p.readAllStandardOutput();
            return out.contains(QByteArray("\"name\":\"") + name + "\"");
        };
        QVERIFY(listed("act_a"));
        QTest::qWait(300);
        writeConfig(action("act_b"));
        QTRY_VERIFY_WITH_TIMEOUT(listed("act_b"), 10000);
        QVERIFY(!out.contains("act_a"));
        writeConfig("{\n  \"actions\": [{\"name\": \"act_c\"}]\n}");
        QByteArray err;
        QTRY_VERIFY_WITH_TIMEOUT((err += p.readAllStandardError()).contains("configuration refused"), 10000);
        QVERIFY2(
            err.contains(
                "reload.json:2: actions[0].apply: is required; the previous configuration stays in force"),
            err.constData());
        QVERIFY(listed("act_b"));
        p.closeWriteChannel();
        QVERIFY(p.waitForFinished(10000));
    }
};

QTEST_GUILESS_MAIN(CliTest)
#include "cli_test.moc"
