#pragma once

#include "mcprequest.h"
#include "operation.h"
#include "policy.h"

#include <memory>

namespace Countersign {

class GatedAction;
struct ToolCall;

// A call that is not an MCP request: an agent's own tool, through its hook. It reaches the gate
// through Gate::judge, a front door beside the MCP one, and is held on its own request while its
// card waits (it has no ticket to bring back).
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
    // The agent's own session id, as its hook payload sends it (empty: none): recorded with the
    // call (Operation::agentSession), and what a grant for "this agent session" is bound to.
    QString session;
};

// One call as the gate judges it, copied out of the request (a ToolCall's references do not
// outlive Tool::call, and the gate answers later).
struct GateRequest final
{
    std::shared_ptr<GatedAction> action;
    nlohmann::json arguments;
    nlohmann::json params;
    Principal principal;
    Envelope envelope;
    nlohmann::json id; // the JSON-RPC id of the tools/call
    Transport transport = Transport::Http;
    qint64 receivedMs = 0; // when it reached the gate
    QString argsDigest;
    PathSpellings paths; // the path arguments as the rules see them (GatedAction::pathSpellings)
    Elicitor elicit;     // a 2025-era call's way to ask its client (CallContext::elicit); may be empty
    std::shared_ptr<CallCancel> task; // a 2025-11-25 task's call (CallContext::task); null otherwise
    std::optional<qint64> holdMs;     // AgentCall::holdMs; unset: the gate's hold limits apply
    QString held;                     // AgentCall::held
    QString note;                     // AgentCall::note
    QString session;                  // AgentCall::session

    static std::shared_ptr<const GateRequest> from(const std::shared_ptr<GatedAction> &action,
                                                   const ToolCall &call, qint64 receivedMs);
    // Most of an agent's session id kept (the agent chooses it).
    static constexpr qsizetype kMaxSessionChars = 200;
    static std::shared_ptr<const GateRequest> from(const std::shared_ptr<GatedAction> &action,
                                                   const AgentCall &call, qint64 receivedMs);

    // A retry brings back the requestState of an earlier input_required.
    bool isRetry() const { return params.contains("requestState"); }
    // A task's call its client cancelled (tasks/cancel): nothing more of it runs.
    bool isCancelled() const { return task && task->cancelled; }
    // The client's self-declared name (clientInfo.name, typed by the dispatcher), empty when none.
    QString clientName() const;
    // The plan as its card shows it: the note said first (the same at the re-plan after approval,
    // so that its digest still matches the ticket's).
    Plan noted(Plan plan) const;
    // The record of this call with the given plan: who asked, for what, and where it stands. Every
    // operation the gate stores is built here.
    Operation operation(const QString &nonce, Plan plan, const QString &rule, qint64 createdMs,
                        qint64 expiresMs, Operation::Status status) const;
};

using GateRequestPtr = std::shared_ptr<const GateRequest>;

} // namespace Countersign
