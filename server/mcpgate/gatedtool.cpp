#include "gatedtool.h"

#include "gatedaction.h"
#include "mcpgate.h"

namespace Countersign {

GatedTool::GatedTool(std::shared_ptr<GatedAction> action, Gate &gate)
    : m_action(std::move(action)), m_gate(gate)
{
}

GatedTool::~GatedTool() = default;

QString GatedTool::name() const
{
    return m_action->name();
}

nlohmann::json GatedTool::descriptor() const
{
    return m_action->descriptor();
}

void GatedTool::call(const ToolCall &call, ToolDone done)
{
    McpGate::call(m_gate, m_action, call, std::move(done));
}

} // namespace Countersign
