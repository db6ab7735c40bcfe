#include "mcpgate.h"

#include "gate.h"
#include "gatereplies.h"
#include "jsonrpc.h"
#include "receipt.h"

#include <string_view>

namespace Countersign::McpGate {

// The receipt's digest leaves out the dispatcher's framing by name: both sides must name the same key.
static_assert(std::string_view(JsonRpc::kMetaServerInfo) ==
              std::string_view(ReceiptSigner::kServerInfoMetaKey));

using json = nlohmann::json;

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

// Clients measured to fail a call on a URL input request although they declare URL mode
// (docs/clients.md): Codex 0.169.0 with its mcp_2026_07_28 feature answers "-32600 unsupported MCP
// input request" and never retries, several calls at once, so nothing can be learnt from it in
// time. Its 2025-era mode takes the same prompt as elicitation/create (and declines it).
bool failsOnUrlRound(const Envelope &envelope)
{
    return !envelope.legacy && envelope.clientName == QLatin1String("codex-mcp-client");
}

// The client's answer to a round's prompt (inputResponses[key], a bare ElicitResult).
std::optional<ClientAnswer> answerIn(const json &params, const char *key)
{
    const auto answer = GateReplies::inputResponse(params, key);
    return answer ? std::optional<ClientAnswer>(GateReplies::answerOf(*answer)) : std::nullopt;
}

} // namespace

std::shared_ptr<const GateCall> callOf(const std::shared_ptr<GatedAction> &action, const ToolCall &tool,
                                       qint64 receivedMs)
{
    auto call = GateCall::of(action, tool.arguments, tool.context.principal, receivedMs);
    const Envelope &envelope = tool.request.envelope;
    call->clientName = envelope.clientName;
    call->clientInfo = envelope.clientInfo;
    call->traceparent = envelope.traceparent;
    call->protocolVersion = envelope.protocolVersion;
    call->requestId = tool.request.id;
    call->transport = tool.context.transport;
    call->task = tool.context.task;
    call->canConfirm = envelope.elicitation.form;
    call->canOpenPage = envelope.elicitation.url;
    call->getsProgress = !envelope.progressToken.is_null();
    call->failsOnPageRound = failsOnUrlRound(envelope);
    // A 2025-era call, and one whose client takes no input_required: held on its own request (the
    // reply keeps the call's own revision). Its client's answers come only through the questions
    // asked on it, and nothing is asked of a client that takes no input_required.
    call->heldOnRequest = envelope.legacy || takesNoInputRequired(envelope);
    if (call->heldOnRequest) {
        if (envelope.legacy && tool.context.elicit) {
            call->ask = [elicit =
                             tool.context.elicit](const ClientPrompt &prompt,
                                                  std::function<void(std::optional<ClientAnswer>)> answered) {
                const json params =
                    prompt.kind == ClientPrompt::Kind::Confirm
                        ? GateReplies::confirmationRequest(prompt.card, prompt.notice)
                        : GateReplies::approvalUrlRequest(prompt.card, prompt.notice, prompt.url);
                elicit(params, [answered = std::move(answered)](std::optional<json> result) {
                    if (!result || !result->is_object())
                        return answered(std::nullopt);
                    answered(GateReplies::answerOf(*result));
                });
            };
        }
        return call;
    }
    // A 2026-07-28 retry brings back its requestState, and the client's answers to the last round.
    if (const auto state = tool.params.find("requestState"); state != tool.params.end())
        call->ticket = *state;
    call->confirmAnswer = answerIn(tool.params, GateReplies::kConfirmKey);
    call->pageAnswer = answerIn(tool.params, GateReplies::kApprovalKey);
    return call;
}

void call(Gate &gate, const std::shared_ptr<GatedAction> &action, const ToolCall &tool, ToolDone done)
{
    std::shared_ptr<const GateCall> call = callOf(action, tool, gate.nowMs());
    gate.submit(call, [done = std::move(done), canOpenPage = call->canOpenPage](GateOutcome outcome) {
        done(GateReplies::reply(outcome, canOpenPage));
    });
}

} // namespace Countersign::McpGate
