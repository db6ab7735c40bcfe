// The gate's own door (Gate::submit with a GateCall, answered with a GateOutcome), reached by a
// third door that is neither MCP nor a hook: a plain C++ caller, written here in a few lines,
// runs a call through the policy, a card, a human's approval and a signed receipt. It includes
// nothing of MCP.
#include "approvalqueue.h"
#include "auditstore.h"
#include "fakeclock.h"
#include "gate.h"
#include "gatedaction.h"
#include "gatestack.h"

#include <QTemporaryDir>
#include <QTest>

using namespace Countersign;
using json = nlohmann::json;

namespace {

// An action of the caller's own: plans a deletion, and runs it by counting.
class DropTable final : public GatedAction
{
public:
    int runs = 0;
    QString name() const override { return QStringLiteral("drop_table"); }
    json descriptor() const override { return {{"name", "drop_table"}}; }
    void plan(const json &arguments, PlanDone done) override
    {
        Plan plan;
        plan.title =
            QStringLiteral("Drop table %1").arg(QString::fromStdString(arguments.value("table", "")));
        plan.targets = {QString::fromStdString(arguments.value("table", ""))};
        plan.risk = Risk::High;
        done(plan);
    }
    void apply(const json &arguments, ApplyDone done) override
    {
        ++runs;
        done({{"content",
               json::array({{{"type", "text"}, {"text", "dropped " + arguments.value("table", "")}}})}});
    }
};

// The third door, whole: a nightly script's calls, each held on its own call while its card waits.
struct ScriptDoor final
{
    Gate &gate;
    std::shared_ptr<GatedAction> action;

    std::shared_ptr<const CardPreface> preface; // said first on its cards, when set

    std::shared_ptr<std::optional<GateOutcome>> call(const json &arguments, std::optional<json> ticket = {})
    {
        auto call =
            GateCall::of(action, arguments, Principal{7, QStringLiteral("nightly"), {}}, gate.nowMs());
        call->clientName = QStringLiteral("nightly-script");
        call->clientInfo = {{"name", "nightly-script"}};
        call->heldOnRequest = true;
        call->holdMs = 60'000;
        call->ticket = std::move(ticket);
        call->preface = preface;
        auto out = std::make_shared<std::optional<GateOutcome>>();
        gate.submit(call, [out](GateOutcome outcome) { *out = std::move(outcome); });
        return out;
    }
};

} // namespace

class GateDoorTest final : public QObject
{
    Q_OBJECT
private:
    QTemporaryDir m_dir;
    FakeClock m_clock;
    std::unique_ptr<GateStack> m_stack;
    std::shared_ptr<DropTable> m_action = std::make_shared<DropTable>();

    ScriptDoor door(const json &rules = nullptr)
    {
        auto policy = Policy::fromJson(rules, nullptr);
        if (!policy)
            qFatal("bad rules");
        m_stack->rebuildGate(policy.value(), Gate::Settings{300'000, 300, QString(), 50'000});
        return ScriptDoor{m_stack->gate(), m_action, nullptr};
    }

private Q_SLOTS:
    void init()
    {
        auto stack = GateStack::create(
            m_clock, m_dir.filePath(QStringLiteral("%1.db").arg(QTest::currentTestFunction())));
        QVERIFY(stack.ok());
        m_stack = std::move(stack).value();
        m_action->runs = 0;
    }
    void cleanup() { m_stack.reset(); }

    // Policy (no rule: ask), a card in the queue, a human's approval, one run, a signed receipt.
    void aThirdDoor_runsACallThroughPolicyCardApprovalAndReceipt()
    {
        ScriptDoor script = door();
        const auto out = script.call({{"table", "users"}});
        QTRY_COMPARE(m_stack->queue().pending().size(), 1);
        const Operation card = m_stack->queue().pending().first();
        QCOMPARE(card.plan.title, QStringLiteral("Drop table users"));
        QCOMPARE(card.clientName(), QStringLiteral("nightly-script"));
        QVERIFY(!out->has_value()); // held while the card waits
        // A high-risk card is approved by typing what it names.
        const auto approved =
            m_stack->queue().approve(card.nonce, QStringLiteral("console:alice"), card.confirmationText());
        QVERIFY2(approved.ok(), approved.ok() ? "" : qPrintable(approved.error()));
        QTRY_VERIFY_WITH_TIMEOUT(out->has_value(), 5000);
        const GateOutcome &outcome = **out;
        QCOMPARE(int(outcome.kind), int(GateOutcome::Kind::Ran));
        QVERIFY(outcome.approved);
        QVERIFY(outcome.ranOk());
        QCOMPARE(outcome.nonce, card.nonce);
        QCOMPARE(outcome.words(), QStringLiteral("dropped users"));
        QCOMPARE(m_action->runs, 1);
        const json receipt = outcome.result.at("_meta").at(ReceiptSigner::kResultMetaKey);
        QVERIFY(ReceiptSigner::verify(receipt, m_stack->signer().publicKey()).ok());
        QCOMPARE(QString::fromStdString(receipt.value("nonce", "")), card.nonce);
        // The same call again gets the one run's result, and runs nothing more.
        const auto again = script.call({{"table", "users"}});
        QTest::qWait(50);
        QCOMPARE(m_action->runs, 1);
    }

