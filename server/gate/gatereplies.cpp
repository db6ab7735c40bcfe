#include "gatereplies.h"

#include "jsonrpc.h"

#include <QDateTime>

namespace Countersign::GateReplies {

namespace {

using json = nlohmann::json;

// The words go in the structured form too: some clients (Codex) hand the model structuredContent
// instead of the text when both are present, and "Nothing was run" must reach it either way.
json settled(const QString &text, const char *decision, const Decision &d)
{
    json result = textResult(text, true);
    result["structuredContent"] = {{"message", text.toStdString()},
                                   {"decision", decision},
                                   {"decidedBy", d.by.toStdString()},
                                   {"reason", d.reason.toStdString()},
                                   {"decidedAt", d.atMs}};
    return result;
}

} // namespace

std::optional<json> inputResponse(const json &params, const char *key)
{
    const auto responses = params.find("inputResponses");
    if (responses == params.end() || !responses->is_object())
        return std::nullopt;
    const auto r = responses->find(key);
    if (r == responses->end() || !r->is_object() || r->contains("method") || r->contains("result"))
        return std::nullopt; // absent, or wrapped (the SDK drops those too)
    return *r;
}

json confirmationRequest(const Operation &op, const QString &notice)
{
    const QString lead = notice.isEmpty() ? QString() : notice + QLatin1Char(' ');
    const QString target = op.confirmationText();
    return {
        {"mode", "form"},
        {"message",
         (lead + QStringLiteral("%1\nType \"%2\" to confirm.").arg(op.plan.prompt, target)).toStdString()},
        {"requestedSchema",
         {{"type", "object"},
          {"properties",
           {{kConfirmKey,
             {{"type", "string"},
              {"title", QStringLiteral("Type %1 to confirm").arg(target).toStdString()}}}}},
          {"required", json::array({kConfirmKey})}}}};
}

json approvalUrlRequest(const Operation &op, const QString &notice, const QString &approvalsUrlBase)
{
    const QString lead = notice.isEmpty() ? QString() : notice + QLatin1Char(' ');
    return {
        {"mode", "url"},
        {"message",
         (lead + QStringLiteral("Approve or decline \"%1\" in the Countersign window.").arg(op.plan.title))
             .toStdString()},
        {"url", (approvalsUrlBase + op.nonce).toStdString()},
        {"elicitationId", op.nonce.toStdString()}};
}

json inputRequired(const Operation &op, const QString &sealed, const Envelope &envelope, bool firstRound,
                   const QString &notice, const QString &approvalsUrlBase)
{
    json result = {{"resultType", "input_required"}, {"requestState", sealed.toStdString()}};
    if (op.approvalMode == ApprovalMode::Client) {
        result["inputRequests"][kConfirmKey] = {{"method", "elicitation/create"},
                                                {"params", confirmationRequest(op, notice)}};
    } else if (firstRound && envelope.elicitation.url && !approvalsUrlBase.isEmpty()) {
        json params = approvalUrlRequest(op, notice, approvalsUrlBase);
        params.erase("elicitationId"); // the 2026-07-28 shape has none
        result["inputRequests"][kApprovalKey] = {{"method", "elicitation/create"},
                                                 {"params", std::move(params)}};
    }
    // Otherwise a requestState-only round: the client retries, and the retry is held for the human.
    return result;
}

ProtocolError invalidState(const QString &why)
{
    // The same words and data as the SDK's own codec, plus the reason in our words.
    return ProtocolError{JsonRpc::kInvalidParams,
                         QStringLiteral("Invalid or expired requestState: %1").arg(why),
                         {{"reason", "invalid_request_state"}}};
}

ProtocolError formCapabilityMissing(const QString &tool)
{
    return ProtocolError{JsonRpc::kMissingRequiredClientCapability,
                         QStringLiteral("%1 needs a typed confirmation in the client's form: declare the "
                                        "elicitation form capability")
                             .arg(tool),
                         {{"requiredCapabilities", {{"elicitation", {{"form", json::object()}}}}}}};
}

json denied(const PolicyDecision &verdict)
{
    return textResult(QStringLiteral("Denied by Countersign policy (%1)%2. Nothing was run.")
                          .arg(verdict.rule, verdict.reason.isEmpty()
                                                 ? QString()
                                                 : QStringLiteral(": %1").arg(verdict.reason)),
                      true);
}

json declined(const Decision &d)
{
    return settled(d.reason.isEmpty()
                       ? QStringLiteral("Declined by %1. Nothing was run.").arg(d.by)
                       : QStringLiteral("Declined by %1: %2. Nothing was run.").arg(d.by, d.reason),
                   "declined", d);
}

json expired(const Decision &d, qint64 ttlMs)
{
    return settled(
        QStringLiteral("Approval expired: the ticket's %1 s passed before the call was approved and "
                       "retried. Nothing was run; call the tool again for a new approval card.")
            .arg(ttlMs / 1000),
        "expired", d);
}

json superseded()
{
    return textResult(
        QStringLiteral("This approval was superseded: the plan changed after the card was shown, "
                       "and a new card was made. Nothing was run with this ticket."),
        true);
}

json runningElsewhere(qint64 claimedMs)
{
    return textResult(
        QStringLiteral("This approved call is running on another Countersign instance of this store (since "
                       "%1); it is not run again here. Call it again with the same arguments for its result.")
            .arg(QDateTime::fromMSecsSinceEpoch(claimedMs, Qt::UTC).toString(Qt::ISODateWithMs)),
        true);
}

json stillPending(const Operation &op)
{
    if (op.tool.startsWith(QLatin1String("agent:"))) // an agent's own tool, through its hook
        return textResult(
            QStringLiteral("Still waiting for a human to approve \"%1\" in the Countersign window; "
                           "nothing has run. Make the same call again to rejoin the card: an approval "
                           "waits for it.")
                .arg(op.plan.title),
            true);
    return textResult(
        QStringLiteral("Waiting for a human to approve \"%1\" in the Countersign window; nothing has "
                       "run yet. Call %2 again with the same arguments to keep waiting: the same "
                       "approval card is kept, and the call returns the result once it is approved.")
            .arg(op.plan.title, op.tool),
        true);
}

json cancelledByClient()
{
    return textResult(QStringLiteral("The client cancelled this call before it ran. Nothing was run."), true);
}

json connectionRevoked(const QString &connection)
{
    return textResult(
        QStringLiteral("The connection \"%1\" was revoked before this approved call ran. Nothing "
                       "was run.")
            .arg(connection),
        true);
}

json outcomeUnknown(qint64 claimedMs)
{
    return textResult(
        QStringLiteral(
            "Outcome unknown: this approved call was claimed to run at %1, but Countersign stopped "
            "before recording how it ended, so it may or may not have run. It was not run again. "
            "Check its target before asking for a new approval.")
            .arg(QDateTime::fromMSecsSinceEpoch(claimedMs, Qt::UTC).toString(Qt::ISODateWithMs)),
        true);
}

json tooManyPending(const QString &connection, int waiting)
{
    return textResult(
        QStringLiteral("Refused: connection \"%1\" already has %2 approvals waiting. Wait for the "
                       "human to work through them before asking for more.")
            .arg(connection)
            .arg(waiting),
        true);
}

json planFailed(const QString &error)
{
    return textResult(QStringLiteral("Countersign could not plan this call: %1. Nothing was run.").arg(error),
                      true);
}

json replanFailed(const QString &error)
{
    return textResult(
        QStringLiteral("Approved, but Countersign could not check the plan again: %1. Nothing was "
                       "run; retry to try again.")
            .arg(error),
        true);
}

json storeFailure(const QString &error)
{
    return textResult(
        QStringLiteral("Countersign could not record this call (%1). Nothing was run.").arg(error), true);
}

json quitting()
{
    return textResult(
        QStringLiteral("Countersign is quitting: nothing was run for this call. Call again once "
                       "Countersign is running."),
        true);
}

QString supersededNotice()
{
    return QStringLiteral(
        "The plan changed after it was approved, so that approval no longer holds. A new card "
        "waits for a decision.");
}

QString mismatchNotice(const QString &expected)
{
    return QStringLiteral("The name typed did not match \"%1\".").arg(expected);
}

} // namespace Countersign::GateReplies
