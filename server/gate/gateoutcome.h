#pragma once

#include "operation.h"
#include "policy.h"

#include <nlohmann/json.hpp>

#include <QString>

#include <functional>

namespace Countersign {

// What the gate made of a call, whichever door it came through: a domain value, never a protocol's
// shape. The MCP door turns it into a tool result, input_required or a JSON-RPC error
// (GateReplies); the hooks' door into a judgement, and from it the client's allow or deny. The
// words the agent reads for every outcome but a run are words() and nowhere else.
struct GateOutcome final
{
    enum class Kind {
        Ran,               // run once: result is the action's, with its receipt when a human approved it
        Pending,           // its card waits for a human: ask again with the sealed ticket
        StillPending,      // held as long as it may be and its card still waits: call again to rejoin it
        Denied,            // a rule, or the human's deny from now on
        Declined,          // a human, or the client's own form, declined its card
        Expired,           // its card's time to decide ended before it was approved and run
        Superseded,        // the plan changed since its card was shown, and that card no longer holds
        OutcomeUnknown,    // claimed to run, but how it ended was never recorded: not run again
        RunningElsewhere,  // approved and running on another instance sharing the store
        ConnectionRevoked, // its connection was revoked before it ran
        CancelledByClient, // the client cancelled it before it ran
        TooManyPending,    // its connection has kMaxPendingPerConnection cards waiting already
        PlanFailed,        // the call could not be planned
        ReplanFailed,      // approved, but its plan could not be made again before the run
        StoreFailure,      // it could not be recorded
        Quitting,          // the gate is draining: nothing new starts
        BadTicket,         // the ticket brought back is not one for this call (why)
        NeedsClientForm,   // its card wants a typed confirmation in a client that cannot show one
    };

    Kind kind = Kind::StoreFailure;
    QString nonce;          // the operation it is about, where there is one
    nlohmann::json result;  // Ran: the tool result as the action returned it (receipt attached when approved)
    bool approved = false;  // Ran: a human approved its card (the result carries a signed receipt)
    bool granted = false;   // Ran: an allow grant ran it with no card
    Operation card;         // Pending, StillPending: the card that waits
    QString sealed;         // Pending: the ticket to bring back
    QString approvalsUrl;   // Pending: the card's page, to offer the client on this round (empty: none)
    QString notice;         // Pending: said first to the client (the plan changed, a name typed wrong)
    Decision decision;      // Declined, Expired: who decided, and why
    PolicyDecision verdict; // Denied: the rule and its reason
    QString why;            // what failed, why the ticket is refused, the connection or the tool it names
    qint64 atMs = 0;        // OutcomeUnknown, RunningElsewhere: when the run was claimed
    qint64 ttlMs = 0;       // Expired: the time to decide the card had
    int waiting = 0;        // TooManyPending: how many cards wait

    static GateOutcome ran(const QString &nonce, nlohmann::json result, bool approved, bool granted = false);
    static GateOutcome pending(const Operation &card, const QString &sealed, const QString &approvalsUrl,
                               const QString &notice);
    static GateOutcome stillPending(const Operation &card);
    static GateOutcome denied(const PolicyDecision &verdict);
    static GateOutcome declined(const Decision &decision);
    static GateOutcome expired(const Decision &decision, qint64 ttlMs);
    static GateOutcome claimed(Kind kind, qint64 claimedMs); // OutcomeUnknown, RunningElsewhere
    static GateOutcome tooManyPending(const QString &connection, int waiting);
    // Superseded, ConnectionRevoked, CancelledByClient, PlanFailed, ReplanFailed, StoreFailure,
    // Quitting, BadTicket, NeedsClientForm, with what it names.
    static GateOutcome refused(Kind kind, const QString &why = {});

    // Whether the call ran and its action said it succeeded (ToolResult::failed read here only).
    bool ranOk() const;
    // What the agent reads of every outcome but a run (and of a run, the first text of its result).
    QString words() const;
    // The notices said first on a card's prompt.
    static QString supersededNotice();
    static QString mismatchNotice(const QString &expected);
};

using GateDone = std::function<void(GateOutcome)>;

} // namespace Countersign