    // The user's words (CardPreface) cost a read of the agent's session record: read when a card is
    // made and only then; a call a rule lets through never reads them, and the re-plan after the
    // approval keeps the card's words rather than reading them again.
    void theUsersWords_areReadOnlyForACard_andOnce()
    {
        auto reads = std::make_shared<int>(0);
        const auto preface = [reads] {
            return std::make_shared<CardPreface>([reads] {
                ++*reads;
                return QStringLiteral("You asked: drop the users table");
            });
        };
        ScriptDoor allowed = door(json::parse(R"([{"tool": "drop_table", "decision": "allow"}])"));
        allowed.preface = preface();
        const auto ran = allowed.call({{"table", "scratch"}});
        QTRY_VERIFY(ran->has_value());
        QVERIFY((*ran)->ranOk());
        QCOMPARE(*reads, 0);

        ScriptDoor asked = door();
        asked.preface = preface();
        const auto out = asked.call({{"table", "users"}});
        QTRY_COMPARE(m_stack->queue().pending().size(), 1);
        const Operation card = m_stack->queue().pending().first();
        QCOMPARE(card.plan.request, QStringLiteral("You asked: drop the users table"));
        QCOMPARE(*reads, 1);
        QVERIFY(m_stack->queue()
                    .approve(card.nonce, QStringLiteral("console:alice"), card.confirmationText())
                    .ok());
        QTRY_VERIFY_WITH_TIMEOUT(out->has_value(), 5000);
        QVERIFY2((*out)->ranOk(), qPrintable((*out)->words()));
        QCOMPARE(*reads, 1);
    }

    void aRulesDeny_isAnOutcome_withItsWords()
    {
        ScriptDoor script =
            door(json::parse(R"([{"tool": "drop_table", "decision": "deny", "reason": "prod"}])"));
        const auto out = script.call({{"table", "users"}});
        QTRY_VERIFY(out->has_value());
        QCOMPARE(int((*out)->kind), int(GateOutcome::Kind::Denied));
        QVERIFY2((*out)->words().contains(QLatin1String("prod")), qPrintable((*out)->words()));
        QCOMPARE(m_action->runs, 0);
    }

    void aDecline_isAnOutcome_withWhoAndWhy()
    {
        ScriptDoor script = door();
        const auto out = script.call({{"table", "orders"}});
        QTRY_COMPARE(m_stack->queue().pending().size(), 1);
        QVERIFY(m_stack->queue()
                    .decline(m_stack->queue().pending().first().nonce, QStringLiteral("console:bob"),
                             QStringLiteral("not tonight"))
                    .ok());
        QTRY_VERIFY_WITH_TIMEOUT(out->has_value(), 5000);
        QCOMPARE(int((*out)->kind), int(GateOutcome::Kind::Declined));
        QCOMPARE((*out)->decision.by, QStringLiteral("console:bob"));
        QCOMPARE((*out)->decision.reason, QStringLiteral("not tonight"));
        QCOMPARE(m_action->runs, 0);
    }

    // A ticket the gate never sealed, brought back through the door: refused, nothing run.
    void aForgedTicket_isRefused()
    {
        ScriptDoor script = door();
        for (const json &forged : {json("not-a-ticket"), json(42)}) {
            const auto out = script.call({{"table", "users"}}, forged);
            QTRY_VERIFY(out->has_value());
            QCOMPARE(int((*out)->kind), int(GateOutcome::Kind::BadTicket));
        }
        QCOMPARE(m_stack->queue().pending().size(), 0);
        QCOMPARE(m_action->runs, 0);
    }
};

QTEST_GUILESS_MAIN(GateDoorTest)
#include "gatedoor_test.moc"
