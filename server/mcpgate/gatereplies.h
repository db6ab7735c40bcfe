#pragma once

#include "gatecall.h"
#include "gateoutcome.h"
#include "mcprequest.h"
#include "operation.h"
#include "tool.h"

#include <optional>

namespace Countersign {

// The gate's outcomes in MCP's shapes (the words are the outcome's own, GateOutcome::words): a run's
// tool result, input_required rounds, settled results (declined, expired, superseded, denied,
// outcome unknown), the refusals, and the JSON-RPC errors of a ticket that is not this call's and a
// client that cannot show a form; and what a 2025-era call's client is asked.
namespace GateReplies {

// inputRequests keys: the client-mode typed confirmation form, the URL-mode pointer to the card.
inline constexpr const char *kConfirmKey = "confirm";
inline constexpr const char *kApprovalKey = "approval";

// A client's bare ElicitResult in params.inputResponses[key]; nothing when absent or malformed.
std::optional<nlohmann::json> inputResponse(const nlohmann::json &params, const char *key);

// The elicitation/create params of the typed-confirmation form (client mode) and of the URL that
// shows the card (console mode, elicitationId the card's nonce); notice, if any, leads the message.
nlohmann::json confirmationRequest(const Operation &operation, const QString &notice);
nlohmann::json approvalUrlRequest(const Operation &operation, const QString &notice, const QString &url);

// An ElicitResult as the gate reads it: its action, and what was typed in the confirmation form.
ClientAnswer answerOf(const nlohmann::json &elicitResult);

// The outcome as the MCP door answers it. A Pending outcome is the round that asks the client to
// come back: requestState always, plus the URL elicitation to the card (when the outcome offers its
// page and the client declared URL mode: canOpenPage) or the typed-confirmation form (client mode).
ToolReply reply(const GateOutcome &outcome, bool canOpenPage);

} // namespace GateReplies

} // namespace Countersign
