#pragma once

#include "plan.h"
#include "policy.h"

#include <nlohmann/json.hpp>

#include <QMetaType>
#include <QString>
#include <QStringList>

#include <algorithm>

namespace Countersign {

// The name decisions give a person deciding at a console: "console:<person>".
inline QString reviewerFor(const QString &person)
{
    return QStringLiteral("console:") + person;
}

// Who must approve a card: a team's review rules, fixed when the card is made (Policy::peopleFor,
// Policy::ownConnectionBarred), and the approvals given so far while more are needed.
struct Review final
{
    int people = 1;           // approvals by different people needed
    bool ownerBarred = false; // the person who owns the calling connection may not approve
    QString owner;            // that person (TokenStore's owner); empty when none is on record
    QStringList approvedBy;   // reviewers ("console:<person>") who approved, oldest first

    // Why reviewer (as decisions name them) may not approve; empty when they may.
    QString refusal(const QString &reviewer) const;
    // Approvals still needed after those given.
    int stillNeeded() const { return std::max(0, people - static_cast<int>(approvedBy.size())); }
    bool operator==(const Review &) const = default;
};

// One gated call as the audit store keeps it and an approval card shows it: who asked, for what,
// the plan they would get, and where it stands.
struct Operation final
{
    // Where an operation stands. pending → approved | declined | expired | abandoned | superseded,
    // and approved → timed out; calls a rule settles at once are allowed or denied. Expired: no one
    // decided before the ticket's TTL while its agent still waited (or none is known to have gone).
    // Abandoned: no one decided before the TTL, and its agent had stopped waiting. Timed out:
    // approved, but its agent did not call again before the TTL, so nothing ran.
    enum class Status {
        Pending,
        Approved,
        Declined,
        Expired,
        Superseded,
        Allowed,
        Denied,
        Abandoned,
        TimedOut
    };

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
    // The sealed ticket's end: how long a card may wait for a human who has not seen it
    // (ttlSeconds, or cardUnseenLimitSeconds when longer).
    qint64 expiresMs = 0;
    // Once a human has seen the card: its time to decide, ttlSeconds from that first sight (the
    // card-seen event of the chain holds it); 0 while no one has. Not a column: read from the chain.
    qint64 decideByMs = 0;
    QString supersedes; // nonce of the card this one replaced after the plan changed
    Status status = Status::Pending;
    Review review;
    QString instance; // the instance that served the call (Config::instanceName); empty before 6

    // clientInfo.name, empty when the client sent none (or, being the agent's text, not a string).
    QString clientName() const;
    // The agent's own session id, for a call through its hook that sent one (clientInfo.session);
    // empty otherwise.
    QString agentSession() const;
    // Whether approving needs a name typed: high and critical risk where nothing is kept (a copy
    // kept in full can be taken back, and typing there only teaches that every card is a chore).
    // The name is short and means something: the first target's own name when it is a path (the
    // folder's name, never a whole temporary path), the target itself otherwise (a branch, a
    // remote), or the tool's name when it names none. The console's card, the phone and a
    // client-mode form ask for the same text.
    bool needsTypedConfirmation() const { return plan.risk >= Risk::High && !plan.keptInFull(); }
    QString confirmationText() const;
    // A card can be decided until its ticket expires, and once seen until its time to decide ends.
    qint64 deadlineMs() const { return decideByMs > 0 ? std::min(decideByMs, expiresMs) : expiresMs; }
    bool isExpiredAt(qint64 nowMs) const { return nowMs >= deadlineMs(); }
};

QString statusName(Operation::Status status);
std::optional<Operation::Status> parseStatus(const QString &name);

// A decision on a pending operation. The first one stored wins; later ones are refused.
struct Decision final
{
    // Approved, Declined, Expired, Abandoned or Superseded
    Operation::Status outcome = Operation::Status::Declined;
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
