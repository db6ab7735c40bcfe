#include "helperfailure.h"
#include "jsoncompare.h"
#include "policy.h"

#include <QTest>

using namespace Countersign;
using json = nlohmann::json;

Q_DECLARE_METATYPE(nlohmann::json)

class PolicyTest : public QObject
{
    Q_OBJECT
private:
    static Policy policy()
    {
        auto p = Policy::fromJson(json::parse(R"([
            {"tool": "delete_service", "arguments": {"service": "prod-*"}, "decision": "deny", "reason": "production"},
            {"tool": "run_command", "argvPrefix": ["git", "status"], "decision": "allow"},
            {"tool": "run_command", "argvPrefix": ["git", "push"], "decision": "ask"},
            {"tool": "read_*", "decision": "allow"},
            {"tool": "scale", "arguments": {"replicas": "0"}, "decision": "deny"}
        ])"),
                                  json::parse(R"({"low": "client", "critical": "console"})"));
        if (!p) {
            helperFailed(p.error());
            return Policy();
        }
        return p.value();
    }

private Q_SLOTS:
    void evaluate_data()
    {
        QTest::addColumn<QString>("tool");
        QTest::addColumn<json>("args");
        QTest::addColumn<int>("verdict");
        QTest::addColumn<int>("rule");
        QTest::newRow("prod service denied")
            << "delete_service" << json{{"service", "prod-db"}} << int(Verdict::Deny) << 0;
        QTest::newRow("staging falls through")
            << "delete_service" << json{{"service", "staging"}} << int(Verdict::Ask) << -1;
        QTest::newRow("glob is whole-value")
            << "delete_service" << json{{"service", "my-prod-db"}} << int(Verdict::Ask) << -1;
        QTest::newRow("argv prefix allow")
            << "run_command" << json{{"argv", {"git", "status", "-s"}}} << int(Verdict::Allow) << 1;
        QTest::newRow("argv prefix ask")
            << "run_command" << json{{"argv", {"git", "push", "--force"}}} << int(Verdict::Ask) << 2;
        QTest::newRow("argv shorter than prefix")
            << "run_command" << json{{"argv", {"git"}}} << int(Verdict::Ask) << -1;
        QTest::newRow("argv not an array")
            << "run_command" << json{{"argv", "git status"}} << int(Verdict::Ask) << -1;
        QTest::newRow("tool glob") << "read_file" << json::object() << int(Verdict::Allow) << 3;
        QTest::newRow("number argument by text")
            << "scale" << json{{"replicas", 0}} << int(Verdict::Deny) << 4;
        QTest::newRow("missing argument no match") << "scale" << json::object() << int(Verdict::Ask) << -1;
        QTest::newRow("object argument no match")
            << "delete_service" << json{{"service", {{"a", 1}}}} << int(Verdict::Ask) << -1;
    }
    void evaluate()
    {
        QFETCH(QString, tool);
        QFETCH(json, args);
        QFETCH(int, verdict);
        QFETCH(int, rule);
        const PolicyDecision d = policy().evaluate(tool, args, Verdict::Ask);
        QCOMPARE(int(d.verdict), verdict);
        QCOMPARE(d.ruleIndex, rule);
        QVERIFY(!d.rule.isEmpty());
    }
    void approvalModes_followRisk()
    {
        const Policy p = policy();
        QCOMPARE(p.approvalFor(Risk::Low), ApprovalMode::Client);
        QCOMPARE(p.approvalFor(Risk::Medium), ApprovalMode::Console);
        QCOMPARE(p.approvalFor(Risk::Critical), ApprovalMode::Console);
        QCOMPARE_JSON(p.toJson().at("approval").at("low"), json("client"));
    }
    void badRules_areRefusedWithTheirPlace_data()
    {
        QTest::addColumn<QByteArray>("rules");
        QTest::addColumn<QByteArray>("approval");
        QTest::addColumn<QString>("error");
        QTest::newRow("not an array")
            << QByteArray(R"({})") << QByteArray("null") << "rules: must be an array";
        QTest::newRow("missing decision")
            << QByteArray(R"([{"tool": "x"}])") << QByteArray("null") << "rules[0].decision: is required";
        QTest::newRow("bad decision")
            << QByteArray(R"([{"tool": "x", "decision": "maybe"}])") << QByteArray("null")
            << "rules[0].decision: must be allow, ask or deny";
        QTest::newRow("unknown key") << QByteArray(
                                            R"([{"decision": "ask"}, {"decision": "ask", "tol": "x"}])")
                                     << QByteArray("null") << "rules[1].tol: unknown rule key";
        QTest::newRow("argument not glob")
            << QByteArray(R"([{"decision": "ask", "arguments": {"a": 1}}])") << QByteArray("null")
            << "rules[0].arguments.a: must be a glob string";
        QTest::newRow("empty argv prefix")
            << QByteArray(R"([{"decision": "ask", "argvPrefix": []}])") << QByteArray("null")
            << "rules[0].argvPrefix: must be a non-empty array of strings";
        QTest::newRow("unknown risk") << QByteArray("null") << QByteArray(R"({"severe": "console"})")
                                      << "approval.severe: unknown risk level";
        QTest::newRow("bad mode") << QByteArray("null") << QByteArray(R"({"high": "agent"})")
                                  << "approval.high: must be \"console\" or \"client\"";
    }
    void badRules_areRefusedWithTheirPlace()
    {
        QFETCH(QByteArray, rules);
        QFETCH(QByteArray, approval);
        QFETCH(QString, error);
        auto p = Policy::fromJson(json::parse(rules.toStdString()), json::parse(approval.toStdString()));
        QVERIFY(!p.ok());
        QVERIFY2(p.error().startsWith(error), qPrintable(p.error()));
    }
};

QTEST_GUILESS_MAIN(PolicyTest)
#include "policy_test.moc"
