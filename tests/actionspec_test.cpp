#include "actionspec.h"
#include "config.h"

#include <QTest>

using namespace Countersign;
using json = nlohmann::json;

Q_DECLARE_METATYPE(nlohmann::json)

class ActionSpecTest : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void fillArgv_data()
    {
        QTest::addColumn<QStringList>("tmpl");
        QTest::addColumn<json>("args");
        QTest::addColumn<QStringList>("argv");
        QTest::addColumn<QString>("error");
        QTest::newRow("whole element")
            << QStringList{"kubectl", "delete", "pod", "{name}"} << json{{"name", "web-1"}}
            << QStringList{"kubectl", "delete", "pod", "web-1"} << QString();
        QTest::newRow("inside an element") << QStringList{"--namespace={ns}"} << json{{"ns", "prod"}}
                                           << QStringList{"--namespace=prod"} << QString();
        QTest::newRow("shell text stays literal")
            << QStringList{"rm", "{p}"} << json{{"p", "a; rm -rf ~ $(id)"}}
            << QStringList{"rm", "a; rm -rf ~ $(id)"} << QString();
        QTest::newRow("number and bool") << QStringList{"scale", "{n}", "{b}"} << json{{"n", 3}, {"b", true}}
                                         << QStringList{"scale", "3", "true"} << QString();
        QTest::newRow("two in one") << QStringList{"{a}/{b}"} << json{{"a", "x"}, {"b", "y"}}
                                    << QStringList{"x/y"} << QString();
        QTest::newRow("option injection") << QStringList{"rm", "{p}"} << json{{"p", "-rf"}} << QStringList{}
                                          << "argument \"p\" may not start with '-'";
        QTest::newRow("missing") << QStringList{"rm", "{p}"} << json::object() << QStringList{}
                                 << "argument \"p\" is required";
        QTest::newRow("object value") << QStringList{"rm", "{p}"} << json{{"p", {{"x", 1}}}} << QStringList{}
                                      << "argument \"p\" must be a string, number or boolean";
        QTest::newRow("NUL byte") << QStringList{"rm", "{p}"} << json{{"p", std::string("a\0b", 3)}}
                                  << QStringList{} << "argument \"p\" contains a NUL byte";
        QTest::newRow("no placeholder syntax") << QStringList{"echo", "{not valid}", "{}"} << json::object()
                                               << QStringList{"echo", "{not valid}", "{}"} << QString();
    }
    void fillArgv()
    {
        QFETCH(QStringList, tmpl);
        QFETCH(json, args);
        QFETCH(QStringList, argv);
        QFETCH(QString, error);
        auto filled = ActionSpec::fillArgv(tmpl, args);
        if (error.isEmpty()) {
            QVERIFY2(filled.ok(), filled.ok() ? "" : qPrintable(filled.error()));
            QCOMPARE(filled.value(), argv);
        } else {
            QVERIFY(!filled.ok());
            QVERIFY2(filled.error().startsWith(error), qPrintable(filled.error()));
        }
    }
    void config_withActions_parses()
    {
        auto config = Config::parse(R"({
            // a gated deploy
            "actions": [{
                "name": "deploy", "title": "Deploy",
                "inputSchema": {"type": "object", "properties": {"env": {"type": "string"}}},
                "plan": ["deployctl", "plan", "{env}"], "apply": ["deployctl", "apply", "{env}"],
                "workingDirectory": "/srv", "risk": "critical", "timeoutSeconds": 30
            }],
            "rules": [{"tool": "deploy", "arguments": {"env": "dev"}, "decision": "allow"}],
            "approval": {"low": "client"}
        })",
                                    QStringLiteral("c.json"));
        QVERIFY2(config.ok(), config.ok() ? "" : qPrintable(config.error()));
        QCOMPARE(config.value().actions().size(), 1);
        const ActionSpec &a = config.value().actions().first();
        QCOMPARE(a.plan, (QStringList{"deployctl", "plan", "{env}"}));
        QCOMPARE(a.risk, Risk::Critical);
        QCOMPARE(a.timeoutSeconds, 30);
        QCOMPARE(config.value().policy().rules().size(), 1);
        QCOMPARE(config.value().policy().approvalFor(Risk::Low), ApprovalMode::Client);
    }
    void config_badAction_namesFileLineAndReason_data()
    {
        QTest::addColumn<QByteArray>("text");
        QTest::addColumn<QString>("error");
        const QByteArray head = "{\n  \"actions\": [\n    {\n      \"name\": \"x\",\n";
        QTest::newRow("apply missing") << head + "      \"plan\": [\"p\"]\n    }\n  ]\n}"
                                       << "c.json:4: actions[0].apply: is required";
        QTest::newRow("shell string")
            << head + "      \"plan\": \"terraform plan\", \"apply\": [\"a\"]\n    }\n  ]\n}"
            << "c.json:4: actions[0].plan: must be a non-empty argv array";
        QTest::newRow("unknown placeholder")
            << head + "      \"plan\": [\"p\", \"{ghost}\"], \"apply\": [\"a\"]\n    }\n  ]\n}"
            << "c.json:4: actions[0]: placeholder {ghost} is not a property of inputSchema";
        QTest::newRow("bad risk")
            << head + "      \"plan\": [\"p\"], \"apply\": [\"a\"], \"risk\": \"huge\"\n    }\n  ]\n}"
            << "c.json:4: actions[0].risk: must be low, medium, high or critical";
        QTest::newRow("relative cwd")
            << head +
                   "      \"plan\": [\"p\"], \"apply\": [\"a\"], \"workingDirectory\": \"src\"\n    }\n  ]\n}"
            << "c.json:4: actions[0].workingDirectory: must be an absolute path";
        QTest::newRow("unknown key")
            << head + "      \"plan\": [\"p\"], \"apply\": [\"a\"], \"shell\": true\n    }\n  ]\n}"
            << "c.json:4: actions[0].shell: unknown action key";
        QTest::newRow("duplicate name")
            << QByteArray("{\"actions\": [\n{\"name\": \"x\", \"plan\": [\"p\"], \"apply\": [\"a\"]},\n"
                          "{\"name\": \"x\", \"plan\": [\"p\"], \"apply\": [\"a\"]}]}")
            << "c.json:2: x: a second action with this name";
        QTest::newRow("bad rule") << QByteArray("{\n\"rules\": [{\"decision\": \"perhaps\"}]\n}")
                                  << "c.json:2: rules[0].decision: must be allow, ask or deny";
        QTest::newRow("bad keyStore")
            << QByteArray("{\"keyStore\": \"vault\"}") << "c.json:1: keyStore: must be";
    }
    void config_badAction_namesFileLineAndReason()
    {
        QFETCH(QByteArray, text);
        QFETCH(QString, error);
        auto config = Config::parse(text, QStringLiteral("c.json"));
        QVERIFY(!config.ok());
        QVERIFY2(config.error().startsWith(error), qPrintable(config.error()));
    }
};

QTEST_GUILESS_MAIN(ActionSpecTest)
#include "actionspec_test.moc"
