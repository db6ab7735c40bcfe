#pragma once

#include "tool.h"

#include <memory>

namespace Countersign {

class Gate;
class GatedAction;

// Serves a GatedAction as an MCP tool: every call goes through the Gate.
class GatedTool final : public Tool
{
public:
    GatedTool(std::shared_ptr<GatedAction> action, Gate &gate);
    ~GatedTool() override;

    QString name() const override;
    nlohmann::json descriptor() const override;
    void call(const ToolCall &call, ToolDone done) override;

private:
    std::shared_ptr<GatedAction> m_action; // shared with the gate's calls in flight
    Gate &m_gate;
};

} // namespace Countersign
