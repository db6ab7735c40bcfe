// The real countersign binary, run as a user would: token commands, configuration errors,
// --headless over real loopback HTTP, --stdio and its token, and receipt verify on a real result.
#include <nlohmann/json.hpp>

#include "config.h"
#include "jsoncompare.h"
#include <QCryptographicHash>
#include <QDir>
#include <QElapsedTimer>
#include <QFile>
#include <QFileInfo>
#include <QLocalSocket>
#include <QProcess>
#include <QProcessEnvironment>
#include <QRegularExpression>
#include <QTcpSocket>
#include <QTemporaryDir>

#include <QTest>

#include <csignal>

#include <signal.h>
#include <unistd.h>

using json = nlohmann::json;

namespace {

struct Run
{
    int exitCode = -1;
    QByteArray out;
    QByteArray err;
};

Run run(const QStringList &args, const QByteArray &input = {},
        const QProcessEnvironment &env = QProcessEnvironment::systemEnvironment())
{
    QProcess p;
    p.setProcessEnvironment(env);
    p.start(QStringLiteral(COUNTERSIGN_BINARY), args);
    p.write(input);
    p.closeWriteChannel();
    if (!p.waitForFinished(20000))
        p.kill();
    return Run{p.exitCode(), p.readAllStandardOutput(), p.readAllStandardError()};
}

// The environment an IDE gives `countersign --stdio`: its connection's token in COUNTERSIGN_TOKEN.
QProcessEnvironment withToken(const QByteArray &token)
{
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    env.insert(QStringLiteral("COUNTERSIGN_TOKEN"), QString::fromLatin1(token));
    return env;
}

const char *kEnvelope =
    R"("_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}})";

json envelope()
{
    return {{"io.modelcontextprotocol/protocolVersion", "2026-07-28"},
            {"io.modelcontextprotocol/clientCapabilities", {{"elicitation", {{"form", json::object()}}}}}};
}

QByteArray toolCall(int id, const char *tool, const json &arguments, const json &more = json::object())
{
    json params = {{"name", tool}, {"arguments", arguments}, {"_meta", envelope()}};
    params.update(more);
    return QByteArray::fromStdString(
               json{{"jsonrpc", "2.0"}, {"id", id}, {"method", "tools/call"}, {"params", params}}.dump()) +
           '\n';
}

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
    int m_test = 0;
    QString m_dataDir;
    // Each test (and each row) has a data folder of its own, so each stdio test has its console.
    QString dataDir() const { return m_dataDir; }
    // A new connection in the data folder; its token.
    QByteArray addToken(const QString &name) const
    {
        const Run added = run(
            {QStringLiteral("token"), QStringLiteral("add"), name, QStringLiteral("--data-dir"), dataDir()});
        return added.exitCode == 0 ? added.out.trimmed() : QByteArray();
    }
    QStringList stdioArgs(const QString &config = QStringLiteral("none.json")) const
    {
        return {QStringLiteral("--stdio"),    QStringLiteral("--data-dir"), dataDir(),
                QStringLiteral("--config"),   m_dir.filePath(config),       QStringLiteral("--listen"),
                QStringLiteral("127.0.0.1:0")};
    }
    // The pid of the console that holds the data folder (its lock file's first line); 0 when none.
    qint64 consolePid() const
    {
        QFile lock(QDir(dataDir()).filePath(QStringLiteral("console.lock")));
        if (!lock.open(QIODevice::ReadOnly))
            return 0;
        const qint64 pid = lock.readLine().trimmed().toLongLong();
        return pid > 0 && ::kill(pid_t(pid), 0) == 0 ? pid : 0;
    }
    void writeFile(const QString &name, const QByteArray &text) const
    {
        QFile f(m_dir.filePath(name));
        QVERIFY(f.open(QIODevice::WriteOnly | QIODevice::Truncate));
        QCOMPARE(f.write(text), text.size());
    }

