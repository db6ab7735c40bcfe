#pragma once

#include "mcprequest.h"
#include "operation.h"
#include "policy.h"
#include "tool.h"

#include <optional>

namespace Countersign {

// Every answer the gate gives a client, in MCP's shapes: input_required rounds, settled results
// (declined, expired, superseded, denied, outcome unknown) and the refusals. The words the agent
// reads are here and nowhere else; the gate decides which one applies.
namespace GateReplies {

// inputRequests keys: the client-mode typed confirmation form, the URL-mode pointer to the card.
inline constexpr const char *kConfirmKey = "confirm";
inline constexpr const char *kApprovalKey = "approval";

// A client's bare ElicitResult in params.inputResponses[key]; nothing when absent or malformed.
std::optional<nlohmann::json> inputResponse(const nlohmann::json &params, const char *key);

// The elicitation/create params of the typed-confirmation form (client mode) and of the URL that
// shows the card (console mode, elicitationId the card's nonce); notice, if any, leads the message.
nlohmann::json confirmationRequest(const Operation &operation, const QString &notice);
nlohmann::json approvalUrlRequest(const Operation &operation, const QString &notice,
                                  const QString &approvalsUrlBase);

// The round that asks the client to come back: requestState always, plus a URL elicitation to the
// card (first round, URL mode declared) or the typed-confirmation form (client mode); notice, if
// any, leads the message.
nlohmann::json inputRequired(const Operation &operation, const QString &sealed, const Envelope &envelope,
                             bool firstRound, const QString &notice, const QString &approvalsUrlBase);

ProtocolError invalidState(const QString &why);
ProtocolError formCapabilityMissing(const QString &tool);

nlohmann::json denied(const PolicyDecision &verdict);
nlohmann::json declined(const Decision &decision);
nlohmann::json expired(const Decision &decision, qint64 ttlMs);
nlohmann::json superseded();
// A 2025-era call held until the hold limit, or a 2026-07-28 call at the last round its client
// takes, with the card still undecided: nothing ran; calling the same tool with the same arguments
// again joins the same card.
nlohmann::json stillPending(const Operation &operation);
nlohmann::json outcomeUnknown(qint64 claimedMs);
// A task's call its client cancelled before it ran: nothing ran, and the card, if any, waits on.
nlohmann::json cancelledByClient();
// A 2025-era retry of an approved call another live instance of the team is running still.
nlohmann::json runningElsewhere(qint64 claimedMs);
// An approved call whose connection was revoked before it ran.
nlohmann::json connectionRevoked(const QString &connection);
nlohmann::json tooManyPending(const QString &connection, int waiting);
nlohmann::json planFailed(const QString &error);
nlohmann::json replanFailed(const QString &error);
nlohmann::json storeFailure(const QString &error);
nlohmann::json quitting();

QString supersededNotice();
QString mismatchNotice(const QString &expected);

} // namespace GateReplies

} // namespace Countersign
