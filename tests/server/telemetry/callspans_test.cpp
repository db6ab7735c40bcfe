// One span per call that reached the gate, on the real gate over a real SQLite file with the
// approval queue deciding and a fake clock for expiry: what each settlement exports, the trace it
// joins, and what it never carries.
#include "approvalqueue.h"
#include "auditstore.h"
#include "callspans.h"
#include "fakeclock.h"
#include "gate.h"
#include "gatedaction.h"
#include "gatestack.h"
#include "jsonrpc.h"
#include "mcpgate.h"

#include <QTemporaryDir>
#include <QTest>
#include <QTimer>

using namespace Countersign;
using json = nlohmann::json;

namespace {

constexpr const char *kSecret = "svc-s3cret-7"; // the argument: never in a span

class FakeAction final : public GatedAction
{
public:
    QString diff = QStringLiteral("-service\n");
    bool failRun = false;

    QString name() const override { return QStringLiteral("delete_service"); }
    json descriptor() const override { return {{"name", "delete_service"}}; }
    void plan(const json &arguments, PlanDone done) override
    {
        Plan plan;
        plan.title = QStringLiteral("Delete service");
        plan.prompt =
            QStringLiteral("Delete %1?").arg(QString::fromStdString(arguments.value("service", "")));
        plan.diff = diff + QString::fromStdString(arguments.value("service", ""));
        plan.targets = {QString::fromStdString(arguments.value("service", ""))};
        plan.risk = Risk::Medium;
        done(plan);
    }
    void apply(const json &, ApplyDone done) override
    {
        QTimer::singleShot(10,
                           [done, failed = failRun] { done(textResult(QStringLiteral("done"), failed)); });
    }
};

QString text(const OtlpSpan &span, const char *key)
{
    const OtlpSpan::Attribute *attribute = span.find(QString::fromLatin1(key));
    if (!attribute)
        return QStringLiteral("(none)");
    if (const auto *s = std::get_if<QString>(&attribute->value))
        return *s;
    return QStringLiteral("(not a string)");
}

} // namespace

class CallSpansTest : public QObject
{
    Q_OBJECT
private:
    QTemporaryDir m_dir;
    FakeClock m_clock;
    std::unique_ptr<GateStack> m_stack;
    std::shared_ptr<FakeAction> m_action = std::make_shared<FakeAction>();
    std::unique_ptr<CallSpans> m_spans;
    QList<OtlpSpan> m_exported;
    json m_clientInfo = {{"name", "test-client"}, {"version", "1"}};

    void makeGate(const json &rules)
    {
        auto policy = Policy::fromJson(rules, nullptr);
        QVERIFY(policy.ok());
        m_spans.reset();
        m_stack->rebuildGate(policy.value(), Gate::Settings{300'000, 300, QString(), 50'000});
        m_spans = std::make_unique<CallSpans>(m_stack->store(), m_clock,
                                              [this](OtlpSpan span) { m_exported.append(std::move(span)); });
        m_spans->follow(&m_stack->gate());
        // As McpServer::wake: a decision stored by the console.
        connect(&m_stack->queue(), &ApprovalQueue::decided, m_spans.get(), &CallSpans::check);
    }

    // The gate's answer to a tools/call with this JSON-RPC id and traceparent.
    json call(const json &id, const std::optional<std::string> &state = std::nullopt,
              const QString &traceparent = QString())
    {
        McpRequest request;
        request.id = id;
        request.method = QStringLiteral("tools/call");
        request.params = {{"name", "delete_service"}, {"arguments", {{"service", kSecret}}}};
        if (state)
            request.params["requestState"] = *state;
        request.envelope.protocolVersion = QLatin1String(JsonRpc::kProtocolVersion);
        request.envelope.traceparent = traceparent;
        if (request.envelope.readClient(json::object(), m_clientInfo))
            return json();
        const CallContext context{Principal{1, QStringLiteral("agent"), {}}, Transport::Http};
        const json arguments = request.params["arguments"];
        std::optional<ToolReply> out;
        McpGate::call(m_stack->gate(), m_action, ToolCall{arguments, request.params, request, context},
                      [&out](ToolReply reply) { out = std::move(reply); });
        if (!QTest::qWaitFor([&] { return out.has_value(); }, 5000) || !std::holds_alternative<json>(*out))
            return json();
        return std::get<json>(*out);
    }
    // A first pass that parks a card: its requestState.
    std::string card(const json &id, const QString &traceparent = QString())
    {
        const json r = call(id, std::nullopt, traceparent);
        return r.value("requestState", std::string());
    }
    QString pendingNonce() const
    {
        return m_stack->queue().pending().isEmpty() ? QString() : m_stack->queue().pending().first().nonce;
    }

private Q_SLOTS:
    void init()
    {
        auto stack = GateStack::create(
            m_clock, m_dir.filePath(QStringLiteral("spans-%1.db").arg(QTest::currentTestFunction())));
        QVERIFY(stack.ok());
        m_stack = std::move(stack).value();
        *m_action = FakeAction();
        m_exported.clear();
        m_clientInfo = {{"name", "test-client"}, {"version", "1"}};
        makeGate(nullptr);
    }
    void cleanup()
    {
        m_spans.reset();
        m_stack.reset();
    }

