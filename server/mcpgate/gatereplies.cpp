#include "gatereplies.h"

#include "jsonrpc.h"

namespace Countersign::GateReplies {

namespace {

using json = nlohmann::json;
using Kind = GateOutcome::Kind;

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

json inputRequired(const GateOutcome &o, bool canOpenPage)
{
    json result = {{"resultType", "input_required"}, {"requestState", o.sealed.toStdString()}};
    if (o.card.approvalMode == ApprovalMode::Client) {
        result["inputRequests"][kConfirmKey] = {{"method", "elicitation/create"},
                                                {"params", confirmationRequest(o.card, o.notice)}};
    } else if (!o.approvalsUrl.isEmpty() && canOpenPage) {
        json params = approvalUrlRequest(o.card, o.notice, o.approvalsUrl);
        params.erase("elicitationId"); // the 2026-07-28 shape has none
        result["inputRequests"][kApprovalKey] = {{"method", "elicitation/create"},
                                                 {"params", std::move(params)}};
    }
    // Otherwise a requestState-only round: the client retries, and the retry is held for the human.
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

ClientAnswer answerOf(const json &result)
{
    ClientAnswer answer;
    if (const auto action = result.find("action"); action != result.end() && action->is_string())
        answer.action = QString::fromStdString(action->get<std::string>());
    if (const auto content = result.find("content"); content != result.end() && content->is_object())
        answer.typed = content->value(kConfirmKey, json());
    return answer;
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

json approvalUrlRequest(const Operation &op, const QString &notice, const QString &url)
{
    const QString lead = notice.isEmpty() ? QString() : notice + QLatin1Char(' ');
    return {
        {"mode", "url"},
        {"message",
         (lead + QStringLiteral("Approve or decline \"%1\" in the Countersign window.").arg(op.plan.title))
             .toStdString()},
        {"url", url.toStdString()},
        {"elicitationId", op.nonce.toStdString()}};
}

ToolReply reply(const GateOutcome &o, bool canOpenPage)
{
    switch (o.kind) {
    case Kind::Ran:
        return o.result;
    case Kind::Pending:
        return inputRequired(o, canOpenPage);
    case Kind::Declined:
        return settled(o.words(), "declined", o.decision);
    case Kind::Expired:
        return settled(o.words(), "expired", o.decision);
    case Kind::BadTicket:
        // The same words and data as the SDK's own codec, plus the reason in our words.
        return ProtocolError{JsonRpc::kInvalidParams, o.words(), {{"reason", "invalid_request_state"}}};
    case Kind::NeedsClientForm:
        return ProtocolError{JsonRpc::kMissingRequiredClientCapability,
                             o.words(),
                             {{"requiredCapabilities", {{"elicitation", {{"form", json::object()}}}}}}};
    case Kind::StillPending:
    case Kind::Denied:
    case Kind::Superseded:
    case Kind::OutcomeUnknown:
    case Kind::RunningElsewhere:
    case Kind::ConnectionRevoked:
    case Kind::CancelledByClient:
    case Kind::TooManyPending:
    case Kind::PlanFailed:
    case Kind::ReplanFailed:
    case Kind::StoreFailure:
    case Kind::Quitting:
        break;
    }
    return textResult(o.words(), true);
}

} // namespace Countersign::GateReplies
