// The gate end to end without sockets: a real SQLite file, the real sealer and signer, the approval
// queue deciding, a fake clock for expiry, and a fake action that counts its runs.
#include "approvalqueue.h"
#include "auditstore.h"
#include "database.h"
#include "fakeclock.h"
#include "gate.h"
#include "gatestack.h"
#include "gatedaction.h"
#include "jsoncompare.h"
#include "jsonrpc.h"
#include "receipt.h"
#include "ticketsealer.h"

#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>
#include <QTimer>

using namespace Countersign;
using json = nlohmann::json;

namespace {

// Plans from a text the test can change (drift), applies after a short delay (so concurrent retries
// overlap a run in flight) and counts every run.
class FakeAction final : public GatedAction
{
public:
    QString diff = QStringLiteral("-service web-1\n");
    Risk risk = Risk::Medium;
    int applyRuns = 0;
    int planRuns = 0;
    int applyDelayMs = 50;

    QString name() const override { return QStringLiteral("delete_service"); }
    json descriptor() const override { return {{"name", "delete_service"}}; }
    void plan(const json &arguments, PlanDone done) override
    {
        ++planRuns;
        Plan plan;
        plan.title = QStringLiteral("Delete service");
        plan.prompt =
            QStringLiteral("Delete service %1?").arg(QString::fromStdString(arguments.value("service", "")));
        plan.diff = diff;
        plan.targets = {QString::fromStdString(arguments.value("service", ""))};
        plan.risk = risk;
        done(plan);
    }
    void apply(const json &arguments, ApplyDone done) override
    {
        ++applyRuns;
        QTimer::singleShot(applyDelayMs, [done, arguments] {
            done({{"content", json::array({{{"type", "text"},
                                            {"text", "deleted " + arguments.value("service", "")}}})}});
        });
    }
};

} // namespace

class GateTest : public QObject
{
    Q_OBJECT
private:
    QTemporaryDir m_dir;
    FakeClock m_clock;
    std::unique_ptr<GateStack> m_stack;
    AuditStore *m_store = nullptr;
    const ReceiptSigner *m_signer = nullptr;
    Gate *m_gate = nullptr;
    ApprovalQueue *m_queue = nullptr;
    std::shared_ptr<FakeAction> m_actionPtr = std::make_shared<FakeAction>();
    FakeAction &m_action = *m_actionPtr;
    Principal m_principal{1, QStringLiteral("agent")};
    json m_caps = json::object();

