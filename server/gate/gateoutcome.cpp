#include "gateoutcome.h"

#include "toolresult.h"

#include <QDateTime>

namespace Countersign {

using json = nlohmann::json;

namespace {

QString isoTime(qint64 ms)
{
    return QDateTime::fromMSecsSinceEpoch(ms, Qt::UTC).toString(Qt::ISODateWithMs);
}

} // namespace

GateOutcome GateOutcome::ran(const QString &nonce, json result, bool approved, bool granted)
{
    GateOutcome o;
    o.kind = Kind::Ran;
    o.nonce = nonce;
    o.result = std::move(result);
    o.approved = approved;
    o.granted = granted;
    return o;
}

GateOutcome GateOutcome::pending(const Operation &card, const QString &sealed, const QString &approvalsUrl,
                                 const QString &notice)
{
    GateOutcome o;
    o.kind = Kind::Pending;
    o.nonce = card.nonce;
    o.card = card;
    o.sealed = sealed;
    o.approvalsUrl = approvalsUrl;
    o.notice = notice;
    return o;
}

GateOutcome GateOutcome::stillPending(const Operation &card)
{
    GateOutcome o;
    o.kind = Kind::StillPending;
    o.nonce = card.nonce;
    o.card = card;
    return o;
}

GateOutcome GateOutcome::denied(const PolicyDecision &verdict)
{
    GateOutcome o;
    o.kind = Kind::Denied;
    o.verdict = verdict;
    return o;
}

GateOutcome GateOutcome::declined(const Decision &decision)
{
    GateOutcome o;
    o.kind = Kind::Declined;
    o.decision = decision;
    return o;
}

GateOutcome GateOutcome::expired(const Decision &decision, qint64 ttlMs)
{
    GateOutcome o;
    o.kind = Kind::Expired;
    o.decision = decision;
    o.ttlMs = ttlMs;
    return o;
}

GateOutcome GateOutcome::claimed(Kind kind, qint64 claimedMs)
{
    GateOutcome o;
    o.kind = kind;
    o.atMs = claimedMs;
    return o;
}

GateOutcome GateOutcome::tooManyPending(const QString &connection, int waiting)
{
    GateOutcome o;
    o.kind = Kind::TooManyPending;
    o.why = connection;
    o.waiting = waiting;
    return o;
}

GateOutcome GateOutcome::refused(Kind kind, const QString &why)
{
    GateOutcome o;
    o.kind = kind;
    o.why = why;
    return o;
}

bool GateOutcome::ranOk() const
{
    return kind == Kind::Ran && result.is_object() && !ToolResult::failed(result);
}

QString GateOutcome::words() const
{
    switch (kind) {
    case Kind::Ran: {
        const json content = result.is_object() ? result.value("content", json::array()) : json::array();
        if (content.is_array() && !content.empty() && content[0].is_object() &&
            content[0].value("text", json()).is_string())
            return QString::fromStdString(content[0].at("text").get<std::string>());
        return ranOk() ? QString() : QStringLiteral("Countersign did not allow this call");
    }
    case Kind::Pending:
    case Kind::StillPending:
        if (card.tool.startsWith(QLatin1String("agent:"))) // an agent's own tool, through its hook
            return QStringLiteral("Still waiting for a human to approve \"%1\" in the Countersign window; "
                                  "nothing has run. Make the same call again to rejoin the card: an approval "
                                  "waits for it.")
                .arg(card.plan.title);
        return QStringLiteral("Waiting for a human to approve \"%1\" in the Countersign window; nothing has "
                              "run yet. Call %2 again with the same arguments to keep waiting: the same "
                              "approval card is kept, and the call returns the result once it is approved.")
            .arg(card.plan.title, card.tool);
    case Kind::Denied:
        return QStringLiteral("Denied by Countersign policy (%1)%2. Nothing was run.")
            .arg(verdict.rule,
                 verdict.reason.isEmpty() ? QString() : QStringLiteral(": %1").arg(verdict.reason));
    case Kind::Declined:
        return decision.reason.isEmpty()
                   ? QStringLiteral("Declined by %1. Nothing was run.").arg(decision.by)
                   : QStringLiteral("Declined by %1: %2. Nothing was run.").arg(decision.by, decision.reason);
    case Kind::Expired:
        return QStringLiteral("Approval expired: the ticket's %1 s passed before the call was approved and "
                              "retried. Nothing was run; call the tool again for a new approval card.")
            .arg(ttlMs / 1000);
    case Kind::Superseded:
        return QStringLiteral("This approval was superseded: the plan changed after the card was shown, "
                              "and a new card was made. Nothing was run with this ticket.");
    case Kind::OutcomeUnknown:
        return QStringLiteral(
                   "Outcome unknown: this approved call was claimed to run at %1, but Countersign stopped "
                   "before recording how it ended, so it may or may not have run. It was not run again. "
                   "Check its target before asking for a new approval.")
            .arg(isoTime(atMs));
    case Kind::RunningElsewhere:
        return QStringLiteral(
                   "This approved call is running on another Countersign instance of this store (since "
                   "%1); it is not run again here. Call it again with the same arguments for its "
                   "result.")
            .arg(isoTime(atMs));
    case Kind::ConnectionRevoked:
        return QStringLiteral("The connection \"%1\" was revoked before this approved call ran. Nothing "
                              "was run.")
            .arg(why);
    case Kind::CancelledByClient:
        return QStringLiteral("The client cancelled this call before it ran. Nothing was run.");
    case Kind::TooManyPending:
        return QStringLiteral("Refused: connection \"%1\" already has %2 approvals waiting. Wait for the "
                              "human to work through them before asking for more.")
            .arg(why)
            .arg(waiting);
    case Kind::PlanFailed:
        return QStringLiteral("Countersign could not plan this call: %1. Nothing was run.").arg(why);
    case Kind::ReplanFailed:
        return QStringLiteral("Approved, but Countersign could not check the plan again: %1. Nothing was "
                              "run; retry to try again.")
            .arg(why);
    case Kind::StoreFailure:
        return QStringLiteral("Countersign could not record this call (%1). Nothing was run.").arg(why);
    case Kind::Quitting:
        return QStringLiteral("Countersign is quitting: nothing was run for this call. Call again once "
                              "Countersign is running.");
    case Kind::BadTicket:
        return QStringLiteral("Invalid or expired requestState: %1").arg(why);
    case Kind::NeedsClientForm:
        return QStringLiteral("%1 needs a typed confirmation in the client's form: declare the "
                              "elicitation form capability")
            .arg(why);
    }
    return QStringLiteral("Countersign did not allow this call");
}

QString GateOutcome::supersededNotice()
{
    return QStringLiteral(
        "The plan changed after it was approved, so that approval no longer holds. A new card "
        "waits for a decision.");
}

QString GateOutcome::mismatchNotice(const QString &expected)
{
    return QStringLiteral("The name typed did not match \"%1\".").arg(expected);
}

} // namespace Countersign