private Q_SLOTS:
    void init() { m_dataDir = m_dir.filePath(QStringLiteral("data-%1").arg(++m_test)); }
    // A console a stdio bridge started outlives the bridge, as it does for a user: stopped here.
    void cleanup()
    {
        if (const qint64 pid = consolePid()) {
            ::kill(pid_t(pid), SIGTERM);
            QTRY_VERIFY_WITH_TIMEOUT(::kill(pid_t(pid), 0) != 0, 10000);
        }
    }
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
    // Issue 39: started where no display can be opened, it says why and how to go on, and exits 3
    // (Qt alone aborted with "Reinstalling the application may fix this problem", exit 134).
    void noDisplay_isExplained_withAClearStatus_data()
    {
        QTest::addColumn<QString>("display");
        QTest::newRow("unset") << QString();
        QTest::newRow("unreachable") << QStringLiteral(":97");
    }
    void noDisplay_isExplained_withAClearStatus()
    {
        QFETCH(QString, display);
        QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
        env.remove(QStringLiteral("QT_QPA_PLATFORM"));
        env.remove(QStringLiteral("WAYLAND_DISPLAY"));
        env.remove(QStringLiteral("DISPLAY"));
        if (!display.isEmpty())
            env.insert(QStringLiteral("DISPLAY"), display);
        const Run r = run({QStringLiteral("--data-dir"), m_dir.path()}, {}, env);
        QCOMPARE(r.exitCode, 3);
        QVERIFY2(r.err.contains("no display to show the window on"), r.err.constData());
        QVERIFY2(r.err.contains("countersign --headless"), r.err.constData());
        QVERIFY2(!r.err.contains("Reinstalling"), r.err.constData());
        if (!display.isEmpty())
            QVERIFY2(r.err.contains("DISPLAY=:97"), r.err.constData());
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
        // Owned by the person at this console: no "person" is configured, so the OS account.
        QVERIFY2(list.out.contains("owner " + Countersign::Config::osLogin().toUtf8()), list.out.constData());
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

        // One console per data folder: a second start asks the first to show itself and exits.
        const QStringList again = {QStringLiteral("--headless"),
                                   QStringLiteral("--listen"),
                                   QStringLiteral("127.0.0.1:0"),
                                   QStringLiteral("--data-dir"),
                                   dataDir(),
                                   QStringLiteral("--config"),
                                   m_dir.filePath(QStringLiteral("none.json"))};
        const Run second = run(again);
        QCOMPARE(second.exitCode, 0);
        QVERIFY2(second.err.contains("is already running (pid " + QByteArray::number(server.processId()) +
                                     "); it was asked to show its window"),
                 second.err.constData());
        QVERIFY(!second.err.contains("listening on"));
        QVERIFY(post("Authorization: Bearer " + token + "\r\n")
                    .startsWith("HTTP/1.1 200")); // the first serves on

        // A console killed outright leaves its lock and socket behind: the next start takes them over.
        server.kill();
        QVERIFY(server.waitForFinished(5000));
        QProcess next;
        next.start(QStringLiteral(COUNTERSIGN_BINARY), again);
        QVERIFY(next.waitForStarted());
        QByteArray nextErr;
        QTRY_VERIFY_WITH_TIMEOUT(
            (nextErr += next.readAllStandardError()).contains("countersign: listening on"), 10000);
        next.terminate();
        QVERIFY(next.waitForFinished(5000));
    }
    void stdio_answersLineByLine_andExitsOnEof()
    {
        const QByteArray token = addToken(QStringLiteral("stdio"));
        QVERIFY(!token.isEmpty());
        QProcess p;
        p.setProcessEnvironment(withToken(token));
        p.start(QStringLiteral(COUNTERSIGN_BINARY), stdioArgs());
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
    // No console runs: the bridge starts one (headless here: no display), which outlives it and
    // serves the next bridge; the connection is a 2025-era session once it initializes.
    void stdio_bridge_startsTheConsole_andServesBothEras()
    {
        const QByteArray token = addToken(QStringLiteral("bridge"));
        QVERIFY(!token.isEmpty());
        QVERIFY(consolePid() == 0);
        QProcessEnvironment env = withToken(token);
        env.remove(QStringLiteral("DISPLAY"));
        env.remove(QStringLiteral("WAYLAND_DISPLAY"));
        const QByteArray legacyList = R"({"jsonrpc":"2.0","id":"l","method":"tools/list"})";
        const QByteArray initialize =
            R"({"jsonrpc":"2.0","id":"i","method":"initialize","params":{"protocolVersion":"2025-11-25",)"
            R"("capabilities":{},"clientInfo":{"name":"ide","version":"1"}}})";
        const Run first = run(stdioArgs(),
                              legacyList + "\n" + initialize + "\n" +
                                  R"({"jsonrpc":"2.0","method":"notifications/initialized"})" + "\n" +
                                  legacyList + "\n" + rpc(7, "server/discover") + "\n",
                              env);
        QCOMPARE(first.exitCode, 0);
        const QList<QByteArray> lines = first.out.trimmed().split('\n');
        QCOMPARE(lines.size(), 4);
        const json before = json::parse(lines[0].toStdString()); // no session yet: both ways in named
        QCOMPARE_JSON(before.at("error").at("code"), json(-32022));
        QCOMPARE_JSON(before.at("error").at("data").at("supported"),
                      json::array({"2026-07-28", "2025-11-25", "2025-06-18"}));
        const json init = json::parse(lines[1].toStdString());
        QCOMPARE_JSON(init.at("result").at("protocolVersion"), json("2025-11-25"));
        QCOMPARE_JSON(init.at("result").at("serverInfo").at("name"), json("countersign"));
        const json listed = json::parse(lines[2].toStdString());
        QCOMPARE_JSON(listed.at("id"), json("l"));
        QVERIFY(!listed.at("result").contains("resultType")); // the 2025 shape
        QCOMPARE_JSON(listed.at("result").at("tools")[0].at("name"), json("countersign_status"));
        QCOMPARE_JSON(json::parse(lines[3].toStdString()).at("result").at("resultType"), json("complete"));

        const QRegularExpression started(QStringLiteral("started one \\(pid (\\d+), headless"));
        const auto m = started.match(QString::fromUtf8(first.err));
        QVERIFY2(m.hasMatch(), first.err.constData());
        QCOMPARE(consolePid(), m.captured(1).toLongLong()); // it holds the folder, and runs on
        QFile log(QDir(dataDir()).filePath(QStringLiteral("console.log")));
        QVERIFY(log.open(QIODevice::ReadOnly));
        QVERIFY(log.readAll().contains("listening on http://127.0.0.1:"));

        const Run second = run(stdioArgs(), rpc(1, "tools/list") + "\n", env);
        QCOMPARE(second.exitCode, 0);
        QVERIFY(second.out.contains("countersign_status"));
        QVERIFY2(!second.err.contains("started one"), second.err.constData());
        QCOMPARE(consolePid(), m.captured(1).toLongLong());
    }
    // stdin ends: the bridge waits only for what the console answers (requests by id, unreadable
    // lines with id null), never for a notification or the client's own responses, then exits 0.
    void stdio_bridge_exitsWhenEveryRequestIsAnswered_whateverTheIds()
    {
        const QByteArray token = addToken(QStringLiteral("ids"));
        QVERIFY(!token.isEmpty());
        QElapsedTimer took;
        took.start();
        const Run r = run(stdioArgs(),
                          QByteArray(R"({"jsonrpc":"2.0","id":{"a":1},"method":"tools/list"})") + "\n" +
                              R"({"jsonrpc":"2.0","id":1.5,"method":"tools/list"})" + "\n" +
                              R"({"jsonrpc":"2.0","id":"x","result":{}})" + "\n" +
                              R"({"jsonrpc":"2.0","method":"notifications/initialized"})" + "\n" + "[1,2]\n" +
                              rpc(9, "tools/list") + "\n",
                          withToken(token));
        QCOMPARE(r.exitCode, 0);
        QVERIFY2(took.elapsed() < 8000, "the bridge waited for answers that never come");
        QVERIFY(r.out.contains("\"id\":9"));
        QVERIFY(r.out.contains("countersign_status"));
    }
    // A $XDG_RUNTIME_DIR others can write to is not used for the socket (a listener there would
    // get the token): the console and the bridge meet in /tmp/countersign-<uid> instead.
    void stdio_bridge_openRuntimeFolder_isNotUsed()
    {
        QTemporaryDir open;
        QVERIFY(QFile::setPermissions(open.path(), QFileDevice::ReadOwner | QFileDevice::WriteOwner |
                                                       QFileDevice::ExeOwner | QFileDevice::ReadOther |
                                                       QFileDevice::WriteOther | QFileDevice::ExeOther));
        const QByteArray token = addToken(QStringLiteral("runtime"));
        QProcessEnvironment env = withToken(token);
        env.insert(QStringLiteral("XDG_RUNTIME_DIR"), open.path());
        const Run r = run(stdioArgs(), rpc(1, "tools/list") + "\n", env);
        QCOMPARE(r.exitCode, 0);
        QVERIFY(r.out.contains("countersign_status"));
        QVERIFY2(QDir(open.path()).entryList(QDir::System | QDir::Files | QDir::NoDotAndDotDot).isEmpty(),
                 "a socket was made in the open folder");
    }
    // The console the bridge would start cannot (here: a broken configuration, read before the
    // token is looked up): the bridge says why at once, starts nothing and never waits out its 10 s.
    void stdio_bridge_consoleThatCannotStart_isExplained()
    {
        writeFile(QStringLiteral("broken.json"), "{\"ttlSeconds\": \"soon\"}");
        const QByteArray token = addToken(QStringLiteral("broken"));
        QVERIFY(!token.isEmpty());
        QElapsedTimer took;
        took.start();
        const Run r =
            run(stdioArgs(QStringLiteral("broken.json")), rpc(1, "tools/list") + "\n", withToken(token));
        QCOMPARE(r.exitCode, 1);
        QVERIFY(r.out.isEmpty());
        QVERIFY2(r.err.contains("no console was started: ") && r.err.contains("ttlSeconds"),
                 r.err.constData());
        QVERIFY2(took.elapsed() < 8000, "it waited out the start instead of noticing the exit");
    }
    // The console's socket, as a hostile local process would use it: only its user may open it;
    // a hello without a valid token is refused; an oversized line is refused whole and the
    // connection serves on.
    void stdio_bridgeSocket_refusesBadHellos_andOversizedLines()
    {
        const QByteArray token = addToken(QStringLiteral("raw"));
        QVERIFY(!token.isEmpty());
        QCOMPARE(run(stdioArgs(), rpc(1, "tools/list") + "\n", withToken(token)).exitCode, 0); // starts it
        // $XDG_RUNTIME_DIR when it is this user's and closed to others, else /tmp/countersign-<uid>.
        const QString runtime = qEnvironmentVariable("XDG_RUNTIME_DIR");
        const QFileInfo runtimeInfo(runtime);
        const bool runtimePrivate =
            !runtime.isEmpty() && runtimeInfo.isDir() && runtimeInfo.ownerId() == ::getuid() &&
            !(runtimeInfo.permissions() & (QFile::ReadGroup | QFile::WriteGroup | QFile::ExeGroup |
                                           QFile::ReadOther | QFile::WriteOther | QFile::ExeOther));
        const QString folder =
            runtimePrivate ? runtime : QStringLiteral("/tmp/countersign-%1").arg(::getuid());
        const QString id = QString::fromLatin1(
            QCryptographicHash::hash(QDir(dataDir()).absolutePath().toUtf8(), QCryptographicHash::Sha256)
                .toHex()
                .left(16));
        const QString path = QDir(folder).filePath(QStringLiteral("countersign-%1-mcp.sock").arg(id));
        QVERIFY2(QFileInfo::exists(path), qPrintable(path));
        const QFile::Permissions perms = QFileInfo(path).permissions();
        QVERIFY(!(perms & (QFile::ReadGroup | QFile::WriteGroup | QFile::ReadOther | QFile::WriteOther)));

        const auto hello = [&](const QByteArray &line, QLocalSocket &s) {
            s.connectToServer(path);
            if (!s.waitForConnected(2000))
                return json();
            s.write(line + "\n");
            while (!s.canReadLine() && s.waitForReadyRead(3000)) {
            }
            return json::parse(s.readLine().toStdString(), nullptr, false);
        };
        const auto line = [](const json &j) { return QByteArray::fromStdString(j.dump()); };
        const std::string tokenText = token.toStdString();
        for (const QByteArray &bad : {QByteArray("not json"), line({{"countersign", "bridge/1"}}),
                                      line({{"countersign", "bridge/9"}, {"token", tokenText}}),
                                      line({{"countersign", "bridge/1"}, {"token", "cs_wrong"}}),
                                      line({{"countersign", "bridge/1"}, {"token", 42}})}) {
            QLocalSocket s;
            const json answer = hello(bad, s);
            QVERIFY2(answer.is_object() && answer.value("ok", true) == false, bad.constData());
            QVERIFY(answer.at("error").is_string());
            QTRY_VERIFY_WITH_TIMEOUT(s.state() == QLocalSocket::UnconnectedState, 5000);
        }
        {
            QLocalSocket endless; // a hello with no end: cut once it is longer than any hello
            endless.connectToServer(path);
            QVERIFY(endless.waitForConnected(2000));
            endless.write(QByteArray(8 * 1024, 'h'));
            QTRY_VERIFY_WITH_TIMEOUT(endless.state() == QLocalSocket::UnconnectedState, 5000);
        }
        QLocalSocket s;
        const json ok = hello(line({{"countersign", "bridge/1"}, {"token", tokenText}}), s);
        QCOMPARE_JSON(ok, json({{"ok", true}, {"connection", "raw"}}));
        s.write(QByteArray(2 * 1024 * 1024, 'x') + "\n" + rpc(2, "tools/list") + "\n");
        QByteArray got;
        QTRY_VERIFY_WITH_TIMEOUT((got += s.readAll()).count('\n') >= 2, 10000);
        const QList<QByteArray> lines = got.trimmed().split('\n');
        QCOMPARE_JSON(json::parse(lines[0].toStdString()).at("error").at("code"), json(-32600));
        QCOMPARE_JSON(json::parse(lines[1].toStdString()).at("id"), json(2));
    }
    // A client that writes without reading the answers: once 16 MiB read from its stdin are not
    // yet on their way to the console, the bridge stops reading, so its memory stops there and the
    // client's writes wait in its pipe. The bridge's stdout goes to a pipe nobody reads.
    void stdio_bridge_clientThatDoesNotRead_getsBackpressure_notAGrowingBridge()
    {
        const QByteArray token = addToken(QStringLiteral("flood"));
        QVERIFY(!token.isEmpty());
        QProcess p;
        p.setProcessEnvironment(withToken(token));
        QStringList args{QStringLiteral("-c"), QStringLiteral("\"$0\" \"$@\" | sleep 10"),
                         QStringLiteral(COUNTERSIGN_BINARY)};
        args += stdioArgs();
        p.start(QStringLiteral("/bin/sh"), args);
        QVERIFY(p.waitForStarted());
        QByteArray lines;
        for (int id = 1; lines.size() < 48 * 1024 * 1024; ++id)
            lines += rpc(id, "tools/list") + '\n';
        p.write(lines);
        QTest::qWait(5000); // without the backpressure the bridge took 24.5 MiB in 4 s, and went on

        const qint64 accepted = lines.size() - p.bytesToWrite();
        qInfo("the bridge took %.1f MiB of 48 MiB", double(accepted) / (1024 * 1024));
        QVERIFY2(accepted < 20 * 1024 * 1024, qPrintable(QString::number(accepted)));
        p.kill();
        QVERIFY(p.waitForFinished(15000));
    }
    void stdio_withoutToken_isRefused()
    {
        QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
        env.remove(QStringLiteral("COUNTERSIGN_TOKEN"));
        const Run r = run(stdioArgs(), rpc(1, "tools/list") + "\n", env);
        QCOMPARE(r.exitCode, 1);
        QVERIFY(r.out.isEmpty());
        QVERIFY2(r.err.contains("COUNTERSIGN_TOKEN") && r.err.contains("countersign token add NAME"),
                 r.err.constData());
    }
    void stdio_unknownOrRevokedToken_isRefused_andNeverEchoed_data()
    {
        QTest::addColumn<bool>("revoked");
        QTest::newRow("unknown") << false;
        QTest::newRow("revoked") << true;
    }
    void stdio_unknownOrRevokedToken_isRefused_andNeverEchoed()
    {
        QFETCH(bool, revoked);
        QByteArray token = "cs_not-a-token-of-this-installation-0123456789abcdef";
        if (revoked) {
            token = addToken(QStringLiteral("gone"));
            QVERIFY(!token.isEmpty());
            QCOMPARE(run({QStringLiteral("token"), QStringLiteral("revoke"), QStringLiteral("gone"),
                          QStringLiteral("--data-dir"), dataDir()})
                         .exitCode,
                     0);
        }
        const Run r = run(stdioArgs(), rpc(1, "tools/list") + "\n", withToken(token));
        QCOMPARE(r.exitCode, 1);
        QVERIFY(r.out.isEmpty());
        QVERIFY2(r.err.contains("COUNTERSIGN_TOKEN") && r.err.contains("unknown or revoked"),
                 r.err.constData());
        QVERIFY2(!r.err.contains(token), "the token must never be echoed");
    }
    void stdio_tokenRevokedWhileRunning_refusesTheNextRequest_andExits()
    {
        const QByteArray token = addToken(QStringLiteral("live"));
        QVERIFY(!token.isEmpty());
        QProcess p;
        p.setProcessEnvironment(withToken(token));
        p.start(QStringLiteral(COUNTERSIGN_BINARY), stdioArgs());
        QVERIFY(p.waitForStarted());
        p.write(rpc(1, "tools/list") + "\n");
        QByteArray out;
        QTRY_VERIFY_WITH_TIMEOUT((out += p.readAllStandardOutput()).endsWith('\n'), 10000);
        QCOMPARE_JSON(json::parse(out.toStdString()).at("id"), json(1));
        QVERIFY(out.contains("countersign_status"));

        QCOMPARE(run({QStringLiteral("token"), QStringLiteral("revoke"), QStringLiteral("live"),
                      QStringLiteral("--data-dir"), dataDir()})
                     .exitCode,
                 0);
        // stdin stays open: the server stops on its own, as an IDE that spawned it would see.
        p.write(rpc(2, "tools/list") + "\n");
        QVERIFY(p.waitForFinished(10000));
        QCOMPARE(p.exitStatus(), QProcess::NormalExit);
        QCOMPARE(p.exitCode(), 1);
        const json refused = json::parse(p.readAllStandardOutput().trimmed().toStdString());
        QCOMPARE_JSON(refused.at("id"), json(2));
        QCOMPARE_JSON(refused.at("error").at("code"), json(-32000));
        QVERIFY(refused.at("error").at("message").get<std::string>().find("revoked") != std::string::npos);
        QVERIFY(!refused.contains("result"));
        const QByteArray err = p.readAllStandardError();
        QVERIFY2(err.contains("the connection \"live\" has been revoked"), err.constData());
        QVERIFY2(!err.contains(token), "the token must never be echoed");
    }
    void stdio_commandsDoNotInheritTheToken()
    {
        writeFile(
            QStringLiteral("env.json"),
            R"({"keyStore": "file", "actions": [{"name": "show_env", "plan": ["true"], "apply": ["env"]}],
                      "rules": [{"tool": "show_env", "decision": "allow"}]})");
        const QByteArray token = addToken(QStringLiteral("env"));
        QVERIFY(!token.isEmpty());
        const Run r = run(stdioArgs(QStringLiteral("env.json")), toolCall(1, "show_env", json::object()),
                          withToken(token));
        QCOMPARE(r.exitCode, 0);
        const json result = json::parse(r.out.toStdString()).at("result");
        const std::string text = result.at("content")[0].at("text").get<std::string>();
        QVERIFY2(text.find("PATH=") != std::string::npos, text.c_str()); // the command's environment
        QVERIFY2(text.find("COUNTERSIGN_TOKEN") == std::string::npos, "the token reached a command");
        QVERIFY(text.find(token.toStdString()) == std::string::npos);
    }
    // A real approved result, from the real binary over stdio (a client-mode action approved by its
    // typed confirmation), then receipt verify on it, an edited copy and the receipt alone.
    void receiptVerify_checksTheWholeResultAgainstItsResultDigest()
    {
        writeFile(QStringLiteral("gated.json"),
                  R"({"keyStore": "file", "approval": {"low": "client"},
                      "actions": [{"name": "echo_it", "risk": "low",
                                   "inputSchema": {"type": "object", "properties": {"service": {"type": "string"}},
                                                   "required": ["service"]},
                                   "plan": ["echo", "would echo"], "apply": ["echo", "{service}"]}]})");
        const QByteArray token = addToken(QStringLiteral("signed"));
        QVERIFY(!token.isEmpty());
        QProcess p;
        p.setProcessEnvironment(withToken(token));
        p.start(QStringLiteral(COUNTERSIGN_BINARY), stdioArgs(QStringLiteral("gated.json")));
        QVERIFY(p.waitForStarted());
        QByteArray out;
        const auto answer = [&](const QByteArray &request) {
            out.clear();
            p.write(request);
            QTRY_VERIFY_WITH_TIMEOUT((out += p.readAllStandardOutput()).endsWith('\n'), 10000);
        };
        const json arguments = {{"service", "web-1"}};
        answer(toolCall(1, "echo_it", arguments));
        const json first = json::parse(out.toStdString()).at("result");
        QCOMPARE_JSON(first.at("resultType"), json("input_required"));
        answer(toolCall(2, "echo_it", arguments,
                        {{"requestState", first.at("requestState")},
                         {"inputResponses",
                          {{"confirm", {{"action", "accept"}, {"content", {{"confirm", "web-1"}}}}}}}}));
        const json result = json::parse(out.toStdString()).at("result");
        p.closeWriteChannel();
        QVERIFY(p.waitForFinished(10000));
        QVERIFY2(result.at("_meta").contains("dev.countersign/receipt"), result.dump().c_str());
        const std::string text = result.at("content")[0].at("text").get<std::string>();
        QVERIFY2(text.find("web-1") != std::string::npos, text.c_str());

        const auto verify = [&](const QString &name, const json &doc) {
            writeFile(name, QByteArray::fromStdString(doc.dump()));
            return run({QStringLiteral("receipt"), QStringLiteral("verify"), m_dir.filePath(name),
                        QStringLiteral("--data-dir"), dataDir()});
        };
        const Run whole = verify(QStringLiteral("result.json"), result);
        QCOMPARE(whole.exitCode, 0);
        QVERIFY2(whole.out.startsWith("receipt valid: echo_it (succeeded) for connection signed"),
                 whole.out.constData());
        QVERIFY2(whole.out.contains("the result matches its resultDigest"), whole.out.constData());

        json edited = result;
        std::string changed = text;
        changed[changed.find("web-1") + 4] = '2'; // one character of what the tool printed
        edited["content"][0]["text"] = changed;
        const Run tampered = verify(QStringLiteral("edited.json"), edited);
        QCOMPARE(tampered.exitCode, 1);
        QVERIFY2(
            tampered.out.startsWith("receipt INVALID: the result differs from the one the receipt signed "
                                    "(resultDigest"),
            tampered.out.constData());

        const Run alone =
            verify(QStringLiteral("receipt.json"), result.at("_meta").at("dev.countersign/receipt"));
        QCOMPARE(alone.exitCode, 0);
        QVERIFY2(alone.out.startsWith("receipt valid:") &&
                     alone.out.contains("(the result itself was not given, so it was not checked)"),
                 alone.out.constData());

        json forged = result;
        forged["_meta"]["dev.countersign/receipt"]["approver"] = "console:mallory";
        const Run badSignature = verify(QStringLiteral("forged.json"), forged);
        QCOMPARE(badSignature.exitCode, 1);
        QVERIFY2(badSignature.out.startsWith("receipt INVALID: the signature does not match"),
                 badSignature.out.constData());
    }
    void receiptVerify_unusableInput_exits2_data()
    {
        QTest::addColumn<QString>("file");
        QTest::addColumn<QByteArray>("content");
        QTest::newRow("missing") << QStringLiteral("missing.json") << QByteArray();
        QTest::newRow("not JSON") << QStringLiteral("notjson.json") << QByteArray("{receipt");
        QTest::newRow("not an object") << QStringLiteral("array.json") << QByteArray("[1, 2]");
    }
    void receiptVerify_unusableInput_exits2()
    {
        QFETCH(QString, file);
        QFETCH(QByteArray, content);
        if (!content.isEmpty())
            writeFile(file, content);
        const Run r =
            run({QStringLiteral("receipt"), QStringLiteral("verify"), m_dir.filePath(file),
                 QStringLiteral("--public-key"), QString::fromLatin1(QByteArray(32, 'k').toBase64())});
        QCOMPARE(r.exitCode, 2);
        QVERIFY(r.err.startsWith("countersign: "));
    }
    void configReload_narrowingFollowsTheFile_wideningIsHeld_badEditIsRefused()
    {
        const QString path = m_dir.filePath(QStringLiteral("reload.json"));
        const auto writeConfig = [&](const QByteArray &text) {
            QFile f(path);
            QVERIFY(f.open(QIODevice::WriteOnly | QIODevice::Truncate));
            f.write(text);
        };
        const auto actions = [](std::initializer_list<const char *> names) {
            QByteArrayList list;
            for (const char *name : names)
                list.append(QByteArray("{\"name\": \"") + name +
                            "\", \"plan\": [\"true\"], \"apply\": [\"true\"]}");
            return "{\"keyStore\": \"file\", \"actions\": [" + list.join(", ") + "]}";
        };
        writeConfig(actions({"act_a", "act_b"}));
        const QByteArray token = addToken(QStringLiteral("reload"));
        QVERIFY(!token.isEmpty());
        // The headless console (its stderr read here) and a stdio bridge for each listing.
        QProcess p;
        p.start(QStringLiteral(COUNTERSIGN_BINARY),
                {QStringLiteral("--headless"), QStringLiteral("--listen"), QStringLiteral("127.0.0.1:0"),
                 QStringLiteral("--data-dir"), dataDir(), QStringLiteral("--config"), path});
        QVERIFY(p.waitForStarted());
        QByteArray err;
        QTRY_VERIFY_WITH_TIMEOUT((err += p.readAllStandardError()).contains("listening on"), 10000);
        QByteArray out;
        int id = 10;
        // Asks for tools/list and keeps the answer.
        const auto list = [&] {
            const Run r = run({QStringLiteral("--stdio"), QStringLiteral("--data-dir"), dataDir()},
                              rpc(++id, "tools/list") + "\n", withToken(token));
            out = r.out;
            return r.exitCode == 0;
        };
        const auto listed = [&](const char *name) {
            return list() && out.contains(QByteArray("\"name\":\"") + name + "\"");
        };
        QVERIFY(listed("act_a"));
        QTest::qWait(300);
        // Narrowing (an action removed) applies at once.
        writeConfig(actions({"act_b"}));
        QTRY_VERIFY_WITH_TIMEOUT(list() && !out.contains("act_a"), 10000);
        QVERIFY(out.contains("\"name\":\"act_b\""));
        QTRY_VERIFY_WITH_TIMEOUT((err += p.readAllStandardError()).contains("configuration reloaded"), 10000);
        // Widening (a new action) waits for the next start: no window to accept it in.
        writeConfig(actions({"act_b", "act_c"}));
        QTRY_VERIFY_WITH_TIMEOUT(
            (err += p.readAllStandardError()).contains("widens what runs without a human"), 10000);
        QVERIFY2(err.contains("reload.json widens what runs without a human (action act_c: none → plan "
                              "[\"true\"], apply [\"true\"], risk high); with no window to accept it in, it "
                              "is held, and the configuration accepted last stays in force until it is "
                              "accepted in Countersign's window\n"),
                 err.constData());
        QVERIFY(listed("act_b"));
        QVERIFY(!out.contains("act_c"));
        writeConfig("{\n  \"actions\": [{\"name\": \"act_d\"}]\n}");
        QTRY_VERIFY_WITH_TIMEOUT((err += p.readAllStandardError()).contains("configuration refused"), 10000);
        QVERIFY2(
            err.contains(
                "reload.json:2: actions[0].apply: is required; the previous configuration stays in force"),
            err.constData());
        QVERIFY(listed("act_b"));
        p.terminate();
        QVERIFY(p.waitForFinished(10000));
    }
};

QTEST_GUILESS_MAIN(CliTest)
#include "cli_test.moc"