    void makeGate(const json &rules = nullptr, const json &approval = nullptr, qint64 pollMs = 300)
    {
        auto policy = Policy::fromJson(rules, approval);
        QVERIFY2(policy.ok(), policy.ok() ? "" : qPrintable(policy.error()));
        m_stack->rebuildGate(policy.value(),
                             Gate::Settings{300'000, pollMs, QStringLiteral("http://127.0.0.1:9/approvals/")});
        m_gate = &m_stack->gate();
        m_queue = &m_stack->queue();
    }

    // Starts a call; the reply lands in *out when the gate answers.
    void start(const json &params, std::shared_ptr<std::optional<ToolReply>> out,
               const Principal *principal = nullptr)
    {
        McpRequest request;
        request.id = 1;
        request.method = QStringLiteral("tools/call");
        request.params = params;
        request.envelope.protocolVersion = QLatin1String(JsonRpc::kProtocolVersion);
        request.envelope.clientCapabilities = m_caps;
        request.envelope.clientInfo = {{"name", "test-client"}, {"version", "1"}};
        const CallContext context{principal ? *principal : m_principal, Transport::Http};
        const json arguments = params.value("arguments", json::object());
        m_gate->call(m_actionPtr, ToolCall{arguments, request.params, request, context},
                     [out](ToolReply reply) { *out = std::move(reply); });
    }
    ToolReply call(const json &params, const Principal *principal = nullptr, int timeoutMs = 5000)
    {
        auto out = std::make_shared<std::optional<ToolReply>>();
        start(params, out, principal);
        if (!QTest::qWaitFor([&] { return out->has_value(); }, timeoutMs))
            qFatal("the gate did not answer within %d ms", timeoutMs);
        return std::move(**out);
    }
    // A retry of a pending ticket: held for the poll window (300 ms on the test's clock), which
    // passes when the clock is moved, not by waiting.
    ToolReply callHeld(const json &params)
    {
        auto out = std::make_shared<std::optional<ToolReply>>();
        start(params, out);
        if (!QTest::qWaitFor([&] { return m_gate->heldCount() == 1; }, 5000))
            qFatal("the retry was not held");
        QTest::qWait(20);
        if (out->has_value())
            qFatal("the held retry answered before its window ended");
        m_clock.advance(299);
        QCoreApplication::processEvents();
        if (out->has_value())
            qFatal("the held retry answered 1 ms before its window ended");
        m_clock.advance(1);
        if (!QTest::qWaitFor([&] { return out->has_value(); }, 5000))
            qFatal("the held retry did not answer once its window ended");
        return std::move(**out);
    }
    static json params(const json &arguments, const std::optional<std::string> &state = std::nullopt)
    {
        json p = {{"name", "delete_service"}, {"arguments", arguments}};
        if (state)
            p["requestState"] = *state;
        return p;
    }
    static json result(const ToolReply &reply)
    {
        if (!std::holds_alternative<json>(reply))
            qFatal("expected a result, got protocol error %s",
                   qPrintable(std::get<ProtocolError>(reply).message));
        return std::get<json>(reply);
    }
    static ProtocolError protocolError(const ToolReply &reply)
    {
        if (!std::holds_alternative<ProtocolError>(reply))
            qFatal("expected a protocol error, got %s", std::get<json>(reply).dump().c_str());
        return std::get<ProtocolError>(reply);
    }
    static std::string text(const json &r) { return r.at("content").at(0).at("text").get<std::string>(); }

    // First pass: a card is parked and the state returned.
    std::string firstPass(const json &arguments = {{"service", "web-1"}})
    {
        const json r = result(call(params(arguments)));
        if (r.value("resultType", "") != "input_required")
            qFatal("first pass did not ask: %s", r.dump().c_str());
        return r.at("requestState").get<std::string>();
    }

private Q_SLOTS:
    void init()
    {
        QVERIFY(m_dir.isValid());
        auto stack = GateStack::create(
            m_clock, m_dir.filePath(QStringLiteral("gate-%1.db").arg(QTest::currentTestFunction())));
        QVERIFY2(stack.ok(), qPrintable(stack.ok() ? QString() : stack.error()));
        m_stack = std::move(stack).value();
        m_store = &m_stack->store();
        m_signer = &m_stack->signer();
        m_action = FakeAction();
        m_caps = json::object();
        makeGate();
    }
    void cleanup()
    {
        m_stack.reset();
    }

    void firstPass_parksCard_andAsksWithSealedState()
    {
        const std::string state = firstPass();
        QCOMPARE(m_queue->pending().size(), 1);
        const Operation card = m_queue->pending().first();
        QCOMPARE(card.tool, QStringLiteral("delete_service"));
        QCOMPARE(card.principal, QStringLiteral("agent"));
        QCOMPARE(card.clientName(), QStringLiteral("test-client"));
        QCOMPARE(card.plan.prompt, QStringLiteral("Delete service web-1?"));
        QCOMPARE(card.expiresMs - card.createdMs, 300'000);
        QVERIFY(QString::fromStdString(state).startsWith(QLatin1String("cs1.k1.")));
        QCOMPARE(m_action.applyRuns, 0);
    }
    void firstPass_withoutDeclaredUrlMode_embedsNoRequest_withUrlMode_pointsAtTheCard()
    {
        json r = result(call(params({{"service", "a"}})));
        QVERIFY(!r.contains("inputRequests"));
        m_caps = {{"elicitation", {{"url", json::object()}}}};
        r = result(call(params({{"service", "b"}})));
        const json url = r.at("inputRequests").at("approval").at("params");
        QCOMPARE_JSON(url.at("mode"), json("url"));
        QCOMPARE(QString::fromStdString(url.at("url").get<std::string>()),
                 QStringLiteral("http://127.0.0.1:9/approvals/") + m_queue->pending().first().nonce);
    }
    void approved_runsOnce_withVerifiableReceipt()
    {
        const std::string state = firstPass();
        const QString nonce = m_queue->pending().first().nonce;
        QVERIFY(m_queue->approve(nonce, QStringLiteral("console:alice")).ok());
        const json r = result(call(params({{"service", "web-1"}}, state)));
        QCOMPARE(text(r), std::string("deleted web-1"));
        QCOMPARE(m_action.applyRuns, 1);
        const json receipt = r.at("_meta").at(Gate::kReceiptMetaKey);
        QVERIFY(ReceiptSigner::verify(receipt, m_signer->publicKey()).ok());
        QCOMPARE_JSON(receipt.at("approver"), json("console:alice"));
        QCOMPARE_JSON(receipt.at("nonce"), json(nonce.toStdString()));
        QCOMPARE_JSON(receipt.at("connection"), json("agent"));
        json forged = receipt;
        forged["approver"] = "console:mallory";
        QVERIFY(!ReceiptSigner::verify(forged, m_signer->publicKey()).ok());
        // Every later retry converges on the stored result; nothing runs again.
        const json again = result(call(params({{"service", "web-1"}}, state)));
        QCOMPARE_JSON(again, r);
        QCOMPARE(m_action.applyRuns, 1);
    }
    void tamperedState_everyBitFlip_isRejected()
    {
        const std::string state = firstPass();
        QVERIFY(m_queue->approve(m_queue->pending().first().nonce, QStringLiteral("console:alice")).ok());
        // Flip each bit of a sample of positions across the whole sealed string.
        for (size_t i = 0; i < state.size(); i += 7) {
            for (int bit = 0; bit < 8; bit += 3) {
                std::string bad = state;
                bad[i] = static_cast<char>(bad[i] ^ (1 << bit));
                const ProtocolError e = protocolError(call(params({{"service", "web-1"}}, bad)));
                QCOMPARE(e.code, JsonRpc::kInvalidParams);
            }
        }
        QCOMPARE(protocolError(call(params({{"service", "web-1"}}, std::string("cs1.k1.AAAA")))).code,
                 JsonRpc::kInvalidParams);
        QCOMPARE(m_action.applyRuns, 0);
    }
    void argsSwappedAfterApproval_isRejected()
    {
        const std::string state = firstPass({{"service", "staging"}});
        QVERIFY(m_queue->approve(m_queue->pending().first().nonce, QStringLiteral("console:alice")).ok());
        const ProtocolError e = protocolError(call(params({{"service", "production"}}, state)));
        QCOMPARE(e.code, JsonRpc::kInvalidParams);
        QVERIFY(e.message.contains(QLatin1String("arguments differ")));
        QCOMPARE(m_action.applyRuns, 0);
    }
    void anotherPrincipalsTicket_isRejected()
    {
        const std::string state = firstPass();
        QVERIFY(m_queue->approve(m_queue->pending().first().nonce, QStringLiteral("console:alice")).ok());
        const Principal other{2, QStringLiteral("other-agent")};
        const ProtocolError e = protocolError(call(params({{"service", "web-1"}}, state), &other));
        QCOMPARE(e.code, JsonRpc::kInvalidParams);
        QVERIFY(e.message.contains(QLatin1String("another connection")));
        QCOMPARE(m_action.applyRuns, 0);
    }
    void foreignKeyTicket_isRejected()
    {
        TicketSealer other(TicketSealer::generateKey(), QStringLiteral("k1"));
        Ticket t;
        t.sub = QStringLiteral("agent");
        t.op = QStringLiteral("delete_service");
        t.nonce = QStringLiteral("00000000000000000000000000000000");
        t.exp = m_clock.nowMs() + 1000;
        const ProtocolError e =
            protocolError(call(params({{"service", "web-1"}}, other.seal(t).toStdString())));
        QCOMPARE(e.code, JsonRpc::kInvalidParams);
    }
    void expiry_isDecidedByTheInjectedClock()
    {
        const std::string state = firstPass();
        const QString nonce = m_queue->pending().first().nonce;
        m_clock.advance(300'001);
        const json r = result(call(params({{"service", "web-1"}}, state)));
        QVERIFY(r.value("isError", false));
        QVERIFY(QString::fromStdString(text(r)).startsWith(QLatin1String("Approval expired")));
        QCOMPARE(m_queue->pending().size(), 0); // the card left the queue
        auto d = m_store->decision(nonce);
        QVERIFY(d.ok() && d.value());
        QCOMPARE(d.value()->outcome, Operation::Status::Expired);
        // Approving an expired card is refused, and nothing runs.
        QVERIFY(!m_queue->approve(nonce, QStringLiteral("console:alice")).ok());
        QCOMPARE(m_action.applyRuns, 0);
    }
    void approvedThenRetriedAfterExpiry_isExpired()
    {
        const std::string state = firstPass();
        QVERIFY(m_queue->approve(m_queue->pending().first().nonce, QStringLiteral("console:alice")).ok());
        m_clock.advance(300'001);
        const json r = result(call(params({{"service", "web-1"}}, state)));
        QVERIFY(QString::fromStdString(text(r)).startsWith(QLatin1String("Approval expired")));
        QCOMPARE(m_action.applyRuns, 0);
    }
    void queueSweep_expiresCardsWithoutAnyRetry()
    {
        firstPass();
        m_clock.advance(300'001);
        m_queue->expireDue();
        QCOMPARE(m_queue->pending().size(), 0);
    }
    void decline_withReason_namesWhoAndWhy()
    {
        const std::string state = firstPass();
        QVERIFY(m_queue
                    ->decline(m_queue->pending().first().nonce, QStringLiteral("console:alice"),
                              QStringLiteral("wrong cluster"))
                    .ok());
        const json r = result(call(params({{"service", "web-1"}}, state)));
        QVERIFY(r.value("isError", false));
        QCOMPARE(text(r), std::string("Declined by console:alice: wrong cluster. Nothing was run."));
        QCOMPARE_JSON(r.at("structuredContent").at("reason"), json("wrong cluster"));
        QCOMPARE(m_action.applyRuns, 0);
    }
    void pending_isHeldForThePollWindow_thenAsksAgain()
    {
        const std::string state = firstPass();
        const json r = result(callHeld(params({{"service", "web-1"}}, state)));
        QCOMPARE_JSON(r.at("resultType"), json("input_required"));
        QCOMPARE_JSON(r.at("requestState"), json(state));
        QCOMPARE(m_action.applyRuns, 0);
    }
    void heldRetry_isWokenByTheDecision()
    {
        makeGate(nullptr, nullptr, 10'000);
        const std::string state = firstPass();
        const QString nonce = m_queue->pending().first().nonce;
        auto out = std::make_shared<std::optional<ToolReply>>();
        start(params({{"service", "web-1"}}, state), out);
        QTest::qWait(100);
        QVERIFY(!out->has_value());
        QCOMPARE(m_gate->heldCount(), 1);
        QElapsedTimer timer;
        timer.start();
        QVERIFY(m_queue->approve(nonce, QStringLiteral("console:alice")).ok());
        QTRY_VERIFY_WITH_TIMEOUT(out->has_value(), 2000);
        QVERIFY(timer.elapsed() < 1000); // woken, not timed out after 10 s
        QCOMPARE(text(result(**out)), std::string("deleted web-1"));
    }
    void planDrift_supersedesTheCard_andStartsAFreshOne()
    {
        const std::string state = firstPass();
        const QString oldNonce = m_queue->pending().first().nonce;
        QVERIFY(m_queue->approve(oldNonce, QStringLiteral("console:alice")).ok());
        m_action.diff = QStringLiteral("-service web-1\n-volume data-7\n"); // the world moved
        const json r = result(call(params({{"service", "web-1"}}, state)));
        QCOMPARE_JSON(r.at("resultType"), json("input_required"));
        QVERIFY(r.at("requestState").get<std::string>() != state);
        QCOMPARE(m_action.applyRuns, 0);
        QCOMPARE(m_queue->pending().size(), 1);
        const Operation fresh = m_queue->pending().first();
        QCOMPARE(fresh.supersedes, oldNonce);
        QCOMPARE(fresh.plan.diff, m_action.diff);
        auto old = m_store->operation(oldNonce);
        QCOMPARE(old.value()->status, Operation::Status::Superseded);
        // The old ticket stays dead.
        const json stale = result(call(params({{"service", "web-1"}}, state)));
        QVERIFY(QString::fromStdString(text(stale)).contains(QLatin1String("superseded")));
        QCOMPARE(m_action.applyRuns, 0);
    }
    void twentyConcurrentRetries_runExactlyOnce()
    {
        m_action.applyDelayMs = 200;
        const std::string state = firstPass();
        QVERIFY(m_queue->approve(m_queue->pending().first().nonce, QStringLiteral("console:alice")).ok());
        std::vector<std::shared_ptr<std::optional<ToolReply>>> outs;
        for (int i = 0; i < 20; ++i) {
            outs.push_back(std::make_shared<std::optional<ToolReply>>());
            start(params({{"service", "web-1"}}, state), outs.back());
        }
        for (const auto &out : outs)
            QTRY_VERIFY_WITH_TIMEOUT(out->has_value(), 5000);
        QCOMPARE(m_action.applyRuns, 1);
        const json first = result(**outs.front());
        for (const auto &out : outs)
            QCOMPARE_JSON(result(**out), first);
    }
    void drain_refusesNewCalls_letsTheRunInFlightEnd_thenIsIdle()
    {
        m_action.applyDelayMs = 200;
        const std::string state = firstPass();
        QVERIFY(m_queue->approve(m_queue->pending().first().nonce, QStringLiteral("console:alice")).ok());
        const std::string other = firstPass({{"service", "web-2"}});
        auto out = std::make_shared<std::optional<ToolReply>>();
        start(params({{"service", "web-1"}}, state), out);
        QTRY_COMPARE(m_gate->runningCount(), 1);
        QSignalSpy idle(m_gate, &Gate::idle);
        m_gate->drain();
        QCOMPARE(idle.count(), 0); // a run is in flight
        const json refused = result(call(params({{"service", "web-3"}})));
        QCOMPARE_JSON(refused.at("isError"), json(true));
        QVERIFY(QString::fromStdString(text(refused)).startsWith(QLatin1String("Countersign is quitting")));
        const json retry = result(call(params({{"service", "web-2"}}, other)));
        QCOMPARE_JSON(retry.at("isError"), json(true)); // retries too: nothing new starts
        QCOMPARE(m_queue->pending().size(), 1);
        QTRY_VERIFY(out->has_value());
        QCOMPARE(text(result(**out)), std::string("deleted web-1"));
        QCOMPARE(idle.count(), 1);
        QCOMPARE(m_gate->runningCount(), 0);
        QCOMPARE(m_action.applyRuns, 1);
    }
    void drain_aHeldRetryApprovedDuringTheQuit_startsNothing_andTheApprovalStays()
    {
        const std::string state = firstPass();
        const QString nonce = m_queue->pending().first().nonce;
        auto out = std::make_shared<std::optional<ToolReply>>();
        start(params({{"service", "web-1"}}, state), out); // held, waiting for the human
        QTRY_COMPARE(m_gate->heldCount(), 1);
        m_gate->drain();
        QVERIFY(m_queue->approve(nonce, QStringLiteral("console:alice")).ok()); // wakes the held retry
        QTRY_VERIFY(out->has_value());
        QVERIFY(
            QString::fromStdString(text(result(**out))).startsWith(QLatin1String("Countersign is quitting")));
        QCOMPARE(m_action.applyRuns, 0);
        QVERIFY(!m_store->claimOf(nonce).value());
        QCOMPARE(m_store->decision(nonce).value()->outcome, Operation::Status::Approved);
    }
    void drain_withNothingRunning_isIdleAtOnce()
    {
        QSignalSpy idle(m_gate, &Gate::idle);
        m_gate->drain();
        QCOMPARE(idle.count(), 1);
    }
    void claimWithoutFinish_afterCrash_isOutcomeUnknown_neverRerun()
    {
        const std::string state = firstPass();
        const QString nonce = m_queue->pending().first().nonce;
        QVERIFY(m_queue->approve(nonce, QStringLiteral("console:alice")).ok());
        // What a crash between claim and the end of the run leaves behind: a claim with no result,
        // and a fresh gate (a restarted process) that never saw the run.
        QVERIFY(m_store->claim(nonce).value());
        makeGate();
        const json r = result(call(params({{"service", "web-1"}}, state)));
        QVERIFY(r.value("isError", false));
        QVERIFY(QString::fromStdString(text(r)).startsWith(QLatin1String("Outcome unknown")));
        QCOMPARE(m_action.applyRuns, 0);
    }
    void denyRule_refusesWithoutCard_allowRule_runsWithoutCard()
    {
        makeGate(json::array(
            {{{"tool", "delete_*"},
              {"arguments", {{"service", "prod-*"}}},
              {"decision", "deny"},
              {"reason", "production is off limits"}},
             {{"tool", "delete_service"}, {"arguments", {{"service", "tmp-*"}}}, {"decision", "allow"}}}));
        json r = result(call(params({{"service", "prod-db"}})));
        QVERIFY(r.value("isError", false));
        QVERIFY(QString::fromStdString(text(r)).contains(QLatin1String("production is off limits")));
        QCOMPARE(m_queue->pending().size(), 0);
        r = result(call(params({{"service", "tmp-1"}})));
        QCOMPARE(text(r), std::string("deleted tmp-1"));
        QCOMPARE(m_action.applyRuns, 1);
        QCOMPARE(m_queue->pending().size(), 0);
        auto rows = m_store->report(false);
        QCOMPARE(rows.value().size(), 2);
        QCOMPARE_JSON(rows.value()[0].at("decision"), json("denied"));
        QCOMPARE_JSON(rows.value()[1].at("decision"), json("allowed"));
        QCOMPARE_JSON(rows.value()[1].at("outcome"), json("succeeded"));
    }
    void clientMode_withoutFormCapability_is32021()
    {
        makeGate(nullptr, json{{"medium", "client"}});
        const ProtocolError e = protocolError(call(params({{"service", "web-1"}})));
        QCOMPARE(e.code, JsonRpc::kMissingRequiredClientCapability);
        QCOMPARE_JSON(e.data.at("requiredCapabilities"), json({{"elicitation", {{"form", json::object()}}}}));
        QCOMPARE(m_queue->pending().size(), 0);
    }
    void clientMode_typedConfirmation_opens_wrongName_asksAgain()
    {
        makeGate(nullptr, json{{"medium", "client"}});
        m_caps = {{"elicitation", {{"form", json::object()}}}};
        const json first = result(call(params({{"service", "web-1"}})));
        QCOMPARE_JSON(first.at("inputRequests").at("confirm").at("params").at("mode"), json("form"));
        const std::string state = first.at("requestState").get<std::string>();
        json retry = params({{"service", "web-1"}}, state);
        retry["inputResponses"] = {{"confirm", {{"action", "accept"}, {"content", {{"confirm", "web-2"}}}}}};
        json r = result(call(retry));
        QCOMPARE_JSON(r.at("resultType"), json("input_required"));
        QVERIFY(r.at("inputRequests")
                    .at("confirm")
                    .at("params")
                    .at("message")
                    .get<std::string>()
                    .find("did not match") != std::string::npos);
        QCOMPARE(m_action.applyRuns, 0);
        retry["inputResponses"] = {{"confirm", {{"action", "accept"}, {"content", {{"confirm", "web-1"}}}}}};
        r = result(call(retry));
        QCOMPARE(text(r), std::string("deleted web-1"));
        QCOMPARE_JSON(r.at("_meta").at(Gate::kReceiptMetaKey).at("approver"), json("client:agent"));
    }
    void consoleMode_clientAcceptAnswer_neverOpensTheGate()
    {
        m_caps = {{"elicitation", {{"url", json::object()}, {"form", json::object()}}}};
        const std::string state = firstPass();
        json retry = params({{"service", "web-1"}}, state);
        retry["inputResponses"] = {{"approval", {{"action", "accept"}}},
                                   {"confirm", {{"action", "accept"}, {"content", {{"confirm", "web-1"}}}}}};
        const json r = result(callHeld(retry));
        QCOMPARE_JSON(r.at("resultType"), json("input_required"));
        QCOMPARE(m_action.applyRuns, 0);
    }
    void consoleVeto_beforeClientConfirmation_wins()
    {
        makeGate(nullptr, json{{"medium", "client"}});
        m_caps = {{"elicitation", json::object()}};
        const json first = result(call(params({{"service", "web-1"}})));
        QVERIFY(m_queue->decline(m_queue->pending().first().nonce, QStringLiteral("console:alice"), {}).ok());
        json retry = params({{"service", "web-1"}}, first.at("requestState").get<std::string>());
        retry["inputResponses"] = {{"confirm", {{"action", "accept"}, {"content", {{"confirm", "web-1"}}}}}};
        const json r = result(call(retry));
        QCOMPARE(text(r), std::string("Declined by console:alice. Nothing was run."));
        QCOMPARE(m_action.applyRuns, 0);
    }
    void tooManyWaitingCards_fromOneConnection_areRefused()
    {
        for (int i = 0; i < Gate::kMaxPendingPerConnection; ++i)
            firstPass({{"service", "s" + std::to_string(i)}});
        const json r = result(call(params({{"service", "one-more"}})));
        QVERIFY(r.value("isError", false));
        QVERIFY(QString::fromStdString(text(r)).contains(QLatin1String("approvals waiting")));
        const Principal other{2, QStringLiteral("other-agent")};
        QCOMPARE_JSON(result(call(params({{"service", "x"}}), &other)).at("resultType"),
                      json("input_required"));
        m_clock.advance(300'001); // expired cards no longer count
        QCOMPARE_JSON(result(call(params({{"service", "y"}}))).at("resultType"), json("input_required"));
    }
    void highRisk_needsTheTargetTyped_atTheConsole()
    {
        m_action.risk = Risk::High;
        firstPass();
        const QString nonce = m_queue->pending().first().nonce;
        QVERIFY(!m_queue->approve(nonce, QStringLiteral("console:alice")).ok());
        QVERIFY(!m_queue->approve(nonce, QStringLiteral("console:alice"), QStringLiteral("web-2")).ok());
        QVERIFY(m_queue->approve(nonce, QStringLiteral("console:alice"), QStringLiteral("web-1")).ok());
    }
    void auditChain_holdsAfterTheFlow()
    {
        const std::string state = firstPass();
        QVERIFY(m_queue
                    ->decline(m_queue->pending().first().nonce, QStringLiteral("console:alice"),
                              QStringLiteral("no"))
                    .ok());
        firstPass({{"service", "web-2"}});
        auto report = m_store->verifyChain();
        QVERIFY(report.ok());
        QCOMPARE(report.value().firstBrokenSeq, 0);
        QCOMPARE(report.value().rows, 3); // minted, declined, minted
    }
};

QTEST_GUILESS_MAIN(GateTest)
#include "gate_test.moc"
