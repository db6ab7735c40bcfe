// PolicyChange::compare: every kind of change that widens what runs without a human, every kind
// that narrows it, changes that do neither, and changes that do both.
#include "config.h"
#include "helperfailure.h"
#include "policychange.h"

#include <QTest>

using namespace Countersign;
using json = nlohmann::json;

namespace {

// The configuration each row starts from; a row's patches (JSON merge patches: an array given
// replaces the whole array, null removes the key) make its before and after.
const char *kBase = R"({
    "ttlSeconds": 300,
    "cardMinimumSeconds": 1,
    "workspaceRoots": ["/tmp/ws"],
    "actions": [{
        "name": "delete_service",
        "inputSchema": {"type": "object", "properties": {"service": {"type": "string"}}, "required": ["service"]},
        "plan": ["paasctl", "describe", "{service}"],
        "apply": ["paasctl", "delete", "{service}"],
        "risk": "high"
    }],
    "rules": [
        {"tool": "delete_service", "arguments": {"service": "prod-*"}, "decision": "deny"},
        {"tool": "delete_service", "arguments": {"service": "tmp-*"}, "decision": "ask"}
    ]
})";

// The base's action with some of its fields replaced.
QByteArray deleteAction(const json &changes)
{
    json action = json::parse(kBase)["actions"][0];
    action.update(changes);
    return QByteArray::fromStdString(json{{"actions", {action}}}.dump());
}

QByteArray rules(std::initializer_list<const char *> list)
{
    json array = json::array();
    for (const char *rule : list)
        array.push_back(json::parse(rule));
    return QByteArray::fromStdString(json{{"rules", array}}.dump());
}

const char *kDenyProd =
    R"({"tool": "delete_service", "arguments": {"service": "prod-*"}, "decision": "deny"})";
const char *kAskTmp = R"({"tool": "delete_service", "arguments": {"service": "tmp-*"}, "decision": "ask"})";
const char *kAllowTmp =
    R"({"tool": "delete_service", "arguments": {"service": "tmp-*"}, "decision": "allow"})";
const char *kAllowDev =
    R"({"tool": "delete_service", "arguments": {"service": "dev-*"}, "decision": "allow"})";
const char *kAllowAll = R"({"tool": "*", "decision": "allow"})";
const char *kAskAll = R"({"tool": "*", "decision": "ask"})";

Config configOf(const QByteArray &patch)
{
    json doc = json::parse(kBase);
    if (!patch.isEmpty())
        doc.merge_patch(json::parse(patch.toStdString()));
    auto config = Config::parse(QByteArray::fromStdString(doc.dump()), QStringLiteral("c.json"));
    if (!config) {
        helperFailed(QStringLiteral("bad test configuration: %1").arg(config.error()));
        return {};
    }
    return std::move(config).value();
}

QStringList texts(const QList<PolicyChangeItem> &items)
{
    QStringList lines;
    for (const PolicyChangeItem &item : items)
        lines.append(item.text());
    return lines;
}

} // namespace

