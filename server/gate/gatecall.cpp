#include "gatecall.h"

#include "canonicaljson.h"
#include "gatedaction.h"

namespace Countersign {

std::shared_ptr<GateCall> GateCall::of(const std::shared_ptr<GatedAction> &action,
                                       const nlohmann::json &arguments, const Principal &principal,
                                       qint64 receivedMs)
{
    auto call = std::make_shared<GateCall>();
    call->action = action;
    call->arguments = arguments;
    call->argsDigest = QString::fromLatin1(CanonicalJson::digest(arguments));
    call->paths = action->pathSpellings(arguments);
    call->principal = principal;
    call->receivedMs = receivedMs;
    return call;
}

std::shared_ptr<const GateCall> GateCall::from(const std::shared_ptr<GatedAction> &action,
                                               const AgentCall &agent, qint64 receivedMs)
{
    auto call = of(action, agent.arguments, agent.principal, receivedMs);
    // Held on its own request while the card waits; it has no way to ask its client anything, so a
    // card in client mode is refused (GateOutcome::Kind::NeedsClientForm).
    call->heldOnRequest = true;
    call->holdMs = agent.holdMs;
    call->clientName = agent.client;
    call->clientInfo = {{"name", agent.client.toStdString()}};
    call->session = agent.session.left(kMaxSessionChars);
    if (!call->session.isEmpty())
        call->clientInfo["session"] = call->session.toStdString();
    call->transport = agent.transport;
    call->held = agent.held;
    call->note = agent.note;
    call->preface = agent.preface;
    return call;
}

Plan GateCall::noted(Plan plan) const
{
    if (note.isEmpty())
        return plan;
    plan.summary = plan.summary.isEmpty() ? note : note + QLatin1Char(' ') + plan.summary;
    plan.prompt = note + QStringLiteral("\n\n") + plan.prompt;
    return plan;
}

Operation GateCall::operation(const QString &nonce, Plan plan, const QString &rule, qint64 createdMs,
                              qint64 expiresMs, Operation::Status status) const
{
    Operation op;
    op.nonce = nonce;
    op.tool = action->name();
    op.principal = principal.name;
    op.clientInfo = clientInfo.is_object() ? clientInfo : nlohmann::json::object();
    op.arguments = arguments;
    op.argsDigest = argsDigest;
    op.planDigest = plan.digest();
    op.plan = std::move(plan);
    op.rule = rule;
    op.traceparent = traceparent;
    op.createdMs = createdMs;
    op.expiresMs = expiresMs;
    op.status = status;
    return op;
}

} // namespace Countersign
