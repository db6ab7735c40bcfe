// The gate end to end without sockets: a real SQLite file, the real sealer and signer, the approval
// queue deciding, a fake clock for expiry, and a fake action that counts its runs.
#include "approvalqueue.h"
#include "auditstore.h"
#include "database.h"
#include "fakeclock.h"
#include "gate.h"
#include "gatedaction.h"
#include "gatestack.h"
#include "helperfailure.h"
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
    Principal m_principal{1, QStringLiteral("agent"), {}};
    json m_caps = json::object();
    json m_clientInfo = {{"name", "test-client"}, {"version", "1"}};

    void makeGate(const json &rules = nullptr, const json &approval = nullptr, qint64 pollMs = 300)
    {
        auto policy = Policy::fromJson(rules, approval);
        QVERIFY2(policy.ok(), policy.ok() ? "" : qPrintable(policy.error()));
        m_stack->rebuildGate(
            policy.value(),
            Gate::Settings{300'000, pollMs, QStringLiteral("http://127.0.0.1:9/approvals/"), 50'000});
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
        if (auto refused = request.envelope.readClient(m_caps, m_clientInfo)) {
            *out = ProtocolError{JsonRpc::kInvalidParams, *refused, {}}; // as the dispatcher refuses it
            return;
        }
        const CallContext context{principal ? *principal : m_principal, Transport::Http};
        const json arguments = params.value("arguments", json::object());
        m_gate->call(m_actionPtr, ToolCall{arguments, request.params, request, context},
                     [out](ToolReply reply) { *out = std::move(reply); });
    }
    // What a 2025-era call asked its client (CallContext::elicit), and how to answer each.
    struct Asked
    {
        json params;
        std::function<void(std::optional<json>)> answer;
    };
    // Starts a 2025-era call (a session's envelope, no requestState), whose transport can ask its
    // client: each question lands in *asked.
    void startLegacy(const json &params, std::shared_ptr<std::optional<ToolReply>> out,
                     std::shared_ptr<QList<Asked>> asked, const json &progressToken = nullptr,
                     std::shared_ptr<CallCancel> task = nullptr)
    {
        McpRequest request;
        request.id = 1;
        request.method = QStringLiteral("tools/call");
        request.params = params;
        request.envelope.protocolVersion = QStringLiteral("2025-11-25");
        request.envelope.legacy = true;
        request.envelope.progressToken = progressToken;
        QVERIFY(!request.envelope.readClient(m_caps, m_clientInfo));
        const CallContext context{
            m_principal, Transport::Stdio,
            [asked](const json &question, std::function<void(std::optional<json>)> answered) {
                asked->append(Asked{question, std::move(answered)});
            }};
        CallContext withTask = context;
        if (task) { // a task's call, as the dispatcher makes it: no way to ask the client
            withTask.elicit = {};
            withTask.task = std::move(task);
        }
        const json arguments = params.value("arguments", json::object());
        m_gate->call(m_actionPtr, ToolCall{arguments, request.params, request, withTask},
                     [out](ToolReply reply) { *out = std::move(reply); });
    }
    // The gate's answer; a gate that does not answer in time is a protocol error with code 0.
    ToolReply call(const json &params, const Principal *principal = nullptr, int timeoutMs = 5000)
    {
        auto out = std::make_shared<std::optional<ToolReply>>();
        start(params, out, principal);
        if (!QTest::qWaitFor([&] { return out->has_value(); }, timeoutMs))
            return ProtocolError{
                0, QStringLiteral("the gate did not answer within %1 ms").arg(timeoutMs), {}};
        return std::move(**out);
    }
    // A retry of a pending ticket: held for the poll window (300 ms on the test's clock), which
    // passes when the clock is moved, not by waiting.
    ToolReply callHeld(const json &params)
    {
        auto out = std::make_shared<std::optional<ToolReply>>();
        start(params, out);
        const auto failed = [](const char *why) {
            return ToolReply(ProtocolError{0, QString::fromLatin1(why), {}});
        };
        if (!QTest::qWaitFor([&] { return m_gate->heldCount() == 1; }, 5000))
            return failed("the retry was not held");
        QTest::qWait(20);
        if (out->has_value())
            return failed("the held retry answered before its window ended");
        m_clock.advance(299);
        QCoreApplication::processEvents();
        if (out->has_value())
            return failed("the held retry answered 1 ms before its window ended");
        m_clock.advance(1);
        if (!QTest::qWaitFor([&] { return out->has_value(); }, 5000))
            return failed("the held retry did not answer once its window ended");
        return std::move(**out);
    }
    static json params(const json &arguments, const std::optional<std::string> &state = std::nullopt)
    {
        json p = {{"name", "delete_service"}, {"arguments", arguments}};
        if (state)
            p["requestState"] = *state;
        return p;
    }
    // The reply as a result; a protocol error (or no answer) fails the test.
    [[nodiscard]] static bool asResult(const ToolReply &reply, json &out)
    {
        if (!std::holds_alternative<json>(reply))
            return helperFailed(QStringLiteral("expected a result, got protocol error %1")
                                    .arg(std::get<ProtocolError>(reply).message));
        out = std::get<json>(reply);
        return true;
    }
    [[nodiscard]] static bool asProtocolError(const ToolReply &reply, ProtocolError &out)
    {
        if (!std::holds_alternative<ProtocolError>(reply))
            return helperFailed(QStringLiteral("expected a protocol error, got %1")
                                    .arg(QString::fromStdString(std::get<json>(reply).dump())));
        out = std::get<ProtocolError>(reply);
        if (out.code == 0)
            return helperFailed(out.message);
        return true;
    }
    // The first text block, or a description of what came instead (never throws).
    static std::string text(const json &r)
    {
        const json t = r.is_object() && r.contains("content") && r["content"].is_array() &&
                               !r["content"].empty() && r["content"][0].is_object()
                           ? r["content"][0].value("text", json())
                           : json();
        return t.is_string() ? t.get<std::string>() : "(no text content in " + r.dump() + ")";
    }
    // The reply's first text block; a protocol error fails the test.
    [[nodiscard]] static bool textOf(const ToolReply &reply, std::string &out)
    {
        json r;
        if (!asResult(reply, r))
            return false;
        out = text(r);
        return true;
    }

    // First pass: a card is parked and its requestState returned through state.
    [[nodiscard]] bool firstPass(const json &arguments = {{"service", "web-1"}}, std::string *state = nullptr)
    {
        json r;
        if (!asResult(call(params(arguments)), r))
            return false;
        if (r.value("resultType", "") != "input_required" || !r.contains("requestState") ||
            !r["requestState"].is_string())
            return helperFailed(
                QStringLiteral("first pass did not ask: %1").arg(QString::fromStdString(r.dump())));
        if (state)
            *state = r["requestState"].get<std::string>();
        return true;
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
        m_clientInfo = {{"name", "test-client"}, {"version", "1"}};
        makeGate();
    }
    void cleanup() { m_stack.reset(); }

    void firstPass_parksCard_andAsksWithSealedState()
    {
        std::string state;
        QVERIFY(firstPass({{"service", "web-1"}}, &state));
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
        json r;
        QVERIFY(asResult(call(params({{"service", "a"}})), r));
        QVERIFY(!r.contains("inputRequests"));
        m_caps = {{"elicitation", {{"url", json::object()}}}};
        QVERIFY(asResult(call(params({{"service", "b"}})), r));
        const json url = r.at("inputRequests").at("approval").at("params");
        QCOMPARE_JSON(url.at("mode"), json("url"));
        QCOMPARE(QString::fromStdString(url.at("url").get<std::string>()),
                 QStringLiteral("http://127.0.0.1:9/approvals/") + m_queue->pending().first().nonce);
    }
    void approved_runsOnce_withVerifiableReceipt()
    {
        std::string state;
        QVERIFY(firstPass({{"service", "web-1"}}, &state));
        const QString nonce = m_queue->pending().first().nonce;
        QVERIFY(m_queue->approve(nonce, QStringLiteral("console:alice")).ok());
        json r;
        QVERIFY(asResult(call(params({{"service", "web-1"}}, state)), r));
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
        json again;
        QVERIFY(asResult(call(params({{"service", "web-1"}}, state)), again));
        QCOMPARE_JSON(again, r);
        QCOMPARE(m_action.applyRuns, 1);
    }
    void tamperedState_everyBitFlip_isRejected()
    {
        std::string state;
        QVERIFY(firstPass({{"service", "web-1"}}, &state));
        QVERIFY(m_queue->approve(m_queue->pending().first().nonce, QStringLiteral("console:alice")).ok());
        // Flip each bit of a sample of positions across the whole sealed string.
        for (size_t i = 0; i < state.size(); i += 7) {
            for (int bit = 0; bit < 8; bit += 3) {
                std::string bad = state;
                bad[i] = static_cast<char>(bad[i] ^ (1 << bit));
                ProtocolError e;
                QVERIFY(asProtocolError(call(params({{"service", "web-1"}}, bad)), e));
                QCOMPARE(e.code, JsonRpc::kInvalidParams);
            }
        }
        ProtocolError foreign;
        QVERIFY(asProtocolError(call(params({{"service", "web-1"}}, std::string("cs1.k1.AAAA"))), foreign));
        QCOMPARE(foreign.code, JsonRpc::kInvalidParams);
        QCOMPARE(m_action.applyRuns, 0);
    }
    void argsSwappedAfterApproval_isRejected()
    {
        std::string state;
        QVERIFY(firstPass({{"service", "staging"}}, &state));
        QVERIFY(m_queue->approve(m_queue->pending().first().nonce, QStringLiteral("console:alice")).ok());
        ProtocolError e;
        QVERIFY(asProtocolError(call(params({{"service", "production"}}, state)), e));
        QCOMPARE(e.code, JsonRpc::kInvalidParams);
        QVERIFY(e.message.contains(QLatin1String("arguments differ")));
        QCOMPARE(m_action.applyRuns, 0);
    }
    void anotherPrincipalsTicket_isRejected()
    {
        std::string state;
        QVERIFY(firstPass({{"service", "web-1"}}, &state));
        QVERIFY(m_queue->approve(m_queue->pending().first().nonce, QStringLiteral("console:alice")).ok());
        const Principal other{2, QStringLiteral("other-agent"), {}};
        ProtocolError e;
        QVERIFY(asProtocolError(call(params({{"service", "web-1"}}, state), &other), e));
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
        ProtocolError e;
        QVERIFY(asProtocolError(call(params({{"service", "web-1"}}, other.seal(t).toStdString())), e));
        QCOMPARE(e.code, JsonRpc::kInvalidParams);
    }
    void expiry_isDecidedByTheInjectedClock()
    {
        std::string state;
        QVERIFY(firstPass({{"service", "web-1"}}, &state));
        const QString nonce = m_queue->pending().first().nonce;
        m_clock.advance(300'001);
        json r;
        QVERIFY(asResult(call(params({{"service", "web-1"}}, state)), r));
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
        std::string state;
        QVERIFY(firstPass({{"service", "web-1"}}, &state));
        QVERIFY(m_queue->approve(m_queue->pending().first().nonce, QStringLiteral("console:alice")).ok());
        m_clock.advance(300'001);
        json r;
        QVERIFY(asResult(call(params({{"service", "web-1"}}, state)), r));
        QVERIFY(QString::fromStdString(text(r)).startsWith(QLatin1String("Approval expired")));
        QCOMPARE(m_action.applyRuns, 0);
    }
    void queueSweep_expiresCardsWithoutAnyRetry()
    {
        QVERIFY(firstPass());
        m_clock.advance(300'001);
        m_queue->expireDue();
        QCOMPARE(m_queue->pending().size(), 0);
    }
    void decline_withReason_namesWhoAndWhy()
    {
        std::string state;
        QVERIFY(firstPass({{"service", "web-1"}}, &state));
        QVERIFY(m_queue
                    ->decline(m_queue->pending().first().nonce, QStringLiteral("console:alice"),
                              QStringLiteral("wrong cluster"))
                    .ok());
        json r;
        QVERIFY(asResult(call(params({{"service", "web-1"}}, state)), r));
        QVERIFY(r.value("isError", false));
        QCOMPARE(text(r), std::string("Declined by console:alice: wrong cluster. Nothing was run."));
        QCOMPARE_JSON(r.at("structuredContent").at("reason"), json("wrong cluster"));
        QCOMPARE(m_action.applyRuns, 0);
    }
    void pending_isHeldForThePollWindow_thenAsksAgain()
    {
        std::string state;
        QVERIFY(firstPass({{"service", "web-1"}}, &state));
        json r;
        QVERIFY(asResult(callHeld(params({{"service", "web-1"}}, state)), r));
        QCOMPARE_JSON(r.at("resultType"), json("input_required"));
        QCOMPARE_JSON(r.at("requestState"), json(state));
        QCOMPARE(m_action.applyRuns, 0);
    }
    void heldRetry_isWokenByTheDecision()
    {
        makeGate(nullptr, nullptr, 10'000);
        std::string state;
        QVERIFY(firstPass({{"service", "web-1"}}, &state));
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
        std::string said;
        QVERIFY(textOf(**out, said));
        QCOMPARE(said, std::string("deleted web-1"));
    }
    void planDrift_supersedesTheCard_andStartsAFreshOne()
    {
        std::string state;
        QVERIFY(firstPass({{"service", "web-1"}}, &state));
        const QString oldNonce = m_queue->pending().first().nonce;
        QVERIFY(m_queue->approve(oldNonce, QStringLiteral("console:alice")).ok());
        m_action.diff = QStringLiteral("-service web-1\n-volume data-7\n"); // the world moved
        json r;
        QVERIFY(asResult(call(params({{"service", "web-1"}}, state)), r));
        QCOMPARE_JSON(r.at("resultType"), json("input_required"));
        QVERIFY(r.at("requestState").get<std::string>() != state);
        QCOMPARE(m_action.applyRuns, 0);
        QCOMPARE(m_queue->pending().size(), 1);
        const Operation fresh = m_queue->pending().first();
        QCOMPARE(fresh.supersedes, oldNonce);
        QCOMPARE(fresh.plan.diff, m_action.diff);
        auto old = m_store->operation(oldNonce);
        QCOMPARE(old.value()->status, Operation::Status::Superseded);
        // The old ticket stays dead: a retry of it is handed the one replacement card.
        json stale;
        QVERIFY(asResult(call(params({{"service", "web-1"}}, state)), stale));
        QCOMPARE_JSON(stale.at("resultType"), json("input_required"));
        QVERIFY(stale.at("requestState").get<std::string>() != state); // a ticket for the replacement
        QCOMPARE(m_queue->pending().size(), 1);
        QCOMPARE(m_action.applyRuns, 0);
    }
    void twentyConcurrentRetries_runExactlyOnce()
    {
        m_action.applyDelayMs = 200;
        std::string state;
        QVERIFY(firstPass({{"service", "web-1"}}, &state));
        QVERIFY(m_queue->approve(m_queue->pending().first().nonce, QStringLiteral("console:alice")).ok());
        std::vector<std::shared_ptr<std::optional<ToolReply>>> outs;
        for (int i = 0; i < 20; ++i) {
            outs.push_back(std::make_shared<std::optional<ToolReply>>());
            start(params({{"service", "web-1"}}, state), outs.back());
        }
        for (const auto &out : outs)
            QTRY_VERIFY_WITH_TIMEOUT(out->has_value(), 5000);
        QCOMPARE(m_action.applyRuns, 1);
        json first;
        QVERIFY(asResult(**outs.front(), first));
        for (const auto &out : outs) {
            json each;
            QVERIFY(asResult(**out, each));
            QCOMPARE_JSON(each, first);
        }
    }
    void drain_refusesNewCalls_letsTheRunInFlightEnd_thenIsIdle()
    {
        m_action.applyDelayMs = 200;
        std::string state;
        QVERIFY(firstPass({{"service", "web-1"}}, &state));
        QVERIFY(m_queue->approve(m_queue->pending().first().nonce, QStringLiteral("console:alice")).ok());
        std::string other;
        QVERIFY(firstPass({{"service", "web-2"}}, &other));
        auto out = std::make_shared<std::optional<ToolReply>>();
        start(params({{"service", "web-1"}}, state), out);
        QTRY_COMPARE(m_gate->runningCount(), 1);
        QSignalSpy idle(m_gate, &Gate::idle);
        m_gate->drain();
        QCOMPARE(idle.count(), 0); // a run is in flight
        json refused;
        QVERIFY(asResult(call(params({{"service", "web-3"}})), refused));
        QCOMPARE_JSON(refused.at("isError"), json(true));
        QVERIFY(QString::fromStdString(text(refused)).startsWith(QLatin1String("Countersign is quitting")));
        json retry;
        QVERIFY(asResult(call(params({{"service", "web-2"}}, other)), retry));
        QCOMPARE_JSON(retry.at("isError"), json(true)); // retries too: nothing new starts
        QCOMPARE(m_queue->pending().size(), 1);
        QTRY_VERIFY(out->has_value());
        std::string said;
        QVERIFY(textOf(**out, said));
        QCOMPARE(said, std::string("deleted web-1"));
        QCOMPARE(idle.count(), 1);
        QCOMPARE(m_gate->runningCount(), 0);
        QCOMPARE(m_action.applyRuns, 1);
    }
    void drain_aHeldRetryApprovedDuringTheQuit_startsNothing_andTheApprovalStays()
    {
        std::string state;
        QVERIFY(firstPass({{"service", "web-1"}}, &state));
        const QString nonce = m_queue->pending().first().nonce;
        auto out = std::make_shared<std::optional<ToolReply>>();
        start(params({{"service", "web-1"}}, state), out); // held, waiting for the human
        QTRY_COMPARE(m_gate->heldCount(), 1);
        m_gate->drain();
        QVERIFY(m_queue->approve(nonce, QStringLiteral("console:alice")).ok()); // wakes the held retry
        QTRY_VERIFY(out->has_value());
        std::string said;
        QVERIFY(textOf(**out, said));
        QVERIFY(QString::fromStdString(said).startsWith(QLatin1String("Countersign is quitting")));
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
        std::string state;
        QVERIFY(firstPass({{"service", "web-1"}}, &state));
        const QString nonce = m_queue->pending().first().nonce;
        QVERIFY(m_queue->approve(nonce, QStringLiteral("console:alice")).ok());
        // What a crash between claim and the end of the run leaves behind: a claim with no result,
        // and a fresh gate (a restarted process) that never saw the run.
        QVERIFY(m_store->claim(nonce).value());
        makeGate();
        json r;
        QVERIFY(asResult(call(params({{"service", "web-1"}}, state)), r));
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
        json r;
        QVERIFY(asResult(call(params({{"service", "prod-db"}})), r));
        QVERIFY(r.value("isError", false));
        QVERIFY(QString::fromStdString(text(r)).contains(QLatin1String("production is off limits")));
        QCOMPARE(m_queue->pending().size(), 0);
        QVERIFY(asResult(call(params({{"service", "tmp-1"}})), r));
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
        ProtocolError e;
        QVERIFY(asProtocolError(call(params({{"service", "web-1"}})), e));
        QCOMPARE(e.code, JsonRpc::kMissingRequiredClientCapability);
        QCOMPARE_JSON(e.data.at("requiredCapabilities"), json({{"elicitation", {{"form", json::object()}}}}));
        QCOMPARE(m_queue->pending().size(), 0);
    }
    void clientMode_typedConfirmation_opens_wrongName_asksAgain()
    {
        makeGate(nullptr, json{{"medium", "client"}});
        m_caps = {{"elicitation", {{"form", json::object()}}}};
        json first;
        QVERIFY(asResult(call(params({{"service", "web-1"}})), first));
        QCOMPARE_JSON(first.at("inputRequests").at("confirm").at("params").at("mode"), json("form"));
        const std::string state = first.at("requestState").get<std::string>();
        json retry = params({{"service", "web-1"}}, state);
        retry["inputResponses"] = {{"confirm", {{"action", "accept"}, {"content", {{"confirm", "web-2"}}}}}};
        json r;
        QVERIFY(asResult(call(retry), r));
        QCOMPARE_JSON(r.at("resultType"), json("input_required"));
        QVERIFY(r.at("inputRequests")
                    .at("confirm")
                    .at("params")
                    .at("message")
                    .get<std::string>()
                    .find("did not match") != std::string::npos);
        QCOMPARE(m_action.applyRuns, 0);
        retry["inputResponses"] = {{"confirm", {{"action", "accept"}, {"content", {{"confirm", "web-1"}}}}}};
        QVERIFY(asResult(call(retry), r));
        QCOMPARE(text(r), std::string("deleted web-1"));
        QCOMPARE_JSON(r.at("_meta").at(Gate::kReceiptMetaKey).at("approver"), json("client:agent"));
    }
    void consoleMode_clientAcceptAnswer_neverOpensTheGate()
    {
        m_caps = {{"elicitation", {{"url", json::object()}, {"form", json::object()}}}};
        std::string state;
        QVERIFY(firstPass({{"service", "web-1"}}, &state));
        json retry = params({{"service", "web-1"}}, state);
        retry["inputResponses"] = {{"approval", {{"action", "accept"}}},
                                   {"confirm", {{"action", "accept"}, {"content", {{"confirm", "web-1"}}}}}};
        json r;
        QVERIFY(asResult(callHeld(retry), r));
        QCOMPARE_JSON(r.at("resultType"), json("input_required"));
        QCOMPARE(m_action.applyRuns, 0);
    }
    // A 2025-era call of a client-mode tool: the form is asked on the held call; a wrong name is
    // asked again with the notice, the right one approves and the held call returns the result.
    void legacy_clientMode_formIsAsked_wrongNameAskedAgain_rightNameRunsOnce()
    {
        makeGate(nullptr, json{{"medium", "client"}});
        m_caps = {{"elicitation", {{"form", json::object()}}}};
        auto out = std::make_shared<std::optional<ToolReply>>();
        auto asked = std::make_shared<QList<Asked>>();
        startLegacy(params({{"service", "web-1"}}), out, asked);
        QTRY_COMPARE(asked->size(), 1);
        QCOMPARE_JSON(asked->at(0).params.at("mode"), json("form"));
        QVERIFY(asked->at(0).params.at("message").get<std::string>().find("Type \"web-1\"") !=
                std::string::npos);
        QCOMPARE(m_gate->heldCount(), 1);
        asked->at(0).answer(json{{"action", "accept"}, {"content", {{"confirm", "web-2"}}}});
        QTRY_COMPARE(asked->size(), 2);
        QVERIFY(asked->at(1).params.at("message").get<std::string>().find("did not match") !=
                std::string::npos);
        QVERIFY(!out->has_value());
        QCOMPARE(m_action.applyRuns, 0);
        asked->at(1).answer(json{{"action", "accept"}, {"content", {{"confirm", "web-1"}}}});
        QTRY_VERIFY(out->has_value());
        json r;
        QVERIFY(asResult(std::move(**out), r));
        QCOMPARE(text(r), std::string("deleted web-1"));
        QCOMPARE_JSON(r.at("_meta").at(Gate::kReceiptMetaKey).at("approver"), json("client:agent"));
        QCOMPARE(m_action.applyRuns, 1);
    }
    // Typed wrong three times: asked no more; the card still waits for the window.
    void legacy_clientMode_threeWrongNames_stopAsking()
    {
        makeGate(nullptr, json{{"medium", "client"}});
        m_caps = {{"elicitation", {{"form", json::object()}}}};
        auto out = std::make_shared<std::optional<ToolReply>>();
        auto asked = std::make_shared<QList<Asked>>();
        startLegacy(params({{"service", "web-1"}}), out, asked);
        for (int round = 0; round < Gate::kConfirmRounds; ++round) {
            QTRY_COMPARE(asked->size(), round + 1);
            asked->at(round).answer(json{{"action", "accept"}, {"content", {{"confirm", "nope"}}}});
        }
        QTest::qWait(50);
        QCOMPARE(asked->size(), Gate::kConfirmRounds);
        QCOMPARE(m_queue->pending().size(), 1);
        QVERIFY(!out->has_value());
        QCOMPARE(m_action.applyRuns, 0);
    }
    // A console-mode tool: the card's URL is asked; the client's accept decides nothing (the human
    // decides in the window), an error answer neither; the window's approval then runs it once.
    void legacy_consoleMode_urlIsAsked_acceptDecidesNothing()
    {
        m_caps = {{"elicitation", {{"url", json::object()}, {"form", json::object()}}}};
        auto out = std::make_shared<std::optional<ToolReply>>();
        auto asked = std::make_shared<QList<Asked>>();
        startLegacy(params({{"service", "web-1"}}), out, asked);
        QTRY_COMPARE(asked->size(), 1);
        const QString nonce = m_queue->pending().first().nonce;
        QCOMPARE_JSON(asked->at(0).params.at("mode"), json("url"));
        QCOMPARE_JSON(asked->at(0).params.at("url"),
                      json("http://127.0.0.1:9/approvals/" + nonce.toStdString()));
        QCOMPARE_JSON(asked->at(0).params.at("elicitationId"), json(nonce.toStdString()));
        asked->at(0).answer(json{{"action", "accept"}, {"content", {{"confirm", "web-1"}}}});
        asked->at(0).answer(std::nullopt);
        QTest::qWait(50);
        QVERIFY(!out->has_value());
        QCOMPARE(m_queue->pending().size(), 1);
        QCOMPARE(m_action.applyRuns, 0);
        QVERIFY(m_queue->approve(nonce, QStringLiteral("console:alice")).ok());
        QTRY_VERIFY(out->has_value());
        json r;
        QVERIFY(asResult(std::move(**out), r));
        QCOMPARE(text(r), std::string("deleted web-1"));
        QCOMPARE(m_action.applyRuns, 1);
    }
    // Whatever the client answers the card's URL (Codex declines at once, headless Claude Code
    // cancels), a console-mode card stays with the human: the call is still held, and the
    // window's decision answers it.
    void legacy_consoleMode_clientAnswer_leavesTheCardToTheHuman_data()
    {
        QTest::addColumn<QString>("action");
        QTest::newRow("decline") << QStringLiteral("decline");
        QTest::newRow("cancel") << QStringLiteral("cancel");
        QTest::newRow("accept") << QStringLiteral("accept");
    }
    void legacy_consoleMode_clientAnswer_leavesTheCardToTheHuman()
    {
        QFETCH(QString, action);
        m_caps = {{"elicitation", {{"url", json::object()}}}};
        auto out = std::make_shared<std::optional<ToolReply>>();
        auto asked = std::make_shared<QList<Asked>>();
        startLegacy(params({{"service", "web-1"}}), out, asked);
        QTRY_COMPARE(asked->size(), 1);
        asked->at(0).answer(json{{"action", action.toStdString()}});
        QTest::qWait(50);
        QVERIFY(!out->has_value());
        QCOMPARE(m_gate->heldCount(), 1);
        QCOMPARE(m_queue->pending().size(), 1);
        const QString nonce = m_queue->pending().first().nonce;
        auto stored = m_store->decision(nonce);
        QVERIFY(stored.ok() && !stored.value());
        QVERIFY(m_queue->approve(nonce, QStringLiteral("console:alice")).ok());
        QTRY_VERIFY(out->has_value());
        json r;
        QVERIFY(asResult(std::move(**out), r));
        QCOMPARE(text(r), std::string("deleted web-1"));
        QCOMPARE_JSON(r.at("_meta").at(Gate::kReceiptMetaKey).at("approver"), json("console:alice"));
        QCOMPARE(m_action.applyRuns, 1);
    }
    // The same over 2026-07-28: a retry bringing the client's decline or cancel of the URL
    // request is held like any retry, and the card stays pending.
    void consoleMode_clientDeclineOrCancel_decidesNothing_data()
    {
        QTest::addColumn<QString>("action");
        QTest::newRow("decline") << QStringLiteral("decline");
        QTest::newRow("cancel") << QStringLiteral("cancel");
    }
    void consoleMode_clientDeclineOrCancel_decidesNothing()
    {
        QFETCH(QString, action);
        m_caps = {{"elicitation", {{"url", json::object()}}}};
        std::string state;
        QVERIFY(firstPass({{"service", "web-1"}}, &state));
        json retry = params({{"service", "web-1"}}, state);
        retry["inputResponses"] = {{"approval", {{"action", action.toStdString()}}}};
        json r;
        QVERIFY(asResult(callHeld(retry), r));
        QCOMPARE_JSON(r.at("resultType"), json("input_required"));
        QCOMPARE(m_queue->pending().size(), 1);
        QVERIFY(m_queue->approve(m_queue->pending().first().nonce, QStringLiteral("console:alice")).ok());
        QVERIFY(asResult(call(params({{"service", "web-1"}}, state)), r));
        QCOMPARE(text(r), std::string("deleted web-1"));
        QCOMPARE(m_action.applyRuns, 1);
    }
    // A client that answers the card's prompt faster than a person could (headless Claude Code's
    // cancel) answers on its own: the card notes it, and its next cards carry no prompt; an answer
    // that took a person's time, or another client, keeps the prompt.
    void selfAnsweringClient_isNotPromptedAgain_theCardNotesItsAnswer()
    {
        m_caps = {{"elicitation", {{"url", json::object()}}}};
        std::string state;
        json r;
        QVERIFY(asResult(call(params({{"service", "slow"}})), r));
        QVERIFY(r.contains("inputRequests"));
        state = r.at("requestState").get<std::string>();
        m_clock.advance(Gate::kSelfAnswerMs); // a person's answer
        json retry = params({{"service", "slow"}}, state);
        retry["inputResponses"] = {{"approval", {{"action", "decline"}}}};
        QVERIFY(asResult(callHeld(retry), r));
        QVERIFY(asResult(call(params({{"service", "web-1"}})), r));
        QVERIFY2(r.contains("inputRequests"), "an answer after a person's time keeps the prompt");
        state = r.at("requestState").get<std::string>();
        retry = params({{"service", "web-1"}}, state);
        retry["inputResponses"] = {{"approval", {{"action", "cancel"}}}};
        QVERIFY(asResult(callHeld(retry), r));
        QString nonce;
        for (const Operation &op : m_queue->pending())
            if (op.arguments.value("service", "") == "web-1")
                nonce = op.nonce;
        QVERIFY2(
            m_queue->clientAnswerOf(nonce).contains(QLatin1String("\"cancel\", 0 ms after it was asked")),
            qPrintable(m_queue->clientAnswerOf(nonce)));
        QVERIFY(asResult(call(params({{"service", "web-2"}})), r));
        QCOMPARE_JSON(r.at("resultType"), json("input_required"));
        QVERIFY2(!r.contains("inputRequests"), "a client that answers on its own is not prompted again");
        m_clientInfo = {{"name", "another-client"}, {"version", "1"}};
        QVERIFY(asResult(call(params({{"service", "web-3"}})), r));
        QVERIFY2(r.contains("inputRequests"), "another client of the connection is still prompted");
        QCOMPARE(m_action.applyRuns, 0);
    }
    // The official SDKs fail a call after 10 input_required rounds with an error the model cannot
    // act on: the last round a client takes says in words to call again, and that call joins the
    // same card, whose approval it then runs.
    void modern_lastRoundTheClientTakes_saysCallAgain_andTheCallJoins()
    {
        std::string state;
        QVERIFY(firstPass({{"service", "web-1"}}, &state));
        json r;
        for (int round = 2; round < Gate::kClientRounds; ++round) {
            QVERIFY(asResult(callHeld(params({{"service", "web-1"}}, state)), r));
            QVERIFY2(r.value("resultType", "") == "input_required", qPrintable(QString::number(round)));
        }
        QVERIFY(asResult(callHeld(params({{"service", "web-1"}}, state)), r));
        QVERIFY(QString::fromStdString(text(r)).contains(QLatin1String("again with the same arguments")));
        QVERIFY(r.value("isError", false));
        QCOMPARE(m_queue->pending().size(), 1);
        QVERIFY(asResult(call(params({{"service", "web-1"}})), r)); // the model calls again
        QCOMPARE_JSON(r.at("resultType"), json("input_required"));
        QCOMPARE(m_queue->pending().size(), 1);
        state = r.at("requestState").get<std::string>();
        QVERIFY(asResult(callHeld(params({{"service", "web-1"}}, state)), r)); // rounds start again
        QCOMPARE_JSON(r.at("resultType"), json("input_required"));
        QVERIFY(m_queue->approve(m_queue->pending().first().nonce, QStringLiteral("console:alice")).ok());
        QVERIFY(asResult(call(params({{"service", "web-1"}}, state)), r));
        QCOMPARE(text(r), std::string("deleted web-1"));
        QCOMPARE(m_action.applyRuns, 1);
    }
    // Codex in its 2026 mode declares URL mode but fails every call with a URL request: it gets
    // requestState-only rounds. A 2026 call whose client never comes back is abandoned at the TTL.
    void codex2026_getsNoUrlRound_andItsCardIsAbandonedWhenItNeverReturns()
    {
        m_caps = {{"elicitation", {{"url", json::object()}, {"form", json::object()}}}};
        m_clientInfo = {{"name", "codex-mcp-client"}, {"title", "Codex"}, {"version", "0.169.0"}};
        json r;
        QVERIFY(asResult(call(params({{"service", "web-1"}})), r));
        QCOMPARE_JSON(r.at("resultType"), json("input_required"));
        QVERIFY(!r.contains("inputRequests"));
        const QString nonce = m_queue->pending().first().nonce;
        QCOMPARE(m_queue->agentOf(nonce), ApprovalQueue::Agent::Waiting); // within a retry interval
        m_clock.advance(ApprovalQueue::kWaitingGraceMs);
        QCOMPARE(m_queue->agentOf(nonce), ApprovalQueue::Agent::Gone);
        m_clock.advance(300'000);
        m_queue->expireDue();
        QCOMPARE(m_store->operation(nonce).value()->status, Operation::Status::Abandoned);
    }
    // Copilot CLI speaks 2026-07-28 but fails a call on any input_required result: its call is
    // held on its own request for the human, and answered with the decision as a CallToolResult.
    void copilot2026_isHeldOnItsOwnRequest_andNeverGetsInputRequired()
    {
        m_caps = {{"elicitation", {{"url", json::object()}, {"form", json::object()}}}};
        m_clientInfo = {{"name", "copilot-cli"}, {"version", "1.0.102"}};
        for (const char *service : {"web-1", "web-2"}) {
            auto out = std::make_shared<std::optional<ToolReply>>();
            start(params({{"service", service}}), out);
            QTRY_COMPARE(m_queue->pending().size(), 1);
            QTest::qWait(50);
            QVERIFY2(!out->has_value(), "held while the card waits");
            const QString nonce = m_queue->pending().first().nonce;
            if (std::string(service) == "web-1")
                QVERIFY(m_queue->approve(nonce, QStringLiteral("console:alice")).ok());
            else
                QVERIFY(
                    m_queue->decline(nonce, QStringLiteral("console:alice"), QStringLiteral("not now")).ok());
            QTRY_VERIFY(out->has_value());
            json r;
            QVERIFY(asResult(**out, r));
            QVERIFY(r.value("resultType", "") != "input_required");
            QVERIFY(!r.contains("inputRequests"));
            if (std::string(service) == "web-1")
                QCOMPARE(text(r), std::string("deleted web-1"));
            else
                QVERIFY(QString::fromStdString(text(r)).contains(
                    QLatin1String("Declined by console:alice: not now")));
        }
        QCOMPARE(m_action.applyRuns, 1);
    }
    // Declined, the words reach a model that reads only the structured result (Codex does).
    void declined_structuredContentCarriesTheWords()
    {
        std::string state;
        QVERIFY(firstPass({{"service", "web-1"}}, &state));
        QVERIFY(m_queue
                    ->decline(m_queue->pending().first().nonce, QStringLiteral("console:alice"),
                              QStringLiteral("not on a Friday"))
                    .ok());
        json r;
        QVERIFY(asResult(call(params({{"service", "web-1"}}, state)), r));
        QCOMPARE_JSON(r.at("structuredContent").at("message"),
                      json("Declined by console:alice: not on a Friday. Nothing was run."));
    }
    // A client that drops the round with the prompt (Codex in its 2026 mode fails the call on a URL
    // request) and calls again fresh is not prompted again: it gets a round it can take.
    void clientDroppingThePromptedRound_isNotPromptedAgain()
    {
        m_caps = {{"elicitation", {{"url", json::object()}}}};
        json r;
        QVERIFY(asResult(call(params({{"service", "web-1"}})), r));
        QVERIFY(r.contains("inputRequests"));
        QVERIFY(asResult(call(params({{"service", "web-1"}})), r)); // joins the card, fresh
        QCOMPARE_JSON(r.at("resultType"), json("input_required"));
        QVERIFY2(!r.contains("inputRequests"), "no prompt for a client that dropped one");
        QCOMPARE(m_queue->pending().size(), 1);
        QVERIFY(asResult(call(params({{"service", "web-2"}})), r));
        QVERIFY(!r.contains("inputRequests"));
        // Its next call with the ticket is held and run by the human's approval as any.
        const std::string state = r.at("requestState").get<std::string>();
        QString nonce;
        for (const Operation &op : m_queue->pending())
            if (op.arguments.value("service", "") == "web-2")
                nonce = op.nonce;
        QVERIFY(m_queue->approve(nonce, QStringLiteral("console:alice")).ok());
        QVERIFY(asResult(call(params({{"service", "web-2"}}, state)), r));
        QCOMPARE(text(r), std::string("deleted web-2"));
    }
    // The same for a 2025-era call: the URL asked on the held call, declined at once; the next
    // held call of that client is asked nothing.
    void legacy_selfAnsweringClient_isNotAskedAgain()
    {
        m_caps = {{"elicitation", {{"url", json::object()}}}};
        auto out = std::make_shared<std::optional<ToolReply>>();
        auto asked = std::make_shared<QList<Asked>>();
        startLegacy(params({{"service", "a"}}), out, asked);
        QTRY_COMPARE(asked->size(), 1);
        asked->at(0).answer(json{{"action", "decline"}});
        auto second = std::make_shared<std::optional<ToolReply>>();
        startLegacy(params({{"service", "b"}}), second, asked);
        QTRY_COMPARE(m_gate->heldCount(), 2);
        QTest::qWait(50);
        QCOMPARE(asked->size(), 1);
    }
    // A client-mode tool's form is that tool's approval: the client's decline declines it, but a
    // cancel (dismissed, not refused) decides nothing.
    void clientMode_clientDecline_declines_cancelDecidesNothing()
    {
        makeGate(nullptr, json{{"medium", "client"}});
        m_caps = {{"elicitation", {{"form", json::object()}}}};
        std::string state;
        QVERIFY(firstPass({{"service", "web-1"}}, &state));
        json retry = params({{"service", "web-1"}}, state);
        retry["inputResponses"] = {{"confirm", {{"action", "cancel"}}}};
        json r;
        QVERIFY(asResult(callHeld(retry), r));
        QCOMPARE_JSON(r.at("resultType"), json("input_required"));
        QCOMPARE(m_queue->pending().size(), 1);
        retry["inputResponses"] = {{"confirm", {{"action", "decline"}}}};
        QVERIFY(asResult(call(retry), r));
        QCOMPARE(text(r), std::string("Declined by client:agent: declined in the client. Nothing was run."));
        QCOMPARE(m_queue->pending().size(), 0);
        QCOMPARE(m_action.applyRuns, 0);
    }
    // Approved after the agent stopped waiting (a 2026 client that gave up its rounds): the
    // agent's next identical call, without the ticket, runs the approved card once, with its
    // receipt, instead of making a new card; a call after that gets a new card.
    void approvedWhileNoCallWaits_nextIdenticalCall_runsIt()
    {
        QVERIFY(firstPass({{"service", "web-1"}}));
        const QString nonce = m_queue->pending().first().nonce;
        QVERIFY(m_queue->approve(nonce, QStringLiteral("console:alice")).ok());
        json r;
        QVERIFY(asResult(call(params({{"service", "web-1"}})), r));
        QCOMPARE(text(r), std::string("deleted web-1"));
        QCOMPARE_JSON(r.at("_meta").at(Gate::kReceiptMetaKey).at("nonce"), json(nonce.toStdString()));
        QCOMPARE(m_action.applyRuns, 1);
        QCOMPARE(m_queue->pending().size(), 0);
        QVERIFY(asResult(call(params({{"service", "web-1"}})), r));
        QCOMPARE_JSON(r.at("resultType"), json("input_required"));
        QCOMPARE(m_queue->pending().size(), 1);
        QCOMPARE(m_action.applyRuns, 1);
    }
    // The same for a 2025-era call: held, answered "still waiting" at the hold limit, approved
    // before the agent calls again; the next call runs it. Another connection's identical call,
    // or a different argument, never does.
    void legacy_approvedBetweenHoldLimitAndNextCall_nextCallRunsIt()
    {
        m_stack->rebuildGate(
            Policy::fromJson(nullptr, nullptr).value(),
            Gate::Settings{300'000, 300, QStringLiteral("http://127.0.0.1:9/approvals/"), 500});
        m_gate = &m_stack->gate();
        m_queue = &m_stack->queue();
        auto out = std::make_shared<std::optional<ToolReply>>();
        auto asked = std::make_shared<QList<Asked>>();
        startLegacy(params({{"service", "web-1"}}), out, asked);
        QTRY_COMPARE(m_gate->heldCount(), 1);
        m_clock.advance(500);
        QTRY_VERIFY(out->has_value());
        std::string said;
        QVERIFY(textOf(**out, said));
        QVERIFY(QString::fromStdString(said).contains(QLatin1String("same arguments")));
        const QString nonce = m_queue->pending().first().nonce;
        QVERIFY(m_queue->approve(nonce, QStringLiteral("console:alice")).ok());
        // Not another connection's call, nor other arguments.
        const Principal other{2, QStringLiteral("other"), {}};
        json r;
        QVERIFY(asResult(call(params({{"service", "web-1"}}), &other), r));
        QCOMPARE_JSON(r.at("resultType"), json("input_required"));
        QVERIFY(asResult(call(params({{"service", "web-2"}})), r));
        QCOMPARE_JSON(r.at("resultType"), json("input_required"));
        QCOMPARE(m_action.applyRuns, 0);
        out->reset();
        startLegacy(params({{"service", "web-1"}}), out, asked);
        QTRY_VERIFY(out->has_value());
        QVERIFY(asResult(std::move(**out), r));
        QCOMPARE(text(r), std::string("deleted web-1"));
        QCOMPARE_JSON(r.at("_meta").at(Gate::kReceiptMetaKey).at("nonce"), json(nonce.toStdString()));
        QCOMPARE(m_action.applyRuns, 1);
    }
    // A 2025-era call that gets progress notes (it sent a progress token) is held for the progress
    // hold; one that gets none, for the legacy hold.
    void legacy_withProgress_isHeldForTheProgressHold()
    {
        m_stack->rebuildGate(
            Policy::fromJson(nullptr, nullptr).value(),
            Gate::Settings{300'000, 300, QStringLiteral("http://127.0.0.1:9/approvals/"), 500, 2000});
        m_gate = &m_stack->gate();
        m_queue = &m_stack->queue();
        auto quiet = std::make_shared<std::optional<ToolReply>>();
        auto patient = std::make_shared<std::optional<ToolReply>>();
        auto asked = std::make_shared<QList<Asked>>();
        startLegacy(params({{"service", "quiet"}}), quiet, asked);
        startLegacy(params({{"service", "patient"}}), patient, asked, json(7));
        QTRY_COMPARE(m_gate->heldCount(), 2);
        m_clock.advance(500);
        QTRY_VERIFY(quiet->has_value());
        QTest::qWait(20);
        QVERIFY(!patient->has_value());
        m_clock.advance(1499);
        QTest::qWait(20);
        QVERIFY(!patient->has_value());
        m_clock.advance(1);
        QTRY_VERIFY(patient->has_value());
        std::string said;
        QVERIFY(textOf(**patient, said));
        QVERIFY(QString::fromStdString(said).contains(QLatin1String("same arguments")));
    }
    // A 2025-11-25 task's call is held past both hold limits, until its ticket expires (its
    // client polls the task, not this request); decided meanwhile, it is answered at once.
    void legacy_task_isHeldUntilTheTicketExpires()
    {
        m_stack->rebuildGate(
            Policy::fromJson(nullptr, nullptr).value(),
            Gate::Settings{10'000, 300, QStringLiteral("http://127.0.0.1:9/approvals/"), 500, 2000});
        m_gate = &m_stack->gate();
        m_queue = &m_stack->queue();
        auto out = std::make_shared<std::optional<ToolReply>>();
        auto asked = std::make_shared<QList<Asked>>();
        startLegacy(params({{"service", "task"}}), out, asked, json(7), std::make_shared<CallCancel>());
        QTRY_COMPARE(m_gate->heldCount(), 1);
        QVERIFY(asked->isEmpty()); // a task's request was answered already: nothing to ask on
        m_clock.advance(9'999);
        QTest::qWait(20);
        QVERIFY(!out->has_value());
        m_clock.advance(1);
        QTRY_VERIFY(out->has_value());
        std::string said;
        QVERIFY(textOf(**out, said));
        QVERIFY2(QString::fromStdString(said).contains(QLatin1String("expired")), said.c_str());
        QCOMPARE(m_action.applyRuns, 0);
    }
    // tasks/cancel ends the hold at once with nothing run, and decides nothing: the card waits,
    // and approved, it waits for the next identical call, which runs it once.
    void legacy_task_cancelled_endsItsHold_runsNothing_cardWaits()
    {
        auto out = std::make_shared<std::optional<ToolReply>>();
        auto asked = std::make_shared<QList<Asked>>();
        auto task = std::make_shared<CallCancel>();
        startLegacy(params({{"service", "web-1"}}), out, asked, nullptr, task);
        QTRY_COMPARE(m_gate->heldCount(), 1);
        const QString nonce = m_queue->pending().first().nonce;
        task->cancel();
        QTRY_VERIFY(out->has_value());
        QCOMPARE(m_gate->heldCount(), 0);
        std::string said;
        QVERIFY(textOf(**out, said));
        QVERIFY2(QString::fromStdString(said).contains(QLatin1String("cancelled")), said.c_str());
        QCOMPARE(m_queue->pending().size(), 1);
        QVERIFY(m_queue->approve(nonce, QStringLiteral("console:alice")).ok());
        QTest::qWait(50);
        QCOMPARE(m_action.applyRuns, 0);
        auto again = std::make_shared<std::optional<ToolReply>>();
        startLegacy(params({{"service", "web-1"}}), again, asked);
        QTRY_VERIFY(again->has_value());
        QVERIFY(textOf(**again, said));
        QCOMPARE(said, std::string("deleted web-1"));
        QCOMPARE(m_action.applyRuns, 1);
    }
    // A 2026-07-28 round whose transport sends progress notes (a progress token) is held for the
    // progress hold rather than the poll window.
    void roundWithProgress_isHeldForTheProgressHold()
    {
        m_stack->rebuildGate(
            Policy::fromJson(nullptr, nullptr).value(),
            Gate::Settings{300'000, 300, QStringLiteral("http://127.0.0.1:9/approvals/"), 500, 2000});
        m_gate = &m_stack->gate();
        m_queue = &m_stack->queue();
        std::string state;
        QVERIFY(firstPass({{"service", "web-1"}}, &state));
        McpRequest request;
        request.id = 2;
        request.method = QStringLiteral("tools/call");
        request.params = params({{"service", "web-1"}}, state);
        request.envelope.protocolVersion = QLatin1String(JsonRpc::kProtocolVersion);
        request.envelope.progressToken = "p-1";
        QVERIFY(!request.envelope.readClient(m_caps, m_clientInfo));
        auto out = std::make_shared<std::optional<ToolReply>>();
        const CallContext context{m_principal, Transport::Http};
        const json arguments = request.params.at("arguments");
        m_gate->call(m_actionPtr, ToolCall{arguments, request.params, request, context},
                     [out](ToolReply reply) { *out = std::move(reply); });
        QTRY_COMPARE(m_gate->heldCount(), 1);
        m_clock.advance(1999);
        QTest::qWait(20);
        QVERIFY(!out->has_value()); // past the 300 ms poll window
        m_clock.advance(1);
        QTRY_VERIFY(out->has_value());
        json r;
        QVERIFY(asResult(**out, r));
        QCOMPARE_JSON(r.at("resultType"), json("input_required"));
    }
    // An approved card whose ticket expired is not run by a later call: that call gets a new card.
    void approvedThenExpired_nextCall_makesANewCard()
    {
        QVERIFY(firstPass({{"service", "web-1"}}));
        const QString nonce = m_queue->pending().first().nonce;
        QVERIFY(m_queue->approve(nonce, QStringLiteral("console:alice")).ok());
        m_clock.advance(300'000);
        json r;
        QVERIFY(asResult(call(params({{"service", "web-1"}})), r));
        QCOMPARE_JSON(r.at("resultType"), json("input_required"));
        QVERIFY(m_queue->pending().first().nonce != nonce);
        QCOMPARE(m_action.applyRuns, 0);
    }
    // No one decided before the TTL: "abandoned" when its agent had stopped waiting (its last
    // held call ended and none came back), "expired" while a call of its agent waited. Both are in
    // the chain, and it verifies.
    void undecidedAtTtl_agentGone_isAbandoned_agentWaiting_isExpired()
    {
        std::string state;
        QVERIFY(firstPass({{"service", "gone"}}, &state));
        const QString gone = m_queue->pending().first().nonce;
        json r;
        QVERIFY(asResult(callHeld(params({{"service", "gone"}}, state)), r)); // held, then it gave up
        QVERIFY(firstPass({{"service", "waits"}}, &state));
        QString waits;
        for (const Operation &op : m_queue->pending())
            if (op.nonce != gone)
                waits = op.nonce;
        auto held = std::make_shared<std::optional<ToolReply>>();
        start(params({{"service", "waits"}}, state), held);
        QTRY_COMPARE(m_gate->heldCount(), 1);
        QTRY_COMPARE(m_queue->agentOf(waits), ApprovalQueue::Agent::Waiting);
        m_clock.advance(300'000);
        m_queue->expireDue();
        QCOMPARE(m_store->operation(gone).value()->status, Operation::Status::Abandoned);
        QCOMPARE(m_store->decision(gone).value()->reason,
                 QStringLiteral("the ticket expired after its agent stopped waiting"));
        QCOMPARE(m_store->operation(waits).value()->status, Operation::Status::Expired);
        QTRY_VERIFY(held->has_value());
        QVERIFY(asResult(std::move(**held), r));
        QCOMPARE_JSON(r.at("structuredContent").at("decision"), json("expired"));
        auto verified = m_store->verifyChain(m_signer->publicKey());
        QVERIFY2(verified.ok() && verified.value().firstBrokenSeq == 0,
                 qPrintable(verified.ok() ? verified.value().problem : verified.error()));
        QCOMPARE(m_action.applyRuns, 0);
    }
    // Approved, but its agent never called again before the TTL: the approval times out (nothing
    // ran, nothing can run it any more), recorded in the chain; a run already claimed never does.
    void approvedNeverRun_timesOutAtTtl_aRunOneDoesNot()
    {
        std::string state;
        QVERIFY(firstPass({{"service", "lapse"}}, &state));
        const QString lapse = m_queue->pending().first().nonce;
        QVERIFY(m_queue->approve(lapse, QStringLiteral("console:alice")).ok());
        std::string ranState;
        QVERIFY(firstPass({{"service", "ran"}}, &ranState));
        const QString ran = m_queue->pending().first().nonce;
        QVERIFY(m_queue->approve(ran, QStringLiteral("console:alice")).ok());
        json r;
        QVERIFY(asResult(call(params({{"service", "ran"}}, ranState)), r));
        QCOMPARE(text(r), std::string("deleted ran"));
        m_clock.advance(299'999);
        m_queue->expireDue();
        QCOMPARE(m_store->operation(lapse).value()->status, Operation::Status::Approved);
        m_clock.advance(1);
        m_queue->expireDue();
        QCOMPARE(m_store->operation(lapse).value()->status, Operation::Status::TimedOut);
        QCOMPARE(m_store->operation(ran).value()->status, Operation::Status::Approved);
        // Neither its ticket nor a fresh identical call runs it now.
        QVERIFY(asResult(call(params({{"service", "lapse"}}, state)), r));
        QCOMPARE_JSON(r.at("structuredContent").at("decision"), json("expired"));
        QVERIFY(asResult(call(params({{"service", "lapse"}})), r));
        QCOMPARE_JSON(r.at("resultType"), json("input_required"));
        QCOMPARE(m_action.applyRuns, 1);
        auto verified = m_store->verifyChain(m_signer->publicKey());
        QVERIFY2(verified.ok() && verified.value().firstBrokenSeq == 0,
                 qPrintable(verified.ok() ? verified.value().problem : verified.error()));
        auto rows = m_store->report(false);
        QVERIFY(rows.ok());
        QStringList decisions;
        for (const json &row : rows.value())
            decisions.append(QString::fromStdString(row.value("decision", "")));
        QVERIFY2(decisions.contains(QStringLiteral("timed-out")), qPrintable(decisions.join(',')));
    }
    // Deciding one card answers only the calls held for it: a held call for another card, of
    // another connection or of the same one, goes on waiting.
    void decidingOneCard_releasesOnlyItsOwnHeldCalls()
    {
        const Principal other{2, QStringLiteral("other"), {}};
        auto a = std::make_shared<std::optional<ToolReply>>();
        auto b = std::make_shared<std::optional<ToolReply>>();
        auto c = std::make_shared<std::optional<ToolReply>>();
        auto asked = std::make_shared<QList<Asked>>();
        startLegacy(params({{"service", "a"}}), a, asked);
        QTRY_COMPARE(m_gate->heldCount(), 1);
        startLegacy(params({{"service", "c"}}), c, asked);
        QTRY_COMPARE(m_gate->heldCount(), 2);
        std::string stateB;
        json first;
        QVERIFY(asResult(call(params({{"service", "b"}}), &other), first));
        stateB = first.at("requestState").get<std::string>();
        start(params({{"service", "b"}}, stateB), b, &other);
        QTRY_COMPARE(m_gate->heldCount(), 3);
        QString nonceA;
        for (const Operation &op : m_queue->pending()) {
            if (op.arguments.value("service", "") == "a")
                nonceA = op.nonce;
        }
        QVERIFY(!nonceA.isEmpty());
        QVERIFY(m_queue->approve(nonceA, QStringLiteral("console:alice")).ok());
        QTRY_VERIFY(a->has_value());
        QTest::qWait(400); // past the 200 ms store poll
        QVERIFY(!b->has_value());
        QVERIFY(!c->has_value());
        QCOMPARE(m_gate->heldCount(), 2);
        QCOMPARE(m_action.applyRuns, 1);
    }
    // A 2025-era call brings no requestState or inputResponses: sent anyway, they are ignored (a
    // client-mode tool is not approved by them; the form is asked on the held call instead).
    void legacy_inputResponsesInParams_areIgnored()
    {
        makeGate(nullptr, json{{"medium", "client"}});
        m_caps = {{"elicitation", {{"form", json::object()}}}};
        auto out = std::make_shared<std::optional<ToolReply>>();
        auto asked = std::make_shared<QList<Asked>>();
        json p = params({{"service", "web-1"}});
        p["inputResponses"] = {{"confirm", {{"action", "accept"}, {"content", {{"confirm", "web-1"}}}}}};
        startLegacy(p, out, asked);
        QTRY_COMPARE(asked->size(), 1);
        QTest::qWait(50);
        QVERIFY(!out->has_value());
        QCOMPARE(m_action.applyRuns, 0);
        QCOMPARE(m_queue->pending().size(), 1);
    }
    // A held call whose connection is revoked before the approval arrives runs nothing.
    void heldCall_ofARevokedConnection_runsNothing_evenApproved()
    {
        bool active = true;
        m_gate->setConnectionCheck([&active](const Principal &) { return active; });
        m_caps = {{"elicitation", {{"url", json::object()}}}};
        auto out = std::make_shared<std::optional<ToolReply>>();
        auto asked = std::make_shared<QList<Asked>>();
        startLegacy(params({{"service", "web-1"}}), out, asked);
        QTRY_COMPARE(m_queue->pending().size(), 1);
        active = false;
        QVERIFY(m_queue->approve(m_queue->pending().first().nonce, QStringLiteral("console:alice")).ok());
        QTRY_VERIFY(out->has_value());
        json r;
        QVERIFY(asResult(std::move(**out), r));
        QVERIFY2(text(r).find("was revoked before this approved call ran. Nothing was run.") !=
                     std::string::npos,
                 text(r).c_str());
        QCOMPARE(m_action.applyRuns, 0);
    }
    // Without the capability (or with only form for a console-mode tool) nothing is asked: the call
    // is held for the window alone.
    void legacy_withoutTheMode_asksNothing()
    {
        m_caps = {{"elicitation", {{"form", json::object()}}}};
        auto out = std::make_shared<std::optional<ToolReply>>();
        auto asked = std::make_shared<QList<Asked>>();
        startLegacy(params({{"service", "web-1"}}), out, asked);
        QTRY_COMPARE(m_gate->heldCount(), 1);
        QCOMPARE(asked->size(), 0);
        QVERIFY(!out->has_value());
    }
    void consoleVeto_beforeClientConfirmation_wins()
    {
        makeGate(nullptr, json{{"medium", "client"}});
        m_caps = {{"elicitation", json::object()}};
        json first;
        QVERIFY(asResult(call(params({{"service", "web-1"}})), first));
        QVERIFY(m_queue->decline(m_queue->pending().first().nonce, QStringLiteral("console:alice"), {}).ok());
        json retry = params({{"service", "web-1"}}, first.at("requestState").get<std::string>());
        retry["inputResponses"] = {{"confirm", {{"action", "accept"}, {"content", {{"confirm", "web-1"}}}}}};
        json r;
        QVERIFY(asResult(call(retry), r));
        QCOMPARE(text(r), std::string("Declined by console:alice. Nothing was run."));
        QCOMPARE(m_action.applyRuns, 0);
    }
    void tooManyWaitingCards_fromOneConnection_areRefused()
    {
        for (int i = 0; i < Gate::kMaxPendingPerConnection; ++i)
            QVERIFY(firstPass({{"service", "s" + std::to_string(i)}}));
        json r;
        QVERIFY(asResult(call(params({{"service", "one-more"}})), r));
        QVERIFY(r.value("isError", false));
        QVERIFY(QString::fromStdString(text(r)).contains(QLatin1String("approvals waiting")));
        const Principal other{2, QStringLiteral("other-agent"), {}};
        QVERIFY(asResult(call(params({{"service", "x"}}), &other), r));
        QCOMPARE_JSON(r.value("resultType", json()), json("input_required"));
        m_clock.advance(300'001); // expired cards no longer count
        QVERIFY(asResult(call(params({{"service", "y"}})), r));
        QCOMPARE_JSON(r.value("resultType", json()), json("input_required"));
    }
    void highRisk_needsTheTargetTyped_atTheConsole()
    {
        m_action.risk = Risk::High;
        QVERIFY(firstPass());
        const QString nonce = m_queue->pending().first().nonce;
        QVERIFY(!m_queue->approve(nonce, QStringLiteral("console:alice")).ok());
        QVERIFY(!m_queue->approve(nonce, QStringLiteral("console:alice"), QStringLiteral("web-2")).ok());
        QVERIFY(m_queue->approve(nonce, QStringLiteral("console:alice"), QStringLiteral("web-1")).ok());
    }
    // The dispatcher types the envelope (a mistyped clientInfo never reaches the gate); the
    // answers inside inputResponses are the gate's to read, whatever their fields hold.
    void mistypedAnswers_areReadAsAbsent()
    {
        m_caps = {{"elicitation", {{"form", json::object()}}}};
        std::string state;
        QVERIFY(firstPass({{"service", "web-1"}}, &state));
        json retry = params({{"service", "web-1"}}, state);
        retry["inputResponses"] = {{"approval", {{"action", 5}}}, {"confirm", {{"action", json::array()}}}};
        json held;
        QVERIFY(asResult(callHeld(retry), held));
        QCOMPARE_JSON(held.value("resultType", json()), json("input_required"));
        QVERIFY(m_queue->approve(m_queue->pending().first().nonce, QStringLiteral("console:alice")).ok());
        json r;
        QVERIFY(asResult(call(params({{"service", "web-1"}}, state)), r));
        QCOMPARE_JSON(r.at("_meta").at(Gate::kReceiptMetaKey).at("client"), json("test-client"));
        QCOMPARE(m_action.applyRuns, 1);
    }
    void auditChain_holdsAfterTheFlow()
    {
        std::string state;
        QVERIFY(firstPass({{"service", "web-1"}}, &state));
        QVERIFY(m_queue
                    ->decline(m_queue->pending().first().nonce, QStringLiteral("console:alice"),
                              QStringLiteral("no"))
                    .ok());
        QVERIFY(firstPass({{"service", "web-2"}}));
        auto report = m_store->verifyChain(m_stack->signer().publicKey());
        QVERIFY(report.ok());
        QCOMPARE(report.value().firstBrokenSeq, 0);
        QCOMPARE(report.value().rows, 3); // minted, declined, minted
    }
};

QTEST_GUILESS_MAIN(GateTest)
#include "gate_test.moc"
