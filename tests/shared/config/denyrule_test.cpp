// DenyRule: the rule "Deny this from now on" adds matches the declined call (Policy::evaluate) and
// not a different one, says where the rule language makes it deny more, refuses what it cannot pin,
// and goes first in a real configuration file (comments outside "rules" kept, a missing file made,
// a bad or unwritable one refused and left as it was) as a change that only narrows.
#include "config.h"
#include "denyrule.h"
#include "jsoncompare.h"
#include "policychange.h"

#include <nlohmann/json.hpp>

#include <QDir>
#include <QFile>
#include <QTemporaryDir>
#include <QTest>

using namespace Countersign;
using json = nlohmann::json;

Q_DECLARE_METATYPE(nlohmann::json)

namespace {

Verdict verdictOf(const DenyRule &rule, const QString &tool, const json &arguments)
{
    auto policy = Policy::fromJson(json::array({rule.toJson()}), json());
    return policy ? policy.value().evaluate(tool, arguments, Verdict::Ask).verdict : Verdict::Allow;
}

QByteArray read(const QString &path)
{
    QFile file(path);
    return file.open(QIODevice::ReadOnly) ? file.readAll() : QByteArray();
}

json call(const char *tool, json arguments)
{
    return json::array({tool, std::move(arguments)});
}

json calls(std::initializer_list<json> list)
{
    json out = json::array();
    for (const json &one : list)
        out.push_back(one);
    return out;
}

bool write(const QString &path, const QByteArray &text)
{
    QFile file(path);
    return file.open(QIODevice::WriteOnly) && file.write(text) == text.size();
}

const QByteArray kConfig = R"(// the team's configuration
{
  "ttlSeconds": 300, // five minutes
  /* rules: first match wins */
  "rules": [
    {"tool": "delete_service", "arguments": {"service": "tmp-*"}, "decision": "allow"}
  ],
  "cardMinimumSeconds": 2
}
)";

} // namespace

