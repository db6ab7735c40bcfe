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
            {"tool": "scale", "arguments": {"replicas": "0"}, "decision": "deny"},
            {"tool": "delete_service", "arguments": {"service": "tmp-*"}, "decision": "allow"},
            {"tool": "run_command", "argvPrefix": ["make", "test-?"], "decision": "allow"}
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
        QTest::newRow("tmp glob allows")
            << "delete_service" << json{{"service", "tmp-x"}} << int(Verdict::Allow) << 5;
        QTest::newRow("tmp glob with a newline falls to the default")
            << "delete_service" << json{{"service", "tmp-x\n; touch /tmp/injected"}} << int(Verdict::Ask)
            << -1;
        QTest::newRow("deny glob with a newline falls to the next rule")
            << "delete_service" << json{{"service", "prod-db\ntmp-x"}} << int(Verdict::Ask) << -1;
        QTest::newRow("argv prefix glob allows")
            << "run_command" << json{{"argv", {"make", "test-1"}}} << int(Verdict::Allow) << 6;
        QTest::newRow("argv prefix glob with a newline")
            << "run_command" << json{{"argv", {"make", "test\n"}}} << int(Verdict::Ask) << -1;
        QTest::newRow("argv prefix literal with a control character")
            << "run_command" << json{{"argv", {"git", "status\r"}}} << int(Verdict::Ask) << -1;
    }
    // Each pattern is tried as an argument glob and as an argvPrefix element.
    void glob_data()
    {
        QTest::addColumn<QString>("pattern");
        QTest::addColumn<QString>("value");
        QTest::addColumn<bool>("matches");
        QTest::newRow("tmp-* matches tmp-x") << "tmp-*"
                                             << "tmp-x" << true;
        QTest::newRow("tmp-* matches tmp-") << "tmp-*"
                                            << "tmp-" << true;
        QTest::newRow("shell text is one value to a glob") << "tmp-*"
                                                           << "tmp-x; touch /tmp/injected; echo" << true;
        QTest::newRow("newline") << "tmp-*"
                                 << "tmp-x\ntouch /tmp/injected" << false;
        QTest::newRow("trailing newline") << "tmp-*"
                                          << "tmp-x\n"
                                          << false;
        QTest::newRow("carriage return") << "tmp-*"
                                         << "tmp-x\r" << false;
        QTest::newRow("tab") << "tmp-*"
                             << "tmp-\tx" << false;
        QTest::newRow("NUL") << "tmp-*" << QStringLiteral("tmp-x") + QChar(0) << false;
        QTest::newRow("escape") << "tmp-*"
                                << "tmp-\x1b[2Jx" << false;
        QTest::newRow("DEL") << "tmp-*"
                             << "tmp-\x7f" << false;
        QTest::newRow("NEL") << "tmp-*" << QStringLiteral("tmp-x") + QChar(0x85) << false;
        QTest::newRow("U+2028") << "tmp-*" << QStringLiteral("tmp-x") + QChar(0x2028) + "y" << false;
        QTest::newRow("U+2029") << "tmp-*" << QStringLiteral("tmp-x") + QChar(0x2029) << false;
        QTest::newRow("? does not match a newline") << "a?b"
                                                    << "a\nb" << false;
        QTest::newRow("* alone does not match a newline") << "*"
                                                          << "\n"
                                                          << false;
        QTest::newRow("* matches empty") << "*"
                                         << "" << true;
        QTest::newRow("literal pattern with a newline") << "a\nb"
                                                        << "a\nb" << false;
        QTest::newRow("anchored at the start") << "tmp-*"
                                               << "x-tmp-1" << false;
        QTest::newRow("anchored at the end") << "*-db"
                                             << "prod-db-backup" << false;
        QTest::newRow("literal is whole-value") << "tmp"
                                                << "tmp-x" << false;
        QTest::newRow("literal is whole-value, prefix") << "tmp"
                                                        << "my-tmp" << false;
        QTest::newRow("? is one character") << "prod-?"
                                            << "prod-ab" << false;
        QTest::newRow("? matches one character") << "prod-?"
                                                 << "prod-a" << true;
        QTest::newRow("? matches one code point") << "?" << QString::fromUtf8("\xF0\x9F\x9A\x80") << true;
        QTest::newRow("?? is two code points") << "??" << QString::fromUtf8("\xF0\x9F\x9A\x80") << false;
        QTest::newRow("literal emoji")
            << QString::fromUtf8("\xF0\x9F\x9A\x80-*") << QString::fromUtf8("\xF0\x9F\x9A\x80-x") << true;
        QTest::newRow("regex characters are literal") << "a.b"
                                                      << "axb" << false;
        QTest::newRow("brackets are literal") << "[ab]"
                                              << "[ab]" << true;
        QTest::newRow("brackets are no class") << "[ab]"
                                               << "a" << false;
        QTest::newRow("stars backtrack") << "*a*b"
                                         << "xxaxxbxxb" << true;
        QTest::newRow("stars backtrack, no match") << "*a*b"
                                                   << "xxaxxbxxc" << false;
    }
    void glob()
    {
        QFETCH(QString, pattern);
        QFETCH(QString, value);
        QFETCH(bool, matches);
        const json argument = {
            {"tool", "t"}, {"arguments", {{"v", pattern.toStdString()}}}, {"decision", "allow"}};
        const json prefix = {{"tool", "t"}, {"argvPrefix", {pattern.toStdString()}}, {"decision", "allow"}};
        auto p = Policy::fromJson(json{argument, prefix}, json());
        QVERIFY2(p.ok(), p.ok() ? "" : qPrintable(p.error()));
        const json args = {{"v", value.toStdString()}, {"argv", {value.toStdString()}}};
        QCOMPARE(p.value().rules().at(0).matches(QStringLiteral("t"), args), matches);
        QCOMPARE(p.value().rules().at(1).matches(QStringLiteral("t"), args), matches);
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
    // Rules on path arguments match what the call acts on, not how it is spelled (issue 25).
    void pathRules_matchWhatTheCallActsOn()
    {
        // Built as objects, not a raw string: moc reads a glob's "/*" in a raw string as a comment.
        const json rules = json::array(
            {json{{"tool", "delete_path"}, {"arguments", {{"path", "./build/"}}}, {"decision", "deny"}},
             json{{"tool", "write_file"}, {"arguments", {{"path", "scratch/*"}}}, {"decision", "allow"}}});
        auto parsed = Policy::fromJson(rules, json());
        QVERIFY2(parsed, parsed ? "" : qPrintable(parsed.error()));
        const Policy &p = parsed.value();
        const auto verdict = [&p](const char *tool, const char *sent, const PathSpellings &paths) {
            return static_cast<int>(
                p.evaluate(QLatin1String(tool), json{{"path", sent}}, Verdict::Ask, paths).verdict);
        };
        const PathSpellings build{
            {QStringLiteral("path"), {QStringLiteral("build"), QStringLiteral("/r/build")}}};
        for (const char *sent : {"build", "./build", "build/", "/r/build", ".//build", "/r/./build/"})
            QVERIFY2(verdict("delete_path", sent, build) == static_cast<int>(Verdict::Deny), sent);
        const PathSpellings src{{QStringLiteral("path"), {QStringLiteral("src"), QStringLiteral("/r/src")}}};
        QCOMPARE(verdict("delete_path", "src", src), static_cast<int>(Verdict::Ask));
        // A deny holds for the text as sent too, wherever a link makes it lead.
        const PathSpellings linked{
            {QStringLiteral("path"), {QStringLiteral("out/real"), QStringLiteral("/r/out/real")}}};
        QCOMPARE(verdict("delete_path", "build", linked), static_cast<int>(Verdict::Deny));
        // An allow only for what the call acts on: scratch/link/x that leads to src/x is not allowed.
        const PathSpellings throughLink{
            {QStringLiteral("path"), {QStringLiteral("src/x"), QStringLiteral("/r/src/x")}}};
        QCOMPARE(verdict("write_file", "scratch/link/x", throughLink), static_cast<int>(Verdict::Ask));
        const PathSpellings scratch{
            {QStringLiteral("path"), {QStringLiteral("scratch/x"), QStringLiteral("/r/scratch/x")}}};
        QCOMPARE(verdict("write_file", "/r/scratch/x", scratch), static_cast<int>(Verdict::Allow));
        // A path outside the first root has only its absolute spelling: "build" there is not ROOT/build.
        const PathSpellings other{{QStringLiteral("path"), {QStringLiteral("/other/build")}}};
        QCOMPARE(verdict("delete_path", "/other/build", other), static_cast<int>(Verdict::Ask));
        // Listed with no spelling (it could not be resolved): no allow matches, a deny still does.
        const PathSpellings unresolved{{QStringLiteral("path"), {}}};
        QCOMPARE(verdict("write_file", "scratch/x", unresolved), static_cast<int>(Verdict::Ask));
        QCOMPARE(verdict("delete_path", "build", unresolved), static_cast<int>(Verdict::Deny));
        // Without spellings (arguments seen as sent): the text as sent.
        QCOMPARE(verdict("delete_path", "./build/", {}), static_cast<int>(Verdict::Deny));
        QCOMPARE(verdict("delete_path", "build", {}), static_cast<int>(Verdict::Ask));
    }

    void pathGlob_data()
    {
        QTest::addColumn<QString>("glob");
        QTest::addColumn<QString>("spelled");
        QTest::newRow("dot slash") << "./build"
                                   << "build";
        QTest::newRow("trailing slash") << "build/"
                                        << "build";
        QTest::newRow("both, doubled") << ".//a//b//"
                                       << "a/b";
        QTest::newRow("dot inside") << "/r/./x/."
                                    << "/r/x";
        QTest::newRow("the root") << "./"
                                  << ".";
        QTest::newRow("glob kept") << "./src/*.c"
                                   << "src/*.c";
        QTest::newRow("slash alone") << "/"
                                     << "/";
    }
    void pathGlob()
    {
        QFETCH(QString, glob);
        QFETCH(QString, spelled);
        QCOMPARE(Rule::pathGlob(glob), spelled);
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
    void reviewRules_areReadPerRiskLevel()
    {
        auto p = Policy::fromJson(
            json(), json(),
            json::parse(R"({"twoPeople": ["critical"], "notOwnConnection": ["high", "critical"]})"));
        QVERIFY2(p.ok(), qPrintable(p.ok() ? QString() : p.error()));
        QCOMPARE(p.value().peopleFor(Risk::High), 1);
        QCOMPARE(p.value().peopleFor(Risk::Critical), 2);
        QVERIFY(!p.value().ownConnectionBarred(Risk::Medium));
        QVERIFY(p.value().ownConnectionBarred(Risk::High));
        QCOMPARE_JSON(
            p.value().toJson().at("review"),
            json::parse(R"({"twoPeople": ["critical"], "notOwnConnection": ["high", "critical"]})"));
        const Policy none = Policy::fromJson(json(), json()).value();
        QCOMPARE(none.peopleFor(Risk::Critical), 1);
        QVERIFY(!none.ownConnectionBarred(Risk::Critical));
    }
    void badReviewRules_areRefused_data()
    {
        QTest::addColumn<QByteArray>("approval");
        QTest::addColumn<QByteArray>("review");
        QTest::addColumn<QString>("error");
        QTest::newRow("not an object")
            << QByteArray("null") << QByteArray("[]") << "review: must be an object";
        QTest::newRow("unknown key") << QByteArray("null") << QByteArray(R"({"threePeople": []})")
                                     << "review.threePeople: unknown key";
        QTest::newRow("not a list") << QByteArray("null") << QByteArray(R"({"twoPeople": "high"})")
                                    << "review.twoPeople: must be a list of risk levels";
        QTest::newRow("unknown risk")
            << QByteArray("null") << QByteArray(R"({"notOwnConnection": ["severe"]})")
            << "review.notOwnConnection: \"severe\" is not a risk level";
        QTest::newRow("mistyped risk") << QByteArray("null") << QByteArray(R"({"twoPeople": [3]})")
                                       << "review.twoPeople: 3 is not a risk level";
        // A client's typed confirmation is one approval through the caller's own connection.
        QTest::newRow("client approval, two people")
            << QByteArray(R"({"high": "client"})") << QByteArray(R"({"twoPeople": ["high"]})")
            << "review: high risk is approved in the client";
        QTest::newRow("client approval, owner barred")
            << QByteArray(R"({"low": "client"})") << QByteArray(R"({"notOwnConnection": ["low"]})")
            << "review: low risk is approved in the client";
    }
    void badReviewRules_areRefused()
    {
        QFETCH(QByteArray, approval);
        QFETCH(QByteArray, review);
        QFETCH(QString, error);
        auto p =
            Policy::fromJson(json(), json::parse(approval.toStdString()), json::parse(review.toStdString()));
        QVERIFY(!p.ok());
        QVERIFY2(p.error().startsWith(error), qPrintable(p.error()));
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
