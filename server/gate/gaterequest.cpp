#include "gaterequest.h"

#include "canonicaljson.h"
#include "gatedaction.h"
#include "tool.h"

namespace Countersign {

namespace {

// 2026-07-28 clients measured to fail a call on any input_required result although they speak
// that revision: their MCP layer takes nothing but a CallToolResult. Copilot CLI 1.0.102 (its
// client "copilot-cli"; copilot-cli#4834) fails the call at once with "expected CallToolResult from
// tools/call, got CustomResult", and its model never hears of the card (`countersign selftest
// copilot` showed it). Their calls are held on their own request, as a 2025-era call is, and
// answered with a CallToolResult: the decision, or the words to call again.
bool takesNoInputRequired(const Envelope &envelope)
{
    return !envelope.legacy && envelope.clientName == QLatin1String("copilot-cli");
}

} // namespace

std::shared_ptr<const GateRequest> GateRequest::from(const std::shared_ptr<GatedAction> &action,
                                                     const ToolCall &call, qint64 receivedMs)
{
    auto request = std::make_shared<GateRequest>();
    request->action = action;
    request->arguments = call.arguments;
    request->params = call.params;
    request->principal = call.context.principal;
    request->envelope = call.request.envelope;
    request->id = call.request.id;
    request->transport = call.context.transport;
    request->receivedMs = receivedMs;
    request->task = call.context.task;
    // For the gate alone: the reply keeps the call's own revision, and nothing is asked of the client.
    const bool heldOnly = takesNoInputRequired(request->envelope);
    if (heldOnly)
        request->envelope.legacy = true;
    if (request->envelope.legacy) {
        if (!heldOnly)
            request->elicit = call.context.elicit;
        // Not 2025-era params: a 2025-era call is answered on its own request, and the client's
        // answers come only through the questions asked on it.
        request->params.erase("requestState");
        request->params.erase("inputResponses");
    }
    request->argsDigest = QString::fromLatin1(CanonicalJson::digest(call.arguments));
    request->paths = action->pathSpellings(call.arguments);
    return request;
}

std::shared_ptr<const GateRequest> GateRequest::from(const std::shared_ptr<GatedAction> &action,
                                                     const AgentCall &call, qint64 receivedMs)
{
    auto request = std::make_shared<GateRequest>();
    request->action = action;
    request->arguments = call.arguments;
    request->params = nlohmann::json::object(); // no ticket, no answers: it is held on its own request
    request->principal = call.principal;
    // Held on its own request while the card waits, as a 2025-era call is; it has no way to ask
    // its client anything, so a card in client mode is refused (GateOutcome::Kind::NeedsClientForm).
    request->envelope.legacy = true;
    request->envelope.clientName = call.client;
    request->envelope.clientInfo = {{"name", call.client.toStdString()}};
    request->session = call.session.left(kMaxSessionChars);
    if (!request->session.isEmpty())
        request->envelope.clientInfo["session"] = request->session.toStdString();
    request->transport = call.transport;
    request->receivedMs = receivedMs;
    request->holdMs = call.holdMs;
    request->held = call.held;
    request->note = call.note;
    request->argsDigest = QString::fromLatin1(CanonicalJson::digest(call.arguments));
    request->paths = action->pathSpellings(call.arguments);
    return request;
}

Plan GateRequest::noted(Plan plan) const
{
    if (note.isEmpty())
        return plan;
    plan.summary = plan.summary.isEmpty() ? note : note + QLatin1Char(' ') + plan.summary;
    plan.prompt = note + QStringLiteral("\n\n") + plan.prompt;
    return plan;
}

QString GateRequest::clientName() const
{
    return envelope.clientName;
}

Operation GateRequest::operation(const QString &nonce, Plan plan, const QString &rule, qint64 createdMs,
                                 qint64 expiresMs, Operation::Status status) const
{
    Operation op;
    op.nonce = nonce;
    op.tool = action->name();
    op.principal = principal.name;
    op.clientInfo = envelope.clientInfo.is_object() ? envelope.clientInfo : nlohmann::json::object();
    op.arguments = arguments;
    op.argsDigest = argsDigest;
    op.planDigest = plan.digest();
    op.plan = std::move(plan);
    op.rule = rule;
    op.traceparent = envelope.traceparent;
    op.createdMs = createdMs;
    op.expiresMs = expiresMs;
    op.status = status;
    return op;
}

} // namespace Countersign
