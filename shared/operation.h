#pragma once

#include "plan.h"
#include "policy.h"

#include <nlohmann/json.hpp>

#include <QMetaType>
#include <QString>

namespace Countersign {

// One gated call as the audit store keeps it and an approval card shows it: who asked, for what,
// the plan they would get, and where it stands.
struct Operation final
{
    // Where an operation stands. pending → approved | declined | expired | superseded; calls a
    // rule settles at once are allowed or denied.
    enum class Status { Pending, Approved, Declined, Expired, Superseded, Allowed, Denied };

    QString nonce; // the ticket's nonce: the operation's identity (also the card id in URLs)
    QString tool;
    QString principal; // the connection (token name) that asked
    nlohmann::json clientInfo = nlohmann::json::object();
    nlohmann::json arguments = nlohmann::json::object();
    QString argsDigest;
    Plan plan;
    QString planDigest;
    ApprovalMode approvalMode = ApprovalMode::Console;
    QString rule; // the policy rule that decided "ask" (or allow/deny), in words
    QString traceparent;
    qint64 createdMs = 0;
    qint64 expiresMs = 0;
    QString supersedes; // nonce of the card this one replaced after the plan changed
    Status status = Status::Pending;

    // clientInfo.name, empty when the client sent none (or, being the agent's text, not a string).
    QString clientName() const;
    // Whether approving needs a name typed (high and critical risk), and the name: the plan's
    // first target, or the tool's name when it names none. The console's card and a client-mode
    // form ask for the same text.
    bool needsTypedConfirmation() const { return plan.risk >= Risk::High; }
    QString confirmationText() const { return plan.targets.isEmpty() ? tool : plan.targets.first(); }
    // A card can be decided until its ticket expires.
    bool isExpiredAt(qint64 nowMs) const { return nowMs >= expiresMs; }
};

QString statusName(Operation::Status status);
std::optional<Operation::Status> parseStatus(const QString &name);

// A decision on a pending operation. The first one stored wins; later ones are refused.
struct Decision final
{
    Operation::Status outcome = Operation::Status::Declined; // Approved, Declined, Expired or Superseded
    QString by; // "console:<user>", "client:<connection>", "server" (expiry, supersession)
    QString reason;
    qint64 atMs = 0;
};

// The claim on a ticket's single run, with the stored result once the run finished.
struct Claim final
{
    qint64 claimedMs = 0;
    qint64 finishedMs = 0; // 0 while the run has not finished (or never did: outcome unknown)
    nlohmann::json result; // the complete tool result given to the first caller
    QString instance;      // the instance that claimed it (empty: before instances were recorded)
};

} // namespace Countersign

Q_DECLARE_METATYPE(Countersign::Operation)
