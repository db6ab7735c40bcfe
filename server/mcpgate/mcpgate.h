#pragma once

#include "gatecall.h"
#include "tool.h"

#include <memory>

namespace Countersign {

class Gate;
class GatedAction;

// The gate's MCP door: a tools/call as the gate judges it, and its outcome as the client reads it.
namespace McpGate {

// The call, copied out of the request: a retry's requestState and inputResponses (2026-07-28), a
// 2025-era call held on its own request and asked through elicitation on its channel, a task's
// cancel, what the client declared it can show, and the trace's names.
std::shared_ptr<const GateCall> callOf(const std::shared_ptr<GatedAction> &action, const ToolCall &call,
                                       qint64 receivedMs);
// Submits the call to the gate and answers it in MCP's shapes (GateReplies::reply).
void call(Gate &gate, const std::shared_ptr<GatedAction> &action, const ToolCall &call, ToolDone done);

} // namespace McpGate

} // namespace Countersign