class DenyRuleTest : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    // The call is denied; each of the others (a different tool or arguments) is not, except those
    // notes names.
    void forCall_deniesTheCall_andNotAnother_data()
    {
        QTest::addColumn<QString>("tool");
        QTest::addColumn<json>("arguments");
        QTest::addColumn<json>("others");     // calls not denied: [[tool, arguments], ...]
        QTest::addColumn<json>("alsoDenied"); // other calls denied all the same, as notes say
        QTest::addColumn<bool>("exact");
        QTest::newRow("one text") << QStringLiteral("delete_service") << json{{"service", "web-1"}}
                                  << calls({call("delete_service", {{"service", "web-2"}}),
                                            call("delete_service", {{"service", "web-10"}}),
                                            call("delete_service", {{"service", "WEB-1"}}),
                                            call("delete_service", {{"service", "eb-1"}}),
                                            call("delete_service", json::object()),
                                            call("restart_service", {{"service", "web-1"}})})
                                  << json::array() << true;
        QTest::newRow("text and boolean")
            << QStringLiteral("delete_service") << json{{"force", true}, {"service", "web-1"}}
            << calls({call("delete_service", {{"force", false}, {"service", "web-1"}}),
                      call("delete_service", {{"service", "web-1"}}),
                      call("delete_service", {{"force", true}, {"service", "web-2"}})})
            << json::array() << true;
        QTest::newRow("number") << QStringLiteral("scale") << json{{"replicas", 3}}
                                << calls(
                                       {call("scale", {{"replicas", 4}}), call("scale", {{"replicas", 33}})})
                                << json::array() << true;
        // Issue 26, B14: a number is matched by value, as the arguments digest writes it: a rule
        // written for 1.0 denies 1 and 1e0 too (once only the exact text matched), never 1.5.
        QTest::newRow("a number by value")
            << QStringLiteral("scale") << json{{"replicas", 1.0}}
            << calls({call("scale", {{"replicas", 1.5}}), call("scale", {{"replicas", "1.0"}})})
            << calls({call("scale", {{"replicas", 1}}), call("scale", json::parse(R"({"replicas": 1e0})"))})
            << true;
        QTest::newRow("wildcards in a value")
            << QStringLiteral("delete_files") << json{{"pattern", "*.log"}, {"dir", "logs?"}}
            << calls({call("delete_files", {{"pattern", "ab.log"}, {"dir", "logs?"}}),
                      call("delete_files", {{"pattern", "*.log"}, {"dir", "logs"}}),
                      call("delete_files", {{"pattern", "*.txt"}, {"dir", "logs?"}})})
            << calls({call("delete_files", {{"pattern", "x.log"}, {"dir", "logs1"}})}) << false;
        QTest::newRow("argv") << QStringLiteral("run_command") << json{{"argv", {"rm", "-rf", "/tmp/x"}}}
                              << calls({call("run_command", {{"argv", {"rm", "-rf", "/tmp/y"}}}),
                                        call("run_command", {{"argv", {"rm", "-r", "/tmp/x"}}}),
                                        call("run_command", {{"argv", {"rm", "-rf"}}}),
                                        call("run_command", {{"argv", {"ls", "-rf", "/tmp/x"}}})})
                              << calls({call("run_command", {{"argv", {"rm", "-rf", "/tmp/x", "/home"}}})})
                              << false;
        QTest::newRow("argv and cwd")
            << QStringLiteral("run_command") << json{{"argv", {"make", "*"}}, {"cwd", "/src"}}
            << calls({call("run_command", {{"argv", {"make", "clean"}}, {"cwd", "/src"}}),
                      call("run_command", {{"argv", {"make", "*"}}, {"cwd", "/other"}})})
            << calls({call("run_command", {{"argv", {"make", "x"}}, {"cwd", "/src"}})}) << false;
        QTest::newRow("a value with a line break is left out")
            << QStringLiteral("write_file") << json{{"path", "a.txt"}, {"content", "line 1\nline 2"}}
            << calls({call("write_file", {{"path", "b.txt"}, {"content", "line 1\nline 2"}})})
            << calls({call("write_file", {{"path", "a.txt"}, {"content", "other"}})}) << false;
        QTest::newRow("a list is left out")
            << QStringLiteral("edit_file") << json{{"path", "a.txt"}, {"edits", json::array({1, 2})}}
            << calls({call("edit_file", {{"path", "b.txt"}, {"edits", json::array({1, 2})}})})
            << calls({call("edit_file", {{"path", "a.txt"}, {"edits", json::array()}})}) << false;
        QTest::newRow("markup and bidi text, pinned as they are")
            << QStringLiteral("<b>tool</b>") << json{{"name", "<i>x</i>\u202egnp.exe"}}
            << calls({call("<b>tool</b>", {{"name", "<i>x</i>exe.png"}}),
                      call("tool", {{"name", "<i>x</i>\u202egnp.exe"}})})
            << json::array() << true;
        QTest::newRow("no arguments") << QStringLiteral("reset_all") << json::object()
                                      << calls({call("reset", json::object())}) << json::array() << true;
    }
    void forCall_deniesTheCall_andNotAnother()
    {
        QFETCH(QString, tool);
        QFETCH(json, arguments);
        QFETCH(json, others);
        QFETCH(json, alsoDenied);
        QFETCH(bool, exact);
        auto rule = DenyRule::forCall(tool, arguments, QStringLiteral("declined twice"));
        QVERIFY2(rule.ok(), qPrintable(rule.ok() ? QString() : rule.error()));
        QCOMPARE(verdictOf(rule.value(), tool, arguments), Verdict::Deny);
        for (const json &other : others) {
            const QString otherTool = QString::fromStdString(other[0].get<std::string>());
            QVERIFY2(verdictOf(rule.value(), otherTool, other[1]) != Verdict::Deny, other.dump().c_str());
        }
        for (const json &more : alsoDenied) {
            const QString moreTool = QString::fromStdString(more[0].get<std::string>());
            QVERIFY2(verdictOf(rule.value(), moreTool, more[1]) == Verdict::Deny, more.dump().c_str());
        }
        QCOMPARE(rule.value().notes().isEmpty(), exact);
        QCOMPARE(QString::fromStdString(rule.value().toJson().value("decision", "")), QStringLiteral("deny"));
        QCOMPARE(QString::fromStdString(rule.value().toJson().value("reason", "")),
                 QStringLiteral("declined twice"));
    }
    void forCall_theExactRuleText()
    {
        auto rule = DenyRule::forCall(QStringLiteral("run_command"),
                                      {{"argv", {"rm", "-rf", "/tmp/*"}}, {"cwd", "/src"}, {"n", 2}}, {});
        QVERIFY(rule.ok());
        QCOMPARE_JSON(rule.value().toJson(), json({{"tool", "run_command"},
                                                   {"arguments", {{"cwd", "/src"}, {"n", "2"}}},
                                                   {"argvPrefix", {"rm", "-rf", "/tmp/?"}},
                                                   {"decision", "deny"}}));
        QCOMPARE(rule.value().notes().size(), 2); // the * in argv, and argv as a prefix
        QCOMPARE(DenyRule::literalGlob(QStringLiteral("a*b?c")), QStringLiteral("a?b?c"));
    }
    void forCall_whatCannotBePinned_isRefused_data()
    {
        QTest::addColumn<QString>("tool");
        QTest::addColumn<json>("arguments");
        QTest::newRow("only a list") << QStringLiteral("edit_file") << json{{"edits", {1, 2}}};
        QTest::newRow("only a control character") << QStringLiteral("t") << json{{"a", "x\x01y"}};
        QTest::newRow("only a long text") << QStringLiteral("t") << json{{"a", std::string(5000, 'x')}};
        QTest::newRow("argv starting with a line break") << QStringLiteral("t") << json{{"argv", {"\nrm"}}};
        QTest::newRow("a tool name with a line break") << QStringLiteral("t\nx") << json{{"a", "b"}};
        QTest::newRow("no tool name") << QString() << json{{"a", "b"}};
    }
    void forCall_whatCannotBePinned_isRefused()
    {
        QFETCH(QString, tool);
        QFETCH(json, arguments);
        auto rule = DenyRule::forCall(tool, arguments, {});
        QVERIFY(!rule.ok());
        QVERIFY(!rule.error().isEmpty());
    }
    void forTarget_deniesTheToolOnTheTarget_whateverElse()
    {
        auto rule = DenyRule::forTarget(QStringLiteral("delete_service"), QStringLiteral("web-1"),
                                        {{"force", true}, {"service", "web-1"}}, QStringLiteral("r"));
        QVERIFY(rule.ok());
        QCOMPARE_JSON(rule.value().toJson(), json({{"tool", "delete_service"},
                                                   {"arguments", {{"service", "web-1"}}},
                                                   {"decision", "deny"},
                                                   {"reason", "r"}}));
        QCOMPARE(verdictOf(rule.value(), QStringLiteral("delete_service"), {{"service", "web-1"}}),
                 Verdict::Deny);
        QCOMPARE(verdictOf(rule.value(), QStringLiteral("delete_service"), {{"service", "web-2"}}),
                 Verdict::Ask);
        QCOMPARE(verdictOf(rule.value(), QStringLiteral("restart_service"), {{"service", "web-1"}}),
                 Verdict::Ask);
        // The plan names a target no argument holds: no rule can single it out.
        auto derived = DenyRule::forTarget(QStringLiteral("delete_file"), QStringLiteral("/home/me/a.txt"),
                                           {{"path", "a.txt"}}, {});
        QVERIFY(!derived.ok());
        QVERIFY(derived.error().contains(QLatin1String("deny the same call instead")));
        QVERIFY(!DenyRule::forTarget(QStringLiteral("t"), QStringLiteral("a\nb"), {{"p", "a\nb"}}, {}).ok());
    }

    void prependTo_goesFirst_keepsTheComments_andOnlyNarrows()
    {
        QTemporaryDir dir;
        const QString path = dir.filePath(QStringLiteral("config.json"));
        QVERIFY(write(path, kConfig));
        auto before = Config::load(path);
        QVERIFY(before.ok());
        const json declined = {{"service", "tmp-1"}}; // allowed by the file's rule until now
        QCOMPARE(before.value()
                     .policy()
                     .evaluate(QStringLiteral("delete_service"), declined, Verdict::Ask)
                     .verdict,
                 Verdict::Allow);
        auto rule = DenyRule::forCall(QStringLiteral("delete_service"), declined, QStringLiteral("declined"));
        QVERIFY(rule.ok());
        const Status written = rule.value().prependTo(path);
        QVERIFY2(written.ok(), qPrintable(written.ok() ? QString() : written.error()));
        const QByteArray text = read(path);
        for (const char *kept : {"// the team's configuration", "// five minutes",
                                 "/* rules: first match wins */", "\"cardMinimumSeconds\": 2"})
            QVERIFY2(text.contains(kept), text.constData());
        auto after = Config::load(path);
        QVERIFY2(after.ok(), qPrintable(after.ok() ? QString() : after.error()));
        const Policy &policy = after.value().policy();
        QCOMPARE(policy.rules().size(), 2);
        const PolicyDecision decision =
            policy.evaluate(QStringLiteral("delete_service"), declined, Verdict::Ask);
        QCOMPARE(decision.verdict, Verdict::Deny);
        QCOMPARE(decision.ruleIndex, 0);
        QCOMPARE(
            policy.evaluate(QStringLiteral("delete_service"), {{"service", "tmp-2"}}, Verdict::Ask).verdict,
            Verdict::Allow);
        QCOMPARE(after.value().cardMinimumSeconds(), 2.0);
        // What ConfigGuard judges: a narrowing, nothing widened, so it applies at once.
        const PolicyChange change = PolicyChange::compare(before.value(), after.value());
        QVERIFY(change.narrows());
        QVERIFY(!change.widens());
        // A second rule goes in front of the first.
        auto second = DenyRule::forCall(QStringLiteral("delete_service"), {{"service", "web-1"}}, {});
        QVERIFY(second.value().prependTo(path).ok());
        auto again = Config::load(path);
        QVERIFY(again.ok());
        QCOMPARE(again.value().policy().rules().size(), 3);
        QCOMPARE(again.value().policy().rules()[0].arguments.at(QStringLiteral("service")),
                 QStringLiteral("web-1"));
        QCOMPARE(again.value().policy().rules()[1].arguments.at(QStringLiteral("service")),
                 QStringLiteral("tmp-1"));
    }
    void prependTo_aMissingFile_isMade_withItsFolder()
    {
        QTemporaryDir dir;
        const QString path = dir.filePath(QStringLiteral("new/folder/config.json"));
        auto rule = DenyRule::forCall(QStringLiteral("delete_service"), {{"service", "web-1"}}, {});
        QVERIFY(rule.value().prependTo(path).ok());
        auto config = Config::load(path);
        QVERIFY2(config.ok(), qPrintable(config.ok() ? QString() : config.error()));
        QCOMPARE(config.value().policy().rules().size(), 1);
        QCOMPARE(config.value()
                     .policy()
                     .evaluate(QStringLiteral("delete_service"), {{"service", "web-1"}}, Verdict::Ask)
                     .verdict,
                 Verdict::Deny);
        QVERIFY(PolicyChange::compare(Config(), config.value()).narrows());
        QVERIFY(!PolicyChange::compare(Config(), config.value()).widens());
    }
    void prependTo_aBadOrUnwritableFile_isRefused_andLeftAsItWas()
    {
        QTemporaryDir dir;
        auto rule = DenyRule::forCall(QStringLiteral("delete_service"), {{"service", "web-1"}}, {});
        const QString bad = dir.filePath(QStringLiteral("bad.json"));
        const QByteArray badText = "{\n  \"rules\": [\n    {\"tool\": \"x\"}\n  ]\n}\n"; // no decision
        QVERIFY(write(bad, badText));
        const Status refused = rule.value().prependTo(bad);
        QVERIFY(!refused.ok());
        QVERIFY2(refused.error().contains(QLatin1String("does not read")), qPrintable(refused.error()));
        QCOMPARE(read(bad), badText);
        // A folder where a file is.
        QVERIFY(write(dir.filePath(QStringLiteral("file")), "x"));
        const Status noFolder = rule.value().prependTo(dir.filePath(QStringLiteral("file/config.json")));
        QVERIFY(!noFolder.ok());
        QVERIFY2(noFolder.error().contains(QLatin1String("cannot make the folder")),
                 qPrintable(noFolder.error()));
        QVERIFY(!rule.value().prependTo(QString()).ok());
    }
};

QTEST_GUILESS_MAIN(DenyRuleTest)
#include "denyrule_test.moc"
