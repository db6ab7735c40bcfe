// The real binary's --stdio: served line by line, the bridge that starts a console outliving it for both eras
// over one connection, a console that cannot start explained at once, hostile hellos and oversized lines on
// its socket, backpressure, and its token (absent, unknown, revoked while running, never passed on to
// commands).
#include "clifixture.h"

#include <QElapsedTimer>
#include <QTest>

using namespace Countersign;

class CliStdioTest : public QObject, protected CliFixture
{
    Q_OBJECT

private Q_SLOTS:
    void init() { setUp(); }
    void cleanup() { tearDown(); }

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
        // Until the bridge, having taken its 16 MiB, takes no more for a whole second (the client's
        // writes wait in the pipe), or 15 s. Without the backpressure the bridge took 24.5 MiB in
        // 4 s, and went on. (It reads nothing until its console answers its hello: the lower bound
        // keeps a slow start from passing as backpressure.)
        constexpr qint64 kTaken = 12 * 1024 * 1024;
        QElapsedTimer deadline;
        deadline.start();
        QElapsedTimer still;
        still.start();
        qint64 accepted = 0;
        while (deadline.elapsed() < 15000 && (accepted < kTaken || still.elapsed() < 1000) &&
               accepted < lines.size()) {
            QTest::qWait(50);
            if (const qint64 now = lines.size() - p.bytesToWrite(); now != accepted) {
                accepted = now;
                still.restart();
            }
        }
        qInfo("the bridge took %.1f MiB of 48 MiB (still after %lld ms)", double(accepted) / (1024 * 1024),
              static_cast<long long>(deadline.elapsed()));
        QVERIFY2(accepted >= kTaken && accepted < 20 * 1024 * 1024, qPrintable(QString::number(accepted)));
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
};

QTEST_GUILESS_MAIN(CliStdioTest)
#include "clistdio_test.moc"
