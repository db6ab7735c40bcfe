// The gate's door for calls that are not MCP requests (Gate::judge: an agent's own tool through its
// hook), without sockets: a real SQLite file, the real sealer and signer, the approval queue
// deciding, a fake action that counts its runs. The answer is a judgement, never a tool result.
#include "approvalqueue.h"
#include "auditstore.h"
#include "fakeclock.h"
#include "gate.h"
#include "gatedaction.h"
#include "gatestack.h"
#include "jsoncompare.h"

#include <QTemporaryDir>
#include <QTest>

using namespace Countersign;
using json = nlohmann::json;

namespace {

class FakeAction final : public GatedAction
{
public:
    Risk risk = Risk::Medium;
    int applyRuns = 0;

    QString name() const override { return QStringLiteral("agent:shell"); }
    json descriptor() const override { return {{"name", "agent:shell"}}; }
    void plan(const json &arguments, PlanDone done) override
    {
        Plan plan;
        plan.title = QStringLiteral("Run a command");
        plan.prompt = QString::fromStdString(arguments.value("command", ""));
        plan.targets = {plan.prompt};
        plan.risk = risk;
        done(plan);
    }
    void apply(const json &, ApplyDone done) override
    {
        ++applyRuns;
        done({{"content", json::array({{{"type", "text"}, {"text", "allowed"}}})}});
    }
};

} // namespace

class GateJudgeTest : public QObject
{
    Q_OBJECT
private:
    QTemporaryDir m_dir;
    FakeClock m_clock;
    std::unique_ptr<GateStack> m_stack;
    std::shared_ptr<FakeAction> m_action = std::make_shared<FakeAction>();

