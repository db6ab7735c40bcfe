#pragma once

#include "mcprequest.h"
#include "operation.h"
#include "policy.h"

#include <memory>

namespace Countersign {

class GatedAction;
struct ToolCall;

// One tools/call as the gate judges it, copied out of the request (a ToolCall's references do not
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
    std::optional<qint64> holdMs;     // CallContext::holdMs

    static std::shared_ptr<const GateRequest> from(const std::shared_ptr<GatedAction> &action,
                                                   const ToolCall &call, qint64 receivedMs);

    // A retry brings back the requestState of an earlier input_required.
    bool isRetry() const { return params.contains("requestState"); }
    // A task's call its client cancelled (tasks/cancel): nothing more of it runs.
    bool isCancelled() const { return task && task->cancelled; }
    // The client's self-declared name (clientInfo.name, typed by the dispatcher), empty when none.
    QString clientName() const;
    // The record of this call with the given plan: who asked, for what, and where it stands. Every
    // operation the gate stores is built here.
    Operation operation(const QString &nonce, Plan plan, const QString &rule, qint64 createdMs,
                        qint64 expiresMs, Operation::Status status) const;
};

using GateRequestPtr = std::shared_ptr<const GateRequest>;

} // namespace Countersign
