#pragma once

#include "callchannel.h"
#include "operation.h"
#include "policy.h"
#include "principal.h"

#include <nlohmann/json.hpp>

#include <functional>
#include <memory>
#include <optional>

namespace Countersign {

class GatedAction;

// Words said first on a call's card that cost something to find (the user's request, read from the
// agent's session record): read only when a card is made, once, and the same at the re-plan after
// approval (so that the plan's digest still matches its ticket's).
class CardPreface final
{
public:
    explicit CardPreface(std::function<QString()> read) : m_read(std::move(read)) {}
    const QString &text() const
    {
        if (!m_text)
            m_text = m_read ? m_read() : QString();
        return *m_text;
    }

private:
    std::function<QString()> m_read;
    mutable std::optional<QString> m_text;
};

// A call that is not an MCP request: an agent's own tool, through its hook. It becomes a GateCall
// held on its own request while its card waits (it has no ticket to bring back).
struct AgentCall final
{
    Principal principal;
    QString client; // the agent, in words for the card ("claude-code (hook)")
    nlohmann::json arguments;
    Transport transport = Transport::Http;
    qint64 holdMs = 0; // answered "still waiting" after this, under the client's own hook timeout
    // Not empty: the call asks whatever the policy says (a rule's deny still denies), and these
    // words are its rule on the card (its session is held after the tripwire fired).
    QString held;
    // Not empty: said first on its card, before what the call does (it reaches what the human
    // declined of this session a moment ago).
    QString note;
    // Said before the note: what the user asked (null: nothing).
    std::shared_ptr<const CardPreface> preface;
    // The agent's own session id, as its hook payload sends it (empty: none): recorded with the
    // call (Operation::agentSession), and what a grant for "this agent session" is bound to.
    QString session;
};

// What the gate asks a client in the middle of a call that is held on its own request (the door
// says how: a 2025-era call's elicitation): to type the card's confirmation, or to open the card's
// page. And what the client answered: its action ("accept", "decline", "cancel"; anything else is
// none of them) and, for a confirmation, what it typed (a string, else null).
struct ClientPrompt final
{
    enum class Kind { Confirm, OpenPage };
    Kind kind = Kind::OpenPage;
    Operation card;
    QString notice; // said first (a name typed wrong)
    QString url;    // OpenPage: the card's page
};
struct ClientAnswer final
{
    QString action;
    nlohmann::json typed;
};
// answered may never be called (the client went away), or be called with nothing (it answered with
// an error); either decides nothing.
using ClientAsker =
    std::function<void(const ClientPrompt &, std::function<void(std::optional<ClientAnswer>)> answered)>;

// One call as the gate judges it, whichever door it came through (the MCP door builds it from a
// tools/call, GateCall::from from an agent's hook call): who calls, with what client, what and with
// which arguments, how it waits for the human, what its client can be asked, and on a retry the
// ticket it brought back and what its client answered. Copied out of the request: the gate answers
// later.
struct GateCall final
{
    std::shared_ptr<GatedAction> action;
    nlohmann::json arguments;
    QString argsDigest;
    PathSpellings paths; // the path arguments as the rules see them (GatedAction::pathSpellings)
    Principal principal;
    QString clientName;        // as the client names itself; empty when none
    nlohmann::json clientInfo; // what the client said of itself, for the record (an object, or null)
    QString session;           // the agent's own session (AgentCall::session); empty when none
    qint64 receivedMs = 0;     // when it reached the gate

    // A retry: the ticket it brought back, as sent (what is not a string is refused); and what its
    // client answered to the last round's prompt, the typed confirmation or the card's page. A call
    // held on its own request may bring one back too: it is checked, then held.
    std::optional<nlohmann::json> ticket;
    std::optional<ClientAnswer> confirmAnswer;
    std::optional<ClientAnswer> pageAnswer;

    // How it waits for the human. Held on its own request while the card waits (no ticket to bring
    // back: a 2025-era call, a hook's), for holdMs when set, else the gate's hold limits; a call
    // whose transport sends progress notes while it is held waits longer.
    bool heldOnRequest = false;
    std::optional<qint64> holdMs;
    bool getsProgress = false;
    // What its client can be asked: a typed confirmation (a form), the card's page; whether it
    // fails a call on a round that offers the page although it says it can open one; and how it
    // is asked while held on its request (empty: it is not).
    bool canConfirm = false;
    bool canOpenPage = false;
    bool failsOnPageRound = false;
    ClientAsker ask;
    std::shared_ptr<CallCancel> task; // a call its client may cancel while it waits; null otherwise

    QString held;                               // AgentCall::held
    QString note;                               // AgentCall::note
    std::shared_ptr<const CardPreface> preface; // AgentCall::preface

    // For its trace and record, as its door names them.
    Transport transport = Transport::Http;
    QString traceparent;
    QString protocolVersion;  // empty: not an MCP request
    nlohmann::json requestId; // the JSON-RPC id; null when none

    // The parts every door fills alike: the action, the arguments with their digest and paths,
    // who calls and when.
    static std::shared_ptr<GateCall> of(const std::shared_ptr<GatedAction> &action,
                                        const nlohmann::json &arguments, const Principal &principal,
                                        qint64 receivedMs);
    // Most of an agent's session id kept (the agent chooses it).
    static constexpr qsizetype kMaxSessionChars = 200;
    static std::shared_ptr<const GateCall> from(const std::shared_ptr<GatedAction> &action,
                                                const AgentCall &call, qint64 receivedMs);

    bool isRetry() const { return ticket.has_value(); }
    // A call its client cancelled (tasks/cancel): nothing more of it runs.
    bool isCancelled() const { return task && task->cancelled; }
    // The plan as its card shows it: the note said first (the same at the re-plan after approval,
    // so that its digest still matches the ticket's). The preface is the card's (Gate::park).
    Plan noted(Plan plan) const;
    // The record of this call with the given plan: who asked, for what, and where it stands. Every
    // operation the gate stores is built here.
    Operation operation(const QString &nonce, Plan plan, const QString &rule, qint64 createdMs,
                        qint64 expiresMs, Operation::Status status) const;
};

using GateCallPtr = std::shared_ptr<const GateCall>;

} // namespace Countersign