    void makeGate(const json &rules = nullptr, const json &approval = nullptr)
    {
        auto policy = Policy::fromJson(rules, approval);
        QVERIFY(policy.ok());
        m_stack->rebuildGate(policy.value(), Gate::Settings{300'000, 300, QString(), 50'000});
    }
    AgentCall agentCall(const std::string &command, qint64 holdMs = 10'000) const
    {
        AgentCall call;
        call.principal = Principal{1, QStringLiteral("agent"), {}};
        call.client = QStringLiteral("claude-code (hook)");
        call.arguments = {{"command", command}};
        call.transport = Transport::Unix;
        call.holdMs = holdMs;
        return call;
    }
    // Starts a judgement; it lands in *out.
    void start(const AgentCall &call, std::shared_ptr<std::optional<Gate::Judgement>> out)
    {
        m_stack->gate().judge(m_action, call, [out](Gate::Judgement j) { *out = std::move(j); });
    }
    std::optional<Gate::Judgement> judge(const AgentCall &call)
    {
        auto out = std::make_shared<std::optional<Gate::Judgement>>();
        start(call, out);
        (void)QTest::qWaitFor([&] { return out->has_value(); }, 5000);
        return *out;
    }
    QString pendingNonce() const
    {
        const auto pending = m_stack->queue().pending();
        return pending.isEmpty() ? QString() : pending.first().nonce;
    }

private Q_SLOTS:
    void init()
    {
        auto stack = GateStack::create(
            m_clock, m_dir.filePath(QStringLiteral("judge-%1.db").arg(QTest::currentTestFunction())));
        QVERIFY(stack.ok());
        m_stack = std::move(stack).value();
        *m_action = FakeAction();
        makeGate();
    }
    void cleanup() { m_stack.reset(); }

    void allowRule_isAllowed_withNoCard_andRecorded()
    {
        makeGate(json::parse(R"([{"tool": "agent:shell", "decision": "allow"}])"));
        const auto j = judge(agentCall("make test"));
        QVERIFY(j.has_value());
        QVERIFY(j->allowed);
        QVERIFY(!j->approved);         // no human approved it: no receipt
        QCOMPARE(j->nonce.size(), 32); // its audit row
        QCOMPARE(m_action->applyRuns, 1);
        QCOMPARE(m_stack->queue().pending().size(), 0);
        auto rows = m_stack->store().report(false);
        QVERIFY(rows.ok());
        QCOMPARE(rows.value().size(), 1);
        QCOMPARE_JSON(rows.value()[0].at("decision"), json("allowed"));
        auto op = m_stack->store().storedOperation(j->nonce);
        QVERIFY(op.ok() && op.value());
        QVERIFY(op.value()->status == Operation::Status::Allowed);
    }
    void denyRule_isRefused_withTheRulesReason()
    {
        makeGate(json::parse(R"([{"tool": "agent:shell", "decision": "deny", "reason": "not here"}])"));
        const auto j = judge(agentCall("rm -rf build"));
        QVERIFY(j.has_value());
        QVERIFY(!j->allowed);
        QVERIFY2(j->words.contains(QLatin1String("not here")), qPrintable(j->words));
        QCOMPARE(m_action->applyRuns, 0);
    }
    // Asked: held on its own request while the card waits; the human's approval answers it with
    // the receipt's nonce, and the call's record names the client it came from.
    void ask_isHeld_thenApproved_withTheCardsNonce()
    {
        auto out = std::make_shared<std::optional<Gate::Judgement>>();
        start(agentCall("git reset --hard"), out);
        QTRY_VERIFY(!pendingNonce().isEmpty());
        QTest::qWait(50);
        QVERIFY(!out->has_value());
        const QString nonce = pendingNonce();
        QVERIFY(m_stack->queue().approve(nonce, QStringLiteral("console:alice")).ok());
        QTRY_VERIFY_WITH_TIMEOUT(out->has_value(), 5000);
        QVERIFY((*out)->allowed);
        QVERIFY((*out)->approved);
        QCOMPARE((*out)->nonce, nonce);
        QCOMPARE(m_action->applyRuns, 1);
        auto op = m_stack->store().operation(nonce);
        QVERIFY(op.ok() && op.value());
        QCOMPARE(op.value()->clientName(), QStringLiteral("claude-code (hook)"));
    }
    void ask_declined_isRefused_withWhoAndWhy()
    {
        auto out = std::make_shared<std::optional<Gate::Judgement>>();
        start(agentCall("git push --force"), out);
        QTRY_VERIFY(!pendingNonce().isEmpty());
        QVERIFY(m_stack->queue()
                    .decline(pendingNonce(), QStringLiteral("console:alice"), QStringLiteral("not today"))
                    .ok());
        QTRY_VERIFY_WITH_TIMEOUT(out->has_value(), 5000);
        QVERIFY(!(*out)->allowed);
        QVERIFY2((*out)->words.contains(QLatin1String("console:alice")) &&
                     (*out)->words.contains(QLatin1String("not today")),
                 qPrintable((*out)->words));
        QCOMPARE(m_action->applyRuns, 0);
    }
    // The hold ends before the client's own hook timeout: refused as still waiting, the card kept,
    // and the same call again joins it rather than stacking a second card.
    void holdLapses_refusedStillWaiting_theSameCallJoinsTheCard()
    {
        auto first = std::make_shared<std::optional<Gate::Judgement>>();
        start(agentCall("rm -rf out", 200), first);
        QTRY_COMPARE(m_stack->gate().heldCount(), 1);
        m_clock.advance(200);
        QTRY_VERIFY(first->has_value());
        QVERIFY(!(*first)->allowed);
        QVERIFY2((*first)->words.contains(QLatin1String("Make the same call again")),
                 qPrintable((*first)->words));
        QCOMPARE(m_stack->queue().pending().size(), 1);
        const QString nonce = pendingNonce();
        auto out = std::make_shared<std::optional<Gate::Judgement>>();
        start(agentCall("rm -rf out"), out);
        QTest::qWait(50);
        QCOMPARE(m_stack->queue().pending().size(), 1);
        QVERIFY(m_stack->queue().approve(nonce, QStringLiteral("console:alice")).ok());
        QTRY_VERIFY_WITH_TIMEOUT(out->has_value(), 5000);
        QVERIFY((*out)->allowed);
        QCOMPARE(m_action->applyRuns, 1);
    }
    // A card the policy sends to the client for approval cannot be asked there: this door has no
    // way to ask its client anything, so the call is refused and no card waits.
    void clientModeCard_isRefused_neverAllowed()
    {
        makeGate(nullptr, json{{"medium", "client"}});
        const auto j = judge(agentCall("make deploy"));
        QVERIFY(j.has_value());
        QVERIFY(!j->allowed);
        QVERIFY(!j->words.isEmpty());
        QCOMPARE(m_stack->queue().pending().size(), 0);
        QCOMPARE(m_action->applyRuns, 0);
    }
    void draining_refusesEveryCall()
    {
        makeGate(json::parse(R"([{"tool": "agent:shell", "decision": "allow"}])"));
        m_stack->gate().drain();
        const auto j = judge(agentCall("ls"));
        QVERIFY(j.has_value());
        QVERIFY(!j->allowed);
        QCOMPARE(m_action->applyRuns, 0);
    }
};

QTEST_GUILESS_MAIN(GateJudgeTest)
#include "gatejudge_test.moc"