class PolicyChangeTest : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void compare_listsWhatWidens_andWhatNarrows_data()
    {
        QTest::addColumn<QByteArray>("before");
        QTest::addColumn<QByteArray>("after");
        QTest::addColumn<QStringList>("widening");
        QTest::addColumn<QStringList>("narrowing");

        const QByteArray base;
        const auto list = [](std::initializer_list<const char *> items) {
            QStringList out;
            for (const char *item : items)
                out.append(QString::fromUtf8(item));
            return out;
        };

        // Widening.
        QTest::newRow("widens: a new allow rule")
            << base << rules({kDenyProd, kAskTmp, kAllowDev})
            << list({"rule tool delete_service, service=dev-*: none → allow"}) << QStringList();
        QTest::newRow("widens: an ask rule changed to allow")
            << base << rules({kDenyProd, kAllowTmp})
            << list({"rule tool delete_service, service=tmp-*: ask → allow"}) << QStringList();
        QTest::newRow("widens: a deny rule changed to allow")
            << base
            << rules(
                   {R"({"tool": "delete_service", "arguments": {"service": "prod-*"}, "decision": "allow"})",
                    kAskTmp})
            << list({"rule tool delete_service, service=prod-*: deny → allow"}) << QStringList();
        QTest::newRow("widens: a deny rule changed to ask")
            << base
            << rules({R"({"tool": "delete_service", "arguments": {"service": "prod-*"}, "decision": "ask"})",
                      kAskTmp})
            << list({"rule tool delete_service, service=prod-*: deny → ask"}) << QStringList();
        QTest::newRow("widens: a deny rule removed")
            << base << rules({kAskTmp}) << list({"rule tool delete_service, service=prod-*: deny → none"})
            << QStringList();
        QTest::newRow("widens: an ask rule removed")
            << base << rules({kDenyProd}) << list({"rule tool delete_service, service=tmp-*: ask → none"})
            << QStringList();
        QTest::newRow("widens: an allow rule moved ahead of a deny rule")
            << rules({kDenyProd, kAllowAll}) << rules({kAllowAll, kDenyProd})
            << list({"rule order: tool delete_service, service=prod-* (deny) before tool * (allow) → "
                     "tool * (allow) before tool delete_service, service=prod-* (deny)"})
            << QStringList();
        QTest::newRow("widens: a new ask rule ahead of a deny rule")
            << rules({kDenyProd}) << rules({kAskAll, kDenyProd})
            << list({"rule tool *: none → ask, ahead of a deny rule"}) << QStringList();
        QTest::newRow("widens: a new action")
            << base
            << QByteArray(R"({"actions": [)") + json::parse(kBase)["actions"][0].dump().c_str() +
                   R"(, {"name": "scale_service", "plan": ["paasctl", "show"], "apply": ["paasctl", "scale"]}]})"
            << list({"action scale_service: none → plan [\"paasctl\",\"show\"], apply "
                     "[\"paasctl\",\"scale\"], "
                     "risk high"})
            << QStringList();
        QTest::newRow("widens: a new workspace root")
            << base << QByteArray(R"({"workspaceRoots": ["/tmp/ws", "/home/me"]})")
            << list({"workspace root: none → /home/me"}) << QStringList();
        QTest::newRow("widens: a changed apply argv")
            << base << deleteAction({{"apply", json::array({"paasctl", "delete", "--force", "{service}"})}})
            << list({"action delete_service apply: [\"paasctl\",\"delete\",\"{service}\"] → "
                     "[\"paasctl\",\"delete\",\"--force\",\"{service}\"]"})
            << QStringList();
        QTest::newRow("widens: a changed plan argv")
            << base << deleteAction({{"plan", json::array({"true"})}})
            << list({"action delete_service plan: [\"paasctl\",\"describe\",\"{service}\"] → [\"true\"]"})
            << QStringList();
        QTest::newRow("widens: a changed working directory")
            << base << deleteAction({{"workingDirectory", "/"}})
            << list({"action delete_service workingDirectory: none → /"}) << QStringList();
        QTest::newRow("widens: a lower action risk")
            << base << deleteAction({{"risk", "low"}}) << list({"action delete_service risk: high → low"})
            << QStringList();
        QTest::newRow("widens: a risk level moved to client approval")
            << base << QByteArray(R"({"approval": {"low": "client"}})")
            << list({"approval for low risk: console → client"}) << QStringList();
        QTest::newRow("widens: strict mode back to standard")
            << QByteArray(R"({"mode": "strict"})") << QByteArray("{}") << list({"mode: strict → standard"})
            << QStringList();
        QTest::newRow("narrows: standard mode to strict")
            << QByteArray("{}") << QByteArray(R"({"mode": "strict"})") << QStringList()
            << list({"mode: standard → strict"});
        QTest::newRow("widens: a longer ttlSeconds") << base << QByteArray(R"({"ttlSeconds": 600})")
                                                     << list({"ttlSeconds: 300 → 600"}) << QStringList();
        QTest::newRow("widens: an unseen card waits longer")
            << base << QByteArray(R"({"cardUnseenLimitSeconds": 7200})")
            << list({"cardUnseenLimitSeconds: 3600 → 7200"}) << QStringList();
        QTest::newRow("widens: an unseen card's wait turned on again")
            << QByteArray(R"({"cardUnseenLimitSeconds": 0})") << base
            << list({"cardUnseenLimitSeconds: 0 → 3600"}) << QStringList();
        QTest::newRow("widens: a smaller cardMinimumSeconds")
            << base << QByteArray(R"({"cardMinimumSeconds": 0.5})") << list({"cardMinimumSeconds: 1 → 0.5"})
            << QStringList();

        // Narrowing.
        QTest::newRow("narrows: a new deny rule")
            << base
            << rules({R"({"tool": "*", "arguments": {"service": "staging-*"}, "decision": "deny"})",
                      kDenyProd, kAskTmp})
            << QStringList() << list({"rule tool *, service=staging-*: none → deny"});
        QTest::newRow("narrows: a new ask rule with no deny rule after it")
            << rules({kAllowDev}) << rules({kAllowDev, kAskAll}) << QStringList()
            << list({"rule tool *: none → ask"});
        QTest::newRow("narrows: an allow rule removed")
            << rules({kDenyProd, kAllowDev}) << rules({kDenyProd}) << QStringList()
            << list({"rule tool delete_service, service=dev-*: allow → none"});
        QTest::newRow("narrows: an allow rule changed to ask")
            << rules({kAllowTmp}) << rules({kAskTmp}) << QStringList()
            << list({"rule tool delete_service, service=tmp-*: allow → ask"});
        QTest::newRow("narrows: an ask rule changed to deny")
            << base
            << rules({kDenyProd,
                      R"({"tool": "delete_service", "arguments": {"service": "tmp-*"}, "decision": "deny"})"})
            << QStringList() << list({"rule tool delete_service, service=tmp-*: ask → deny"});
        QTest::newRow("narrows: a deny rule moved ahead of an allow rule")
            << rules({kAllowAll, kDenyProd}) << rules({kDenyProd, kAllowAll}) << QStringList()
            << list({"rule order: tool * (allow) before tool delete_service, service=prod-* (deny) → "
                     "tool delete_service, service=prod-* (deny) before tool * (allow)"});
        QTest::newRow("narrows: an action removed")
            << base << QByteArray(R"({"actions": []})") << QStringList()
            << list({"action delete_service: plan [\"paasctl\",\"describe\",\"{service}\"], apply "
                     "[\"paasctl\",\"delete\",\"{service}\"], risk high → none"});
        QTest::newRow("widens: the first root changed (relative paths move)")
            << QByteArray(R"({"workspaceRoots": ["/tmp/a", "/tmp/b"]})")
            << QByteArray(R"({"workspaceRoots": ["/tmp/b", "/tmp/a"]})")
            << list({"first workspace root: /tmp/a → /tmp/b"}) << QStringList();
        QTest::newRow("widens and narrows: the first root removed")
            << QByteArray(R"({"workspaceRoots": ["/tmp/a", "/tmp/b"]})")
            << QByteArray(R"({"workspaceRoots": ["/tmp/b"]})")
            << list({"first workspace root: /tmp/a → /tmp/b"}) << list({"workspace root: /tmp/a → none"});
        QTest::newRow("narrows: a workspace root removed")
            << base << QByteArray(R"({"workspaceRoots": []})") << QStringList()
            << list({"workspace root: /tmp/ws → none"});
        QTest::newRow("widens: two people no longer needed")
            << QByteArray(R"({"review": {"twoPeople": ["critical", "high"]}})")
            << QByteArray(R"({"review": {"twoPeople": ["critical"]}})")
            << list({"people approving high risk: 2 → 1"}) << QStringList();
        QTest::newRow("widens: the owner may approve again")
            << QByteArray(R"({"review": {"notOwnConnection": ["high"]}})") << base
            << list({"who may approve high risk: not the connection's owner → anyone"}) << QStringList();
        QTest::newRow("narrows: review rules added")
            << base
            << QByteArray(R"({"review": {"twoPeople": ["critical"], "notOwnConnection": ["critical"]}})")
            << QStringList()
            << list({"people approving critical risk: 1 → 2",
                     "who may approve critical risk: anyone → not the connection's owner"});
        QTest::newRow("narrows: a risk level back to console approval")
            << QByteArray(R"({"approval": {"high": "client"}})") << base << QStringList()
            << list({"approval for high risk: client → console"});
        QTest::newRow("narrows: a higher action risk")
            << deleteAction({{"risk", "medium"}}) << base << QStringList()
            << list({"action delete_service risk: medium → high"});
        QTest::newRow("narrows: a shorter ttlSeconds")
            << base << QByteArray(R"({"ttlSeconds": 60})") << QStringList() << list({"ttlSeconds: 300 → 60"});
        QTest::newRow("narrows: an unseen card counted from its making")
            << base << QByteArray(R"({"cardUnseenLimitSeconds": 0})") << QStringList()
            << list({"cardUnseenLimitSeconds: 3600 → 0"});
        QTest::newRow("narrows: an unseen card's limit under ttlSeconds changes nothing more")
            << base << QByteArray(R"({"cardUnseenLimitSeconds": 100})") << QStringList()
            << list({"cardUnseenLimitSeconds: 3600 → 100"});
        QTest::newRow("narrows: a larger cardMinimumSeconds")
            << base << QByteArray(R"({"cardMinimumSeconds": 2.5})") << QStringList()
            << list({"cardMinimumSeconds: 1 → 2.5"});

        // Neither.
        QTest::newRow("neither: unchanged") << base << base << QStringList() << QStringList();
        QTest::newRow("neither: the poll window")
            << base << QByteArray(R"({"pollWindowSeconds": 60})") << QStringList() << QStringList();
        QTest::newRow("neither: a rule's reason")
            << base
            << rules({R"({"tool": "delete_service", "arguments": {"service": "prod-*"}, "decision": "deny",
                          "reason": "production"})",
                      kAskTmp})
            << QStringList() << QStringList();
        QTest::newRow("neither: an action's title and timeout")
            << base << deleteAction({{"title", "Delete"}, {"timeoutSeconds", 10}}) << QStringList()
            << QStringList();
        QTest::newRow("neither: a root spelled with a trailing slash")
            << base << QByteArray(R"({"workspaceRoots": ["/tmp/ws/"]})") << QStringList() << QStringList();
        QTest::newRow("neither: a copy of a rule after the rule itself")
            << base << rules({kDenyProd, kAskTmp, kDenyProd}) << QStringList() << QStringList();
        QTest::newRow("neither: rules of one verdict swapped")
            << rules({kAllowTmp, kAllowDev}) << rules({kAllowDev, kAllowTmp}) << QStringList()
            << QStringList();

        // Upstreams: new or changed (judged by the worst case) widen; removed narrow.
        const QByteArray fs = R"({"upstreams": [{"name": "fs", "command": ["node", "fs.js", "/srv"]}]})";
        QTest::newRow("widens: an upstream added")
            << base << fs
            << list({"upstream fs: none → {\"command\":[\"node\",\"fs.js\",\"/srv\"],\"name\":\"fs\"}"})
            << list({});
        QTest::newRow("widens: an upstream's tool allowed")
            << fs
            << QByteArray(
                   R"({"upstreams": [{"name": "fs", "command": ["node", "fs.js", "/srv"], "tools": {"write_file": {"decision": "allow"}}}]})")
            << list({"upstream fs: {\"command\":[\"node\",\"fs.js\",\"/srv\"],\"name\":\"fs\"} → "
                     "{\"command\":[\"node\",\"fs.js\",\"/srv\"],\"name\":\"fs\",\"tools\":{\"write_file\":{"
                     "\"decision\":\"allow\"}}}"})
            << list({});
        QTest::newRow("narrows: an upstream removed")
            << fs << QByteArray(R"({"upstreams": []})") << list({})
            << list({"upstream fs: {\"command\":[\"node\",\"fs.js\",\"/srv\"],\"name\":\"fs\"} → none"});
        QTest::newRow("nothing: the same upstream") << fs << fs << list({}) << list({});

        // Both.
        QTest::newRow("both: an action replaced by another")
            << base
            << QByteArray(
                   R"({"actions": [{"name": "scale_service", "plan": ["paasctl", "show"], "apply": ["paasctl", "scale"]}]})")
            << list({"action scale_service: none → plan [\"paasctl\",\"show\"], apply "
                     "[\"paasctl\",\"scale\"], "
                     "risk high"})
            << list({"action delete_service: plan [\"paasctl\",\"describe\",\"{service}\"], apply "
                     "[\"paasctl\",\"delete\",\"{service}\"], risk high → none"});
        QTest::newRow("both: a longer TTL and a new deny rule")
            << base << QByteArray(R"({"ttlSeconds": 900, "rules": [{"tool": "*", "decision": "deny"}]})")
            << list({"rule tool delete_service, service=prod-*: deny → none",
                     "rule tool delete_service, service=tmp-*: ask → none", "ttlSeconds: 300 → 900"})
            << list({"rule tool *: none → deny"});
    }
    void compare_listsWhatWidens_andWhatNarrows()
    {
        QFETCH(QByteArray, before);
        QFETCH(QByteArray, after);
        QFETCH(QStringList, widening);
        QFETCH(QStringList, narrowing);
        const PolicyChange change = PolicyChange::compare(configOf(before), configOf(after));
        QCOMPARE(texts(change.widening()), widening);
        QCOMPARE(texts(change.narrowing()), narrowing);
        QCOMPARE(change.widens(), !widening.isEmpty());
        QCOMPARE(change.narrows(), !narrowing.isEmpty());
        QCOMPARE(change.isEmpty(), widening.isEmpty() && narrowing.isEmpty());
    }

    void toJson_givesEachItemsBeforeAndAfter()
    {
        const PolicyChange change =
            PolicyChange::compare(configOf(QByteArray(R"({"ttlSeconds": 60})")),
                                  configOf(QByteArray(R"({"ttlSeconds": 120, "workspaceRoots": []})")));
        const json expected = {
            {"widening", {{{"subject", "ttlSeconds"}, {"before", "60"}, {"after", "120"}}}},
            {"narrowing", {{{"subject", "workspace root"}, {"before", "/tmp/ws"}, {"after", "none"}}}}};
        QCOMPARE(QString::fromStdString(change.toJson().dump()), QString::fromStdString(expected.dump()));
    }
};

QTEST_GUILESS_MAIN(PolicyChangeTest)
#include "policychange_test.moc"
