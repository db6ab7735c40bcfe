#include "config.h"

#include <QFile>
#include <QTemporaryDir>
#include <QTest>

using namespace Countersign;

class ConfigTest : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void parse_fullFileWithComments_isRead()
    {
        const QByteArray text = R"({
            // the port
            "listen": "127.0.0.1:9000",
            /* approvals */
            "ttlSeconds": 60,
            "pollWindowSeconds": 5,
            "progressHoldSeconds": 90,
            "workspaceRoots": ["/tmp/a"]
        })";
        auto config = Config::parse(text, QStringLiteral("c.json"));
        QVERIFY2(config.ok(), qPrintable(config.ok() ? QString() : config.error()));
        QCOMPARE(config.value().listenPort(), quint16(9000));
        QCOMPARE(config.value().ttlSeconds(), 60);
        QCOMPARE(config.value().pollWindowSeconds(), 5);
        QCOMPARE(config.value().progressHoldSeconds(), 90);
        QCOMPARE(config.value().workspaceRoots(), QStringList{QStringLiteral("/tmp/a")});
    }
    void parse_upstreams_areRead()
    {
        const auto config = Config::parse(
            R"({"upstreams": [{"name": "fs", "command": ["node", "/opt/fs.js", "/srv"], "env": {"A": "1"},
                "cwd": "/srv", "timeoutSeconds": 5,
                "tools": {"edit_file": {"planWith": {"dryRun": true}, "targets": ["path"], "risk": "low"},
                          "read_file": {"decision": "deny"}}},
               {"name": "paas", "prefix": "cloud_", "url": "http://127.0.0.1:9000/mcp", "headers": {"Authorization": "Bearer x"}}]})",
            QStringLiteral("c.json"));
        QVERIFY2(config.ok(), config.ok() ? "" : qPrintable(config.error()));
        const QList<UpstreamSpec> &ups = config.value().upstreams();
        QCOMPARE(ups.size(), 2);
        QCOMPARE(ups[0].prefix, QStringLiteral("fs_"));
        QCOMPARE(ups[0].command,
                 (QStringList{QStringLiteral("node"), QStringLiteral("/opt/fs.js"), QStringLiteral("/srv")}));
        QCOMPARE(ups[0].env.value(QStringLiteral("A")), QStringLiteral("1"));
        QCOMPARE(ups[0].timeoutSeconds, 5);
        const UpstreamToolSettings edit = ups[0].settingsOf(QStringLiteral("edit_file"));
        QVERIFY(edit.planWith == nlohmann::json({{"dryRun", true}}));
        QCOMPARE(edit.targets, QStringList{QStringLiteral("path")});
        QVERIFY(edit.risk == Risk::Low);
        QVERIFY(ups[0].settingsOf(QStringLiteral("read_file")).decision == Verdict::Deny);
        QVERIFY(!ups[0].settingsOf(QStringLiteral("other")).decision);
        QCOMPARE(ups[1].prefix, QStringLiteral("cloud_"));
        QVERIFY(!ups[1].isStdio());
        QCOMPARE(ups[1].headers.size(), 1);
    }
    void parse_emptyObject_givesDefaults()
    {
        auto config = Config::parse("{}", QStringLiteral("c.json"));
        QVERIFY(config.ok());
        QCOMPARE(config.value().listenPort(), Config::kDefaultPort);
        QCOMPARE(config.value().ttlSeconds(), 300);
        QCOMPARE(config.value().pollWindowSeconds(), 20);
        QCOMPARE(config.value().legacyHoldSeconds(), 50);
        QCOMPARE(config.value().progressHoldSeconds(), 240);
        QCOMPARE(config.value().cardMinimumSeconds(), 1.0);
        QCOMPARE(config.value().cardUnseenLimitSeconds(), 3600);
        QCOMPARE(config.value().storeLocation(QStringLiteral("/data")),
                 QStringLiteral("/data/countersign.db"));
    }
    void parse_person_isTrimmed()
    {
        auto config = Config::parse(R"({"person": "  Bea Lopez "})", QStringLiteral("c.json"));
        QVERIFY2(config.ok(), qPrintable(config.ok() ? QString() : config.error()));
        QCOMPARE(config.value().person(), QStringLiteral("Bea Lopez"));
        QVERIFY(Config::parse("{}", QStringLiteral("c.json")).value().person().isEmpty());
    }
    void parse_store_namesThePostgresUrl()
    {
        auto config =
            Config::parse(R"({"store": {"postgres": "postgresql://team@db.internal:5433/countersign"}})",
                          QStringLiteral("c.json"));
        QVERIFY2(config.ok(), qPrintable(config.ok() ? QString() : config.error()));
        QCOMPARE(config.value().storeLocation(QStringLiteral("/data")),
                 QStringLiteral("postgresql://team@db.internal:5433/countersign"));
    }
    void parse_otlp_isRead()
    {
        const QByteArray text =
            R"({"otlp": {"endpoint": "https://otel.example.com:4318/v1/traces", "serviceName": "countersign-bea", )"
            R"("headers": {"Authorization": "Bearer s3cret", "X-Scope-OrgID": "team-a"}}})";
        const auto config = Config::parse(text, QStringLiteral("c.json"));
        QVERIFY2(config.ok(), config.ok() ? "" : qPrintable(config.error()));
        const OtlpSpec &otlp = config.value().otlp();
        QVERIFY(otlp.isEnabled());
        QCOMPARE(otlp.endpoint, QStringLiteral("https://otel.example.com:4318/v1/traces"));
        QCOMPARE(otlp.headers.size(), 2);
        QCOMPARE(otlp.headers[0].first, QByteArray("Authorization"));
        QCOMPARE(otlp.headers[0].second, QByteArray("Bearer s3cret"));
        QCOMPARE(otlp.serviceName, QStringLiteral("countersign-bea"));
    }
    void parse_otlp_isOffByDefault_andABaseUrlGetsTheTracesPath()
    {
        QVERIFY(!Config::parse("{}", QStringLiteral("c.json")).value().otlp().isEnabled());
        const auto config =
            Config::parse("{\"otlp\": {\"endpoint\": \"http://127.0.0.1:4318\"}}", QStringLiteral("c.json"));
        QVERIFY2(config.ok(), config.ok() ? "" : qPrintable(config.error()));
        QCOMPARE(config.value().otlp().endpoint, QStringLiteral("http://127.0.0.1:4318/v1/traces"));
        QCOMPARE(config.value().otlp().serviceName, QStringLiteral("countersign"));
        QVERIFY(config.value().otlp().headers.isEmpty());
    }
    void parse_cardMinimumSeconds_isRead_data()
    {
        QTest::addColumn<QByteArray>("text");
        QTest::addColumn<double>("seconds");
        QTest::newRow("integer") << QByteArray("{\"cardMinimumSeconds\": 3}") << 3.0;
        QTest::newRow("decimal") << QByteArray("{\"cardMinimumSeconds\": 0.25}") << 0.25;
        QTest::newRow("zero") << QByteArray("{\"cardMinimumSeconds\": 0}") << 0.0;
        QTest::newRow("thirty") << QByteArray("{\"cardMinimumSeconds\": 30.0}") << 30.0;
    }
    void parse_cardMinimumSeconds_isRead()
    {
        QFETCH(QByteArray, text);
        QFETCH(double, seconds);
        auto config = Config::parse(text, QStringLiteral("c.json"));
        QVERIFY2(config.ok(), qPrintable(config.ok() ? QString() : config.error()));
        QCOMPARE(config.value().cardMinimumSeconds(), seconds);
    }
    void parse_bad_isRefusedWithLineAndReason_data()
    {
        QTest::addColumn<QByteArray>("text");
        QTest::addColumn<QString>("expected");
        QTest::newRow("syntax") << QByteArray("{\n\"ttlSeconds\": 5,\n\"listen\" \"x\"\n}")
                                << QStringLiteral("c.json:3: invalid JSON");
        QTest::newRow("number overflow (fuzz_config)")
            << QByteArray("2E2182E22") << QStringLiteral("c.json: invalid JSON");
        QTest::newRow("overflow in a value")
            << QByteArray("{\"ttlSeconds\": 1e999}") << QStringLiteral("c.json");
        QTest::newRow("unknown mode") << QByteArray("{\"mode\": \"lenient\"}")
                                      << QStringLiteral("c.json:1: mode: must be \"standard\" or \"strict\"");
        QTest::newRow("mode not a string")
            << QByteArray("{\"mode\": 1}")
            << QStringLiteral("c.json:1: mode: must be \"standard\" or \"strict\"");
        QTest::newRow("unknown key") << QByteArray("{\n\n\"tllSeconds\": 5}")
                                     << QStringLiteral("c.json:3: tllSeconds: unknown setting");
        // The conformance fixtures live in the test host only; the product has no switch for them.
        QTest::newRow("no fixture switch") << QByteArray("{\"testFixtures\": true}")
                                           << QStringLiteral("c.json:1: testFixtures: unknown setting");
        QTest::newRow("undoKeepHours past undoDays")
            << QByteArray("{\"undoDays\": 1,\n\"undoKeepHours\": 48}")
            << QStringLiteral("c.json:2: undoKeepHours: must be at most undoDays × 24 (24)");
        QTest::newRow("undoKeepHours negative")
            << QByteArray("{\"undoKeepHours\": -1}")
            << QStringLiteral("c.json:1: undoKeepHours: must be an integer from 0 to 720");
        QTest::newRow("person empty") << QByteArray("{\"person\": \"  \"}")
                                      << QStringLiteral("c.json:1: person: must be a name of 1 to 64");
        QTest::newRow("person control") << QByteArray("{\"person\": \"Bea\\u001b[31m\"}")
                                        << QStringLiteral("c.json:1: person: must be a name of 1 to 64");
        QTest::newRow("person number")
            << QByteArray("{\"person\": 7}") << QStringLiteral("c.json:1: person: must be a name");
        QTest::newRow("store not an object") << QByteArray("{\"store\": \"postgresql://h/d\"}")
                                             << QStringLiteral("c.json:1: store: must be an object");
        QTest::newRow("store sqlite key")
            << QByteArray("{\"store\": {\"sqlite\": \"/x.db\"}}")
            << QStringLiteral("c.json:1: sqlite: store takes only \"postgres\"");
        QTest::newRow("store not a URL") << QByteArray("{\"store\": {\"postgres\": \"host=db user=a\"}}")
                                         << QStringLiteral("c.json:1: postgres: must be a URL postgresql://");
        // The store's own parser (issue 28): an option the store would refuse is refused here.
        QTest::newRow("store option the store refuses")
            << QByteArray(
                   "{\"store\": {\"postgres\": \"postgresql://a:pw@db/t?options=-c%20log_statement%3Dall\"}}")
            << QStringLiteral(
                   "c.json:1: postgres: must be a URL postgresql://user@host:port/database (a password "
                   "may come from ~/.pgpass or PGPASSWORD instead): postgresql://a@db/t: the option "
                   "options is not one");
        // Shown without the password, wherever the URL puts it.
        QTest::newRow("store password as an option")
            << QByteArray("{\"store\": {\"postgres\": \"postgresql://a@db/t?password=s3cret\"}}")
            << QStringLiteral(
                   "postgres: must be a URL postgresql://user@host:port/database (a password may come from "
                   "~/.pgpass or PGPASSWORD instead): postgresql://a@db/t: the option password is not one");
        QTest::newRow("store no host") << QByteArray("{\"store\": {\"postgres\": \"postgresql:///d\"}}")
                                       << QStringLiteral("c.json:1: postgres: must be a URL");
        QTest::newRow("ttl type") << QByteArray("{\"ttlSeconds\": \"5\"}")
                                  << QStringLiteral("c.json:1: ttlSeconds: must be an integer");
        QTest::newRow("progress hold too long")
            << QByteArray("{\"progressHoldSeconds\": 601}")
            << QStringLiteral("c.json:1: progressHoldSeconds: must be an integer from 1 to 600");
        QTest::newRow("ttl zero") << QByteArray("{\"ttlSeconds\": 0}")
                                  << QStringLiteral("must be an integer from 1");
        QTest::newRow("card minimum negative")
            << QByteArray("{\n\"ttlSeconds\": 5,\n\"cardMinimumSeconds\": -1}")
            << QStringLiteral("c.json:3: cardMinimumSeconds: must be a number of seconds from 0 to 30");
        QTest::newRow("unseen limit negative")
            << QByteArray("{\"cardUnseenLimitSeconds\": -1}")
            << QStringLiteral("c.json:1: cardUnseenLimitSeconds: must be an integer "
                              "from 0 (ttlSeconds count from when a card is made) "
                              "to 86400 seconds");
        QTest::newRow("unseen limit over a day")
            << QByteArray("{\"cardUnseenLimitSeconds\": 86401}")
            << QStringLiteral("cardUnseenLimitSeconds: must be an integer from 0");
        QTest::newRow("card minimum too long")
            << QByteArray("{\"cardMinimumSeconds\": 30.5}")
            << QStringLiteral("c.json:1: cardMinimumSeconds: must be a number of seconds from 0 to 30");
        QTest::newRow("card minimum string")
            << QByteArray("{\"cardMinimumSeconds\": \"1\"}")
            << QStringLiteral("c.json:1: cardMinimumSeconds: must be a number");
        QTest::newRow("card minimum bool")
            << QByteArray("{\"cardMinimumSeconds\": true}")
            << QStringLiteral("c.json:1: cardMinimumSeconds: must be a number");
        QTest::newRow("public listen")
            << QByteArray("{\"listen\": \"0.0.0.0:7331\"}") << QStringLiteral("not on 127.0.0.1");
        QTest::newRow("relative root")
            << QByteArray("{\"workspaceRoots\": [\"src\"]}") << QStringLiteral("absolute path");
        QTest::newRow("not object") << QByteArray("[]") << QStringLiteral("must be a JSON object");
        // Upstreams.
        QTest::newRow("upstreams not an array")
            << QByteArray("{\"upstreams\": {}}") << QStringLiteral("c.json:1: upstreams: must be an array");
        QTest::newRow("upstream without a name") << QByteArray("{\"upstreams\": [{\"command\": [\"node\"]}]}")
                                                 << QStringLiteral("upstreams[0].name: is required");
        QTest::newRow("upstream name with a space")
            << QByteArray("{\"upstreams\": [{\"name\": \"f s\", \"command\": [\"node\"]}]}")
            << QStringLiteral("upstreams[0].name: must be 1-32 letters");
        QTest::newRow("upstream command a string (a shell line)")
            << QByteArray("{\"upstreams\": [{\"name\": \"fs\", \"command\": \"node s.js\"}]}")
            << QStringLiteral("upstreams[0].command: must be a non-empty argv array");
        QTest::newRow("upstream with command and url")
            << QByteArray("{\"upstreams\": [{\"name\": \"fs\", \"command\": [\"node\"], \"url\": "
                          "\"http://127.0.0.1:9/mcp\"}]}")
            << QStringLiteral("give either command");
        QTest::newRow("upstream url not http")
            << QByteArray("{\"upstreams\": [{\"name\": \"p\", \"url\": \"file:///etc/passwd\"}]}")
            << QStringLiteral("upstreams[0].url: must be an http:// or https:// URL");
        QTest::newRow("upstream header with a newline")
            << QByteArray("{\"upstreams\": [{\"name\": \"p\", \"url\": \"http://127.0.0.1:9/mcp\", "
                          "\"headers\": {\"X-A\": \"a\\r\\nX-B: b\"}}]}")
            << QStringLiteral("headers.X-A: not a valid header");
        QTest::newRow("upstream names twice")
            << QByteArray("{\"upstreams\": [{\"name\": \"fs\", \"command\": [\"a\"]}, {\"name\": \"fs\", "
                          "\"command\": [\"b\"], \"prefix\": \"x_\"}]}")
            << QStringLiteral("a second upstream named fs");
        QTest::newRow("upstream prefixes twice")
            << QByteArray("{\"upstreams\": [{\"name\": \"a\", \"command\": [\"a\"], \"prefix\": \"p_\"}, "
                          "{\"name\": \"b\", \"command\": [\"b\"], \"prefix\": \"p_\"}]}")
            << QStringLiteral("tool prefixes \"p_\" and \"p_\": neither may start the other");
        QTest::newRow("upstream prefix starting another (gh_ and gh_ent_)")
            << QByteArray("{\"upstreams\": [{\"name\": \"gh_ent\", \"command\": [\"a\"]}, "
                          "{\"name\": \"gh\", \"command\": [\"b\"]}]}")
            << QStringLiteral("upstreams gh_ent and gh have tool prefixes \"gh_ent_\" and \"gh_\"");
        QTest::newRow("an empty prefix beside another upstream")
            << QByteArray("{\"upstreams\": [{\"name\": \"a\", \"command\": [\"a\"], \"prefix\": \"\"}, "
                          "{\"name\": \"b\", \"command\": [\"b\"]}]}")
            << QStringLiteral("neither may start the other");
        QTest::newRow("upstream tool decision mistyped")
            << QByteArray("{\"upstreams\": [{\"name\": \"fs\", \"command\": [\"a\"], \"tools\": "
                          "{\"write_file\": {\"decision\": true}}}]}")
            << QStringLiteral("upstreams[0].tools.write_file.decision: must be allow, ask or deny");
        QTest::newRow("upstream planWith not an object")
            << QByteArray("{\"upstreams\": [{\"name\": \"fs\", \"command\": [\"a\"], \"tools\": "
                          "{\"edit_file\": {\"planWith\": \"dryRun\"}}}]}")
            << QStringLiteral("upstreams[0].tools.edit_file.planWith: must be an object");
        QTest::newRow("upstream plan through a shell with a placeholder")
            << QByteArray("{\"upstreams\": [{\"name\": \"fs\", \"command\": [\"a\"], \"tools\": "
                          "{\"edit_file\": {\"plan\": [\"sh\", \"-c\", \"cat {path}\"]}}}]}")
            << QStringLiteral("upstreams[0].tools.edit_file.plan: ");
        // OTLP export.
        QTest::newRow("otlp not an object") << QByteArray("{\n\"otlp\": \"http://127.0.0.1:4318\"}")
                                            << QStringLiteral("c.json:2: otlp: must be an object");
        QTest::newRow("otlp without an endpoint") << QByteArray("{\"otlp\": {\"serviceName\": \"x\"}}")
                                                  << QStringLiteral("otlp.endpoint: is required");
        QTest::newRow("otlp endpoint a file URL")
            << QByteArray("{\"otlp\": {\"endpoint\": \"file:///tmp/spans\"}}")
            << QStringLiteral("c.json:1: otlp.endpoint: must be an http:// or https:// URL");
        QTest::newRow("otlp endpoint not a URL")
            << QByteArray("{\"otlp\": {\"endpoint\": \"collector:4318\"}}")
            << QStringLiteral("otlp.endpoint: must be an http");
        QTest::newRow("otlp endpoint without a host")
            << QByteArray("{\"otlp\": {\"endpoint\": \"http:///v1\"}}")
            << QStringLiteral("otlp.endpoint: must be an http");
        QTest::newRow("otlp endpoint a number") << QByteArray("{\"otlp\": {\"endpoint\": 4318}}")
                                                << QStringLiteral("otlp.endpoint: must be an http");
        QTest::newRow("otlp endpoint with a password")
            << QByteArray("{\"otlp\": {\"endpoint\": \"https://me:pw@otel.example.com/v1/traces\"}}")
            << QStringLiteral("otlp.endpoint: must not hold a user name or password");
        QTest::newRow("otlp header value with a line break")
            << QByteArray("{\"otlp\": {\"endpoint\": \"http://127.0.0.1:4318\", \"headers\": "
                          "{\"X-A\": \"a\\r\\nX-B: b\"}}}")
            << QStringLiteral("otlp.headers.X-A: the value must be at most 8192 bytes, with no line break");
        QTest::newRow("otlp header value with a NUL")
            << QByteArray("{\"otlp\": {\"endpoint\": \"http://127.0.0.1:4318\", \"headers\": "
                          "{\"X-A\": \"a\\u0000b\"}}}")
            << QStringLiteral("otlp.headers.X-A: the value must be");
        QTest::newRow("otlp header value with an escape")
            << QByteArray("{\"otlp\": {\"endpoint\": \"http://127.0.0.1:4318\", \"headers\": "
                          "{\"X-A\": \"\\u001b[31m\"}}}")
            << QStringLiteral("otlp.headers.X-A: the value must be");
        QTest::newRow("otlp header name with a colon")
            << QByteArray("{\"otlp\": {\"endpoint\": \"http://127.0.0.1:4318\", \"headers\": "
                          "{\"X-A: b\": \"c\"}}}")
            << QStringLiteral("otlp.headers: a header name must be 1 to 128 letters");
        QTest::newRow("otlp header name with a line break")
            << QByteArray("{\"otlp\": {\"endpoint\": \"http://127.0.0.1:4318\", \"headers\": "
                          "{\"X-A\\nX-B\": \"c\"}}}")
            << QStringLiteral("otlp.headers: a header name must be");
        QTest::newRow("otlp header the exporter sets")
            << QByteArray("{\"otlp\": {\"endpoint\": \"http://127.0.0.1:4318\", \"headers\": "
                          "{\"Content-Length\": \"0\"}}}")
            << QStringLiteral("otlp.headers.Content-Length: set by Countersign itself");
        QTest::newRow("otlp header twice in two cases")
            << QByteArray("{\"otlp\": {\"endpoint\": \"http://127.0.0.1:4318\", \"headers\": "
                          "{\"Authorization\": \"a\", \"authorization\": \"b\"}}}")
            << QStringLiteral("a second header of this name");
        QTest::newRow("otlp header a number")
            << QByteArray("{\"otlp\": {\"endpoint\": \"http://127.0.0.1:4318\", \"headers\": {\"X-A\": 1}}}")
            << QStringLiteral("otlp.headers.X-A: must be a string");
        QTest::newRow("otlp service name empty")
            << QByteArray("{\"otlp\": {\"endpoint\": \"http://127.0.0.1:4318\", \"serviceName\": \" \"}}")
            << QStringLiteral("otlp.serviceName: must be a name of 1 to 128 printable characters");
        QTest::newRow("otlp unknown key")
            << QByteArray("{\"otlp\": {\"endpoint\": \"http://127.0.0.1:4318\", \"protocol\": \"grpc\"}}")
            << QStringLiteral("otlp.protocol: unknown otlp setting");
        QTest::newRow("upstream unknown key")
            << QByteArray("{\"upstreams\": [{\"name\": \"fs\", \"command\": [\"a\"], \"shell\": true}]}")
            << QStringLiteral("upstreams[0].shell: unknown upstream key");
    }
    void parse_bad_isRefusedWithLineAndReason()
    {
        QFETCH(QByteArray, text);
        QFETCH(QString, expected);
        auto config = Config::parse(text, QStringLiteral("c.json"));
        QVERIFY(!config.ok());
        QVERIFY2(config.error().contains(expected), qPrintable(config.error()));
    }
    // A store URL refused for any reason never repeats its password: in the user part, as an option,
    // or in text that is no URL at all (a "/" in the password ends the host).
    void parse_storeRefused_neverQuotesThePassword()
    {
        for (const char *url :
             {"postgresql://a:s3cret@db/t?sslmode=bogus%20x", "postgresql://a@db/t?password=s3cret",
              "postgresql://a:s3/cret@db/t", "postgresql://a:s3cret@/t", "host=db password=s3cret"}) {
            const QByteArray text = QByteArray("{\"store\": {\"postgres\": \"") + url + "\"}}";
            const auto config = Config::parse(text, QStringLiteral("c.json"));
            QVERIFY2(!config.ok(), url);
            QVERIFY2(!config.error().contains(QLatin1String("s3")), qPrintable(config.error()));
        }
    }
    void parse_otlpHeaderRefused_neverQuotesTheValue()
    {
        const QByteArray text =
            R"({"otlp": {"endpoint": "http://127.0.0.1:4318", "headers": {"Authorization": "Bearer hunter2\n"}}})";
        const auto config = Config::parse(text, QStringLiteral("c.json"));
        QVERIFY(!config.ok());
        QVERIFY2(!config.error().contains(QStringLiteral("hunter2")), qPrintable(config.error()));
    }
    void parseListen_data()
    {
        QTest::addColumn<QString>("text");
        QTest::addColumn<bool>("ok");
        QTest::addColumn<int>("port");
        QTest::newRow("loopback") << "127.0.0.1:7331" << true << 7331;
        QTest::newRow("any port") << "127.0.0.1:0" << true << 0;
        QTest::newRow("localhost") << "localhost:80" << true << 80;
        QTest::newRow("all interfaces") << "0.0.0.0:7331" << false << 0;
        QTest::newRow("lan") << "192.168.1.2:7331" << false << 0;
        QTest::newRow("no port") << "127.0.0.1" << false << 0;
        QTest::newRow("port too big") << "127.0.0.1:70000" << false << 0;
    }
    void parseListen()
    {
        QFETCH(QString, text);
        QFETCH(bool, ok);
        QFETCH(int, port);
        auto r = Config::parseListen(text);
        QCOMPARE(r.ok(), ok);
        if (ok)
            QCOMPARE(int(r.value().second), port);
    }
    void load_missingFile_givesDefaults()
    {
        QTemporaryDir dir;
        auto config = Config::load(dir.filePath(QStringLiteral("none.json")));
        QVERIFY(config.ok());
        QCOMPARE(config.value().listenPort(), Config::kDefaultPort);
    }
    void load_badFile_namesTheFile()
    {
        QTemporaryDir dir;
        const QString path = dir.filePath(QStringLiteral("bad.json"));
        QFile f(path);
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write("{ \"listen\": 5 }");
        f.close();
        auto config = Config::load(path);
        QVERIFY(!config.ok());
        QVERIFY2(config.error().startsWith(path + QStringLiteral(":1: listen")), qPrintable(config.error()));
    }
};

QTEST_GUILESS_MAIN(ConfigTest)
#include "config_test.moc"
