#pragma once

#include "operation.h"
#include "otlpspan.h"

#include <QHash>
#include <QObject>
#include <QTimer>

#include <functional>

namespace Countersign {

class AuditStore;
class Clock;
class Gate;
struct GateCall;

// One span per call that reached the gate, handed to a sink (the OTLP exporter) once the call is
// settled: denied or allowed by a rule (the span ends with the run), or a card declined, expired,
// superseded, or approved and run (or never run before its ticket expired). The span follows the
// OpenTelemetry MCP conventions for a server span ("tools/call <tool>", kind SERVER,
// mcp.method.name, gen_ai.tool.name, jsonrpc.request.id of the call that reached the gate) and
// adds countersign.* (decision, decided_by, risk, rule, connection, client.name, nonce, outcome).
// Its parent is the traceparent the client sent in that call's _meta, so it joins the agent's
// trace; without one it starts a trace of its own. Never an argument, a plan or a result: those
// are the agent's or the tool's text and may hold secrets; names are cut to kMaxText characters.
//
// Lives in the server thread beside the gate. Rule-settled calls cost no store read; a card is
// followed by what the gate and the console announce (check()) and by a sweep every kSweepMs that
// reads its state (decisions written by another instance or process). A card still open when this
// object goes (quitting) is exported as it stands, marked countersign.unsettled.
class CallSpans final : public QObject
{
    Q_OBJECT
public:
    using Sink = std::function<void(OtlpSpan)>;
    static constexpr int kSweepMs = 2000;
    static constexpr int kMaxText = 128;
    // Calls followed at once; more are not exported (an agent flooding the gate must not grow this).
    static constexpr int kMaxOpen = 10'000;

    CallSpans(AuditStore &store, const Clock &clock, Sink sink, QObject *parent = nullptr);
    Q_DISABLE_COPY_MOVE(CallSpans)
    ~CallSpans() override;

    // Hears the gate's calls, runs and settlements (the console's decisions come through check()).
    void follow(Gate *gate);
    int openCount() const { return int(m_open.size()); }

public Q_SLOTS:
    // Gate::opened: a call was recorded (a rule's denial ends its span at once).
    void open(const Countersign::Operation &operation, const Countersign::GateCall &request);
    // Gate::runEnded.
    void runEnded(const QString &nonce, bool isError);
    // Something may have settled the card (a decision stored, expiry, supersession): its state is read.
    void check(const QString &nonce);
    // Every open card is checked.
    void sweep();

private:
    struct Open final
    {
        OtlpSpan span;
        Operation::Status status = Operation::Status::Pending; // Allowed: a rule's run; Pending: a card
        qint64 expiresMs = 0;
    };
    struct Settled final
    {
        Operation::Status decision = Operation::Status::Pending;
        QString by;
        qint64 endMs = 0;
        qint64 decidedMs = 0; // a card's decision, shown as an event; 0 for none
        QString outcome;      // "ok", "error" or "not_run" for calls that were let run
        QString supersededBy;
    };
    void evaluate(const QString &nonce);
    void finish(const QString &nonce, const Settled &settled);

    AuditStore &m_store;
    const Clock &m_clock;
    Sink m_sink;
    QHash<QString, Open> m_open;
    QTimer m_sweep;
    bool m_fullSaid = false;
};

} // namespace Countersign
