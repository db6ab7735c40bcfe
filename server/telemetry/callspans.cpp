#include "callspans.h"

#include "auditstore.h"
#include "clock.h"
#include "gate.h"
#include "gatecall.h"
#include "toolresult.h"
#include "traceparent.h"

#include <QLoggingCategory>
#include <QRegularExpression>

Q_LOGGING_CATEGORY(lcSpans, "countersign.spans")

namespace Countersign {

namespace {

// The rule that decided, by its index only ("rules[2]", or "default ask" when none matched): a
// rule's patterns can pin argument values ("Deny this from now on" writes the call's own), and
// arguments never leave the machine.
QString ruleLabel(const QString &rule)
{
    static const QRegularExpression indexed(QStringLiteral("^rules\\[\\d+\\]"));
    static const QRegularExpression fallback(
        QStringLiteral("^no rule matched: (default (allow|deny|ask))\\b"));
    if (const auto m = indexed.match(rule); m.hasMatch())
        return m.captured(0);
    if (const auto m = fallback.match(rule); m.hasMatch())
        return m.captured(1);
    return QStringLiteral("other");
}

// A name from the agent or an upstream, fit for an attribute: no control characters, at most
// CallSpans::kMaxText characters (never half a surrogate pair).
QString capped(QString text)
{
    for (QChar &c : text) {
        if (c.category() == QChar::Other_Control || c == QChar::LineSeparator ||
            c == QChar::ParagraphSeparator)
            c = QChar::ReplacementCharacter;
    }
    if (text.size() <= CallSpans::kMaxText)
        return text;
    qsizetype keep = CallSpans::kMaxText - 1;
    if (text.at(keep - 1).isHighSurrogate())
        --keep;
    return text.left(keep) + QChar(0x2026);
}

// jsonrpc.request.id is a string in the conventions: a number as written, a string as it is; a
// null id (discouraged by JSON-RPC) is not recorded.
QString requestId(const nlohmann::json &id)
{
    if (id.is_string())
        return capped(QString::fromStdString(id.get<std::string>()));
    if (id.is_number_integer())
        return QString::fromStdString(id.dump());
    return {};
}

QString statusMessage(Operation::Status decision, const QString &by, const QString &outcome)
{
    switch (decision) {
    case Operation::Status::Denied:
        return QStringLiteral("denied by a rule");
    case Operation::Status::Declined:
        return QStringLiteral("declined by %1").arg(by);
    case Operation::Status::Expired:
        return QStringLiteral("expired before anyone decided");
    case Operation::Status::Abandoned:
        return QStringLiteral("its agent stopped waiting before anyone decided");
    case Operation::Status::TimedOut:
        return QStringLiteral("approved, but its agent did not call again before the ticket expired");
    default:
        return outcome == QLatin1String("error") ? QStringLiteral("the tool's result is an error")
                                                 : QString();
    }
}

} // namespace

CallSpans::CallSpans(AuditStore &store, const Clock &clock, Sink sink, QObject *parent)
    : QObject(parent), m_store(store), m_clock(clock), m_sink(std::move(sink))
{
    m_sweep.setInterval(kSweepMs);
    connect(&m_sweep, &QTimer::timeout, this, &CallSpans::sweep);
}

CallSpans::~CallSpans()
{
    const qint64 now = m_clock.nowMs();
    for (auto it = m_open.begin(); it != m_open.end(); ++it) {
        Operation::Status status = it->status;
        if (status == Operation::Status::Pending) { // a card may have been approved meanwhile
            auto stored = m_store.status(it.key());
            if (stored && stored.value())
                status = *stored.value();
        }
        OtlpSpan span = std::move(it->span);
        span.set(QStringLiteral("countersign.decision"), statusName(status));
        span.attributes.append({QStringLiteral("countersign.unsettled"), true});
        span.endMs = std::max(now, span.startMs);
        m_sink(std::move(span));
    }
}

void CallSpans::follow(Gate *gate)
{
    connect(gate, &Gate::opened, this, &CallSpans::open);
    // What reads the store waits until the gate has answered: the agent never waits on a span.
    connect(gate, &Gate::runEnded, this, &CallSpans::runEnded, Qt::QueuedConnection);
    connect(gate, &Gate::retired, this, &CallSpans::check, Qt::QueuedConnection);
    connect(
        gate, &Gate::stepRecorded, this,
        [this](Gate::Step step, const QString &nonce) {
            if (step == Gate::Step::Decided)
                check(nonce);
        },
        Qt::QueuedConnection);
}

void CallSpans::open(const Operation &operation, const GateCall &request)
{
    if (m_open.size() >= kMaxOpen && operation.status != Operation::Status::Denied) {
        if (!m_fullSaid)
            qCWarning(lcSpans) << "following" << kMaxOpen << "calls at once: more are not exported";
        m_fullSaid = true;
        return;
    }
    m_fullSaid = false;
    OtlpSpan span;
    if (const auto parent = TraceParent::parse(operation.traceparent)) {
        span.traceId = parent->traceId;
        span.parentSpanId = parent->parentId;
    } else {
        span.traceId = OtlpSpan::randomId(16);
    }
    span.spanId = OtlpSpan::randomId(8);
    const QString tool = capped(operation.tool);
    // An MCP call's span is named for its method; an agent's own tool (its hook) is no MCP request,
    // and has no protocol version.
    const bool mcp = !request.protocolVersion.isEmpty();
    span.name = (mcp ? QStringLiteral("tools/call ") : QStringLiteral("execute_tool ")) + tool;
    span.kind = OtlpSpan::Kind::Server;
    span.startMs = request.receivedMs > 0 ? request.receivedMs : operation.createdMs;
    if (mcp)
        span.set(QStringLiteral("mcp.method.name"), QStringLiteral("tools/call"));
    span.set(QStringLiteral("gen_ai.operation.name"), QStringLiteral("execute_tool"));
    span.set(QStringLiteral("gen_ai.tool.name"), tool);
    if (const QString id = requestId(request.requestId); !id.isEmpty())
        span.set(QStringLiteral("jsonrpc.request.id"), id);
    if (mcp)
        span.set(QStringLiteral("mcp.protocol.version"), capped(request.protocolVersion));
    span.set(QStringLiteral("network.transport"),
             request.transport == Transport::Stdio  ? QStringLiteral("pipe")
             : request.transport == Transport::Unix ? QStringLiteral("unix")
                                                    : QStringLiteral("tcp"));
    span.set(QStringLiteral("countersign.nonce"), operation.nonce);
    span.set(QStringLiteral("countersign.connection"), capped(operation.principal));
    if (const QString client = operation.clientName(); !client.isEmpty())
        span.set(QStringLiteral("countersign.client.name"), capped(client));
    if (!operation.rule.isEmpty())
        span.set(QStringLiteral("countersign.rule"), ruleLabel(operation.rule));
    if (operation.status == Operation::Status::Pending) { // a card: the plan was made, its risk is known
        span.set(QStringLiteral("countersign.risk"), riskName(operation.plan.risk));
        if (!operation.supersedes.isEmpty())
            span.set(QStringLiteral("countersign.supersedes"), operation.supersedes);
    }
    m_open.insert(operation.nonce, Open{std::move(span), operation.status, operation.expiresMs});

    switch (operation.status) {
    case Operation::Status::Denied:
        finish(operation.nonce, Settled{Operation::Status::Denied, QStringLiteral("rule"),
                                        operation.createdMs, 0, QString(), QString()});
        break;
    case Operation::Status::Pending:
        // A replacement card: the card it replaced ends here (approved, then the plan changed).
        if (!operation.supersedes.isEmpty() && m_open.contains(operation.supersedes))
            evaluate(operation.supersedes);
        if (!m_sweep.isActive())
            m_sweep.start();
        break;
    default:
        break;
    }
}

void CallSpans::runEnded(const QString &nonce, bool isError)
{
    const auto it = m_open.find(nonce);
    if (it == m_open.end())
        return;
    const QString outcome = isError ? QStringLiteral("error") : QStringLiteral("ok");
    const qint64 now = m_clock.nowMs();
    if (it->status == Operation::Status::Allowed)
        return finish(
            nonce, Settled{Operation::Status::Allowed, QStringLiteral("rule"), now, 0, outcome, QString()});
    auto decision = m_store.decision(nonce);
    const std::optional<Decision> d = decision ? decision.value() : std::nullopt;
    finish(nonce, Settled{Operation::Status::Approved, d ? d->by : QString(), now, d ? d->atMs : 0, outcome,
                          QString()});
}

void CallSpans::check(const QString &nonce)
{
    if (m_open.contains(nonce))
        evaluate(nonce);
}

void CallSpans::sweep()
{
    const QStringList nonces = m_open.keys();
    bool cards = false;
    for (const QString &nonce : nonces) {
        const auto it = m_open.constFind(nonce);
        if (it == m_open.cend() || it->status != Operation::Status::Pending)
            continue;
        evaluate(nonce);
        cards = cards || m_open.contains(nonce);
    }
    if (!cards)
        m_sweep.stop();
}

// Where a card stands, from the store (the console's decisions and other instances' writes are
// there). A store that does not answer now is asked again at the next sweep.
void CallSpans::evaluate(const QString &nonce)
{
    const auto it = m_open.constFind(nonce);
    if (it == m_open.cend() || it->status != Operation::Status::Pending)
        return;
    const qint64 now = m_clock.nowMs();
    const qint64 expiresMs = it->expiresMs;
    auto stored = m_store.status(nonce);
    if (!stored)
        return;
    if (!stored.value()) { // gone from the store (never expected): nothing more will be learnt
        m_open.remove(nonce);
        return;
    }
    const Operation::Status status = *stored.value();
    if (status == Operation::Status::Pending) {
        // Expired undecided, whether or not anyone has recorded it yet.
        if (now >= expiresMs)
            finish(nonce, Settled{Operation::Status::Expired, QStringLiteral("server"), expiresMs, 0,
                                  QString(), QString()});
        return;
    }
    auto decision = m_store.decision(nonce);
    if (!decision)
        return;
    const std::optional<Decision> d = decision.value();
    const QString by = d ? d->by : QStringLiteral("server");
    switch (status) {
    case Operation::Status::Declined:
        return finish(nonce, Settled{Operation::Status::Declined, by, d ? d->atMs : now, d ? d->atMs : 0,
                                     QString(), QString()});
    case Operation::Status::Expired:
    case Operation::Status::Abandoned:
        return finish(nonce, Settled{status, QStringLiteral("server"), std::min(expiresMs, now), 0, QString(),
                                     QString()});
    case Operation::Status::TimedOut:
        return finish(nonce, Settled{Operation::Status::TimedOut, by, expiresMs, d ? d->atMs : 0,
                                     QStringLiteral("not_run"), QString()});
    case Operation::Status::Superseded: {
        auto replacement = m_store.replacementOf(nonce);
        return finish(nonce, Settled{Operation::Status::Superseded, by, now, d ? d->atMs : 0, QString(),
                                     replacement ? replacement.value() : QString()});
    }
    case Operation::Status::Approved: {
        auto claim = m_store.claimOf(nonce);
        if (!claim)
            return;
        if (claim.value() && claim.value()->finishedMs) { // run, here or on another instance
            const nlohmann::json &result = claim.value()->result;
            const bool failed = ToolResult::failed(result);
            return finish(nonce,
                          Settled{Operation::Status::Approved, by, claim.value()->finishedMs, d ? d->atMs : 0,
                                  failed ? QStringLiteral("error") : QStringLiteral("ok"), QString()});
        }
        if (!claim.value() && now >= expiresMs) // approved, and the agent never came back for it
            return finish(nonce, Settled{Operation::Status::Approved, by, expiresMs, d ? d->atMs : 0,
                                         QStringLiteral("not_run"), QString()});
        return; // waiting for the agent's retry, or for the run
    }
    default:
        return;
    }
}

void CallSpans::finish(const QString &nonce, const Settled &settled)
{
    auto it = m_open.find(nonce);
    if (it == m_open.end())
        return;
    OtlpSpan span = std::move(it->span);
    m_open.erase(it);
    span.endMs = std::max(settled.endMs, span.startMs);
    span.set(QStringLiteral("countersign.decision"), statusName(settled.decision));
    if (!settled.by.isEmpty())
        span.set(QStringLiteral("countersign.decided_by"), capped(settled.by));
    if (!settled.outcome.isEmpty())
        span.set(QStringLiteral("countersign.outcome"), settled.outcome);
    if (!settled.supersededBy.isEmpty())
        span.set(QStringLiteral("countersign.superseded_by"), settled.supersededBy);
    if (settled.decidedMs > 0)
        span.events.append(OtlpSpan::Event{QStringLiteral("countersign.decided"),
                                           std::clamp(settled.decidedMs, span.startMs, span.endMs),
                                           {{QStringLiteral("countersign.decided_by"), capped(settled.by)}}});
    // What the agent was answered: an error result (isError) for a denial, a decline, an expiry or
    // a tool that failed; the conventions' error.type for that is tool_error.
    const QString message = statusMessage(settled.decision, settled.by, settled.outcome);
    if (!message.isEmpty()) {
        span.status = OtlpSpan::StatusCode::Error;
        span.statusMessage = capped(message);
        span.set(QStringLiteral("error.type"), QStringLiteral("tool_error"));
    }
    m_sink(std::move(span));
}

} // namespace Countersign
