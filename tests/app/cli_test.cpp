// The real countersign binary, run as a user would: token commands, configuration errors,
// --headless over real loopback HTTP, --stdio and its token, and receipt verify on a real result.
#include "clifixture.h"

#include <QTest>

using namespace Countersign;

class CliTest : public QObject, protected CliFixture
{
    Q_OBJECT

private Q_SLOTS:
    void init() { setUp(); }
    void cleanup() { tearDown(); }

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