    // A call through the door for calls that are not MCP requests (an agent's own tool, its hook
    // shim on the local socket): named as a tool's execution, with no MCP method, no JSON-RPC id and
    // no protocol version, over "unix".
    void agentCall_isAnExecuteToolSpan_withoutMcpAttributes()
    {
        makeGate(json::parse(R"([{"tool": "delete_service", "decision": "allow"}])"));
        AgentCall call;
        call.principal = Principal{1, QStringLiteral("agent"), {}};
        call.client = QStringLiteral("codex (hook)");
        call.arguments = {{"service", kSecret}};
        call.transport = Transport::Unix;
        call.holdMs = 1000;
        std::optional<Gate::Judgement> out;
        m_stack->gate().judge(m_action, call, [&out](Gate::Judgement j) { out = std::move(j); });
        QTRY_VERIFY(out.has_value());
        QVERIFY(out->allowed);
        QTRY_COMPARE(m_exported.size(), 1);
        const OtlpSpan &span = m_exported.first();
        QCOMPARE(span.name, QStringLiteral("execute_tool delete_service"));
        QCOMPARE(text(span, "mcp.method.name"), QStringLiteral("(none)"));
        QCOMPARE(text(span, "jsonrpc.request.id"), QStringLiteral("(none)"));
        QCOMPARE(text(span, "mcp.protocol.version"), QStringLiteral("(none)"));
        QCOMPARE(text(span, "network.transport"), QStringLiteral("unix"));
        QCOMPARE(text(span, "gen_ai.operation.name"), QStringLiteral("execute_tool"));
        QCOMPARE(text(span, "countersign.client.name"), QStringLiteral("codex (hook)"));
    }
    void deniedByARule_endsAtOnce_asAnError()
    {
        makeGate(json::parse(R"([{"tool": "delete_service", "decision": "deny", "reason": "never"}])"));
        const qint64 started = m_clock.nowMs();
        QVERIFY(call(7).value("isError", false));
        QTRY_COMPARE(m_exported.size(), 1);
        const OtlpSpan &span = m_exported.first();
        QCOMPARE(span.name, QStringLiteral("tools/call delete_service"));
        QVERIFY(span.kind == OtlpSpan::Kind::Server);
        QCOMPARE(text(span, "mcp.method.name"), QStringLiteral("tools/call"));
        QCOMPARE(text(span, "gen_ai.tool.name"), QStringLiteral("delete_service"));
        QCOMPARE(text(span, "gen_ai.operation.name"), QStringLiteral("execute_tool"));
        QCOMPARE(text(span, "jsonrpc.request.id"), QStringLiteral("7"));
        QCOMPARE(text(span, "network.transport"), QStringLiteral("tcp"));
        QCOMPARE(text(span, "countersign.decision"), QStringLiteral("denied"));
        QCOMPARE(text(span, "countersign.decided_by"), QStringLiteral("rule"));
        QCOMPARE(text(span, "countersign.connection"), QStringLiteral("agent"));
        QCOMPARE(text(span, "countersign.client.name"), QStringLiteral("test-client"));
        QCOMPARE(text(span, "countersign.rule"), QStringLiteral("rules[0]"));
        QCOMPARE(text(span, "error.type"), QStringLiteral("tool_error"));
        QVERIFY(span.status == OtlpSpan::StatusCode::Error);
        QCOMPARE(span.statusMessage, QStringLiteral("denied by a rule"));
        QCOMPARE(text(span, "countersign.risk"), QStringLiteral("(none)")); // nothing was planned
        // No traceparent: a trace of its own.
        QCOMPARE(span.traceId.size(), 32);
        QVERIFY(span.parentSpanId.isEmpty());
        QCOMPARE(span.spanId.size(), 16);
        QCOMPARE(span.startMs, started);
        QCOMPARE(m_spans->openCount(), 0);
    }
    void allowedByARule_endsWithItsRun()
    {
        makeGate(json::parse(R"([{"tool": "delete_service", "decision": "allow"}])"));
        QVERIFY(!call("req-1").value("isError", false));
        QTRY_COMPARE(m_exported.size(), 1);
        const OtlpSpan &span = m_exported.first();
        QCOMPARE(text(span, "jsonrpc.request.id"), QStringLiteral("req-1"));
        QCOMPARE(text(span, "countersign.decision"), QStringLiteral("allowed"));
        QCOMPARE(text(span, "countersign.decided_by"), QStringLiteral("rule"));
        QCOMPARE(text(span, "countersign.outcome"), QStringLiteral("ok"));
        QVERIFY(span.status == OtlpSpan::StatusCode::Unset);
        QCOMPARE(text(span, "error.type"), QStringLiteral("(none)"));
    }
    void allowedRunThatFails_isAnError()
    {
        makeGate(json::parse(R"([{"tool": "delete_service", "decision": "allow"}])"));
        m_action->failRun = true;
        QVERIFY(call(1).value("isError", false));
        QTRY_COMPARE(m_exported.size(), 1);
        QCOMPARE(text(m_exported.first(), "countersign.outcome"), QStringLiteral("error"));
        QVERIFY(m_exported.first().status == OtlpSpan::StatusCode::Error);
        QCOMPARE(text(m_exported.first(), "error.type"), QStringLiteral("tool_error"));
    }
    void declinedInTheConsole_joinsTheAgentsTrace()
    {
        const QString traceparent = QStringLiteral("00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01");
        const std::string state = card(11, traceparent);
        QVERIFY(!state.empty());
        QVERIFY(m_exported.isEmpty()); // open while the card waits
        m_clock.advance(5000);
        QVERIFY(m_stack->queue()
                    .decline(pendingNonce(), QStringLiteral("console:bea"), QStringLiteral("no"))
                    .ok());
        QTRY_COMPARE(m_exported.size(), 1);
        const OtlpSpan &span = m_exported.first();
        QCOMPARE(span.traceId, QByteArray("4bf92f3577b34da6a3ce929d0e0e4736"));
        QCOMPARE(span.parentSpanId, QByteArray("00f067aa0ba902b7"));
        QCOMPARE(text(span, "jsonrpc.request.id"), QStringLiteral("11"));
        QCOMPARE(text(span, "countersign.decision"), QStringLiteral("declined"));
        QCOMPARE(text(span, "countersign.decided_by"), QStringLiteral("console:bea"));
        QCOMPARE(text(span, "countersign.risk"), QStringLiteral("medium"));
        QVERIFY(span.status == OtlpSpan::StatusCode::Error);
        QCOMPARE(span.statusMessage, QStringLiteral("declined by console:bea"));
        QCOMPARE(span.endMs - span.startMs, 5000);
        // The agent's retry is told; no second span.
        QVERIFY(call(12, state).value("isError", false));
        QTRY_COMPARE(m_exported.size(), 1);
    }
    void approvedAndRun_endsWithTheRun_andKeepsTheFirstCallsId()
    {
        const std::string state = card(21);
        const QString nonce = pendingNonce();
        m_clock.advance(1000);
        QVERIFY(m_stack->queue().approve(nonce, QStringLiteral("console:bea")).ok());
        QVERIFY(m_exported.isEmpty()); // approved: the span waits for the run
        m_clock.advance(1000);
        QVERIFY(!call(22, state).value("isError", false));
        QTRY_COMPARE(m_exported.size(), 1);
        const OtlpSpan &span = m_exported.first();
        QCOMPARE(text(span, "jsonrpc.request.id"), QStringLiteral("21"));
        QCOMPARE(text(span, "countersign.nonce"), nonce);
        QCOMPARE(text(span, "countersign.decision"), QStringLiteral("approved"));
        QCOMPARE(text(span, "countersign.decided_by"), QStringLiteral("console:bea"));
        QCOMPARE(text(span, "countersign.outcome"), QStringLiteral("ok"));
        QVERIFY(span.status == OtlpSpan::StatusCode::Unset);
        QCOMPARE(span.events.size(), 1);
        QCOMPARE(span.events.first().name, QStringLiteral("countersign.decided"));
        QCOMPARE(span.events.first().timeMs, span.startMs + 1000);
        QCOMPARE(span.endMs, span.startMs + 2000);
    }
    void expiredUndecided_endsAtTheExpiry()
    {
        QVERIFY(!card(1).empty());
        const qint64 expires = m_stack->queue().pending().first().expiresMs;
        m_clock.advance(300'001);
        m_spans->sweep();
        QTRY_COMPARE(m_exported.size(), 1);
        QCOMPARE(text(m_exported.first(), "countersign.decision"), QStringLiteral("expired"));
        QCOMPARE(text(m_exported.first(), "countersign.decided_by"), QStringLiteral("server"));
        QCOMPARE(m_exported.first().endMs, expires);
        QVERIFY(m_exported.first().status == OtlpSpan::StatusCode::Error);
    }
    void approvedButNeverRetried_isNotRun_atTheExpiry()
    {
        QVERIFY(!card(1).empty());
        QVERIFY(m_stack->queue().approve(pendingNonce(), QStringLiteral("console:bea")).ok());
        m_spans->sweep();
        QVERIFY(m_exported.isEmpty());
        m_clock.advance(300'001);
        m_spans->sweep();
        QTRY_COMPARE(m_exported.size(), 1);
        QCOMPARE(text(m_exported.first(), "countersign.decision"), QStringLiteral("approved"));
        QCOMPARE(text(m_exported.first(), "countersign.outcome"), QStringLiteral("not_run"));
    }
    void planChangedAfterApproval_endsTheCardAsSuperseded_andFollowsTheReplacement()
    {
        const std::string state = card(1);
        const QString first = pendingNonce();
        QVERIFY(m_stack->queue().approve(first, QStringLiteral("console:bea")).ok());
        m_action->diff = QStringLiteral("-service and its volumes\n");
        const json again = call(2, state);
        QCOMPARE(again.value("resultType", ""), std::string("input_required"));
        QTRY_COMPARE(m_exported.size(), 1);
        const OtlpSpan &old = m_exported.first();
        QCOMPARE(text(old, "countersign.decision"), QStringLiteral("superseded"));
        const QString replacement = pendingNonce();
        QVERIFY(replacement != first);
        QCOMPARE(text(old, "countersign.superseded_by"), replacement);
        QVERIFY(old.status == OtlpSpan::StatusCode::Unset);
        QCOMPARE(m_spans->openCount(), 1);
        QVERIFY(m_stack->queue().decline(replacement, QStringLiteral("console:bea")).ok());
        QTRY_COMPARE(m_exported.size(), 2);
        QCOMPARE(text(m_exported.last(), "countersign.supersedes"), first);
        QCOMPARE(text(m_exported.last(), "jsonrpc.request.id"), QStringLiteral("2")); // the retry made it
    }
    void decisionWrittenElsewhere_isFoundByTheSweep()
    {
        QVERIFY(!card(1).empty());
        const QString nonce = pendingNonce();
        // Another process's queue (the test host's decide tool, a second console): no signal here.
        ApprovalQueue other(m_stack->store(), m_clock);
        QVERIFY(other.restore().ok());
        QVERIFY(other.decline(nonce, QStringLiteral("console:cy")).ok());
        QVERIFY(m_exported.isEmpty());
        m_spans->sweep();
        QTRY_COMPARE(m_exported.size(), 1);
        QCOMPARE(text(m_exported.first(), "countersign.decided_by"), QStringLiteral("console:cy"));
    }
    void neverTheArgumentsOrThePlan_andNamesAreCapped()
    {
        m_clientInfo = {{"name", std::string(1000, 'x') + "\x1b[31m"}, {"version", "1"}};
        QVERIFY(!card(std::string(500, 'i')).empty());
        QVERIFY(m_stack->queue().decline(pendingNonce(), QStringLiteral("console:bea")).ok());
        QTRY_COMPARE(m_exported.size(), 1);
        const std::string body =
            OtlpSpan::exportRequest(m_exported, {}, QStringLiteral("s"), QStringLiteral("v")).dump();
        QVERIFY2(body.find(kSecret) == std::string::npos, body.c_str());
        QVERIFY(body.find("Delete") == std::string::npos);
        QVERIFY(body.find("\\u001b") == std::string::npos);
        QCOMPARE(text(m_exported.first(), "countersign.client.name").size(), CallSpans::kMaxText);
        QCOMPARE(text(m_exported.first(), "jsonrpc.request.id").size(), CallSpans::kMaxText);
    }
    void badTraceparent_startsATraceOfItsOwn()
    {
        QVERIFY(!card(1, QStringLiteral("00-00000000000000000000000000000000-00f067aa0ba902b7-01")).empty());
        QVERIFY(m_stack->queue().decline(pendingNonce(), QStringLiteral("console:bea")).ok());
        QTRY_COMPARE(m_exported.size(), 1);
        QVERIFY(m_exported.first().traceId != QByteArray(32, '0'));
        QVERIFY(m_exported.first().parentSpanId.isEmpty());
    }
    void stillOpenWhenItGoes_isExportedUnsettled()
    {
        QVERIFY(!card(1).empty());
        m_spans.reset();
        QTRY_COMPARE(m_exported.size(), 1);
        QCOMPARE(text(m_exported.first(), "countersign.decision"), QStringLiteral("pending"));
        const OtlpSpan::Attribute *unsettled =
            m_exported.first().find(QStringLiteral("countersign.unsettled"));
        QVERIFY(unsettled && std::get<bool>(unsettled->value));
    }
};

QTEST_GUILESS_MAIN(CallSpansTest)
#include "callspans_test.moc"
