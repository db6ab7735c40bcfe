#pragma once

// The fixture the gate's tests share (gate_test, gateclient_test, gatehold_test): a real SQLite
// file, sealer, signer, gate and approval queue (GateStack), a fake clock and a fake action.
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
#include "mcpgate.h"
#include "receipt.h"
#include "ticketsealer.h"
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>
#include <QTimer>

using namespace Countersign;
using json = nlohmann::json;

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

class GateFixture
{
protected:
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
        McpGate::call(*m_gate, m_actionPtr, ToolCall{arguments, request.params, request, context},
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
        McpGate::call(*m_gate, m_actionPtr, ToolCall{arguments, request.params, request, withTask},
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

    void setUp()
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
    void tearDown() { m_stack.reset(); }
};
