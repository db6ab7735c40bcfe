#include "toolregistry.h"

#include "tool.h"

namespace Countersign {

ToolRegistry::ToolRegistry() = default;
ToolRegistry::~ToolRegistry() = default;

bool ToolRegistry::add(std::unique_ptr<Tool> tool)
{
    const QString name = tool->name();
    return m_tools.emplace(name, std::move(tool)).second;
}

Tool *ToolRegistry::find(const QString &name) const
{
    const auto it = m_tools.find(name);
    return it == m_tools.end() ? nullptr : it->second.get();
}

std::vector<Tool *> ToolRegistry::tools() const
{
    std::vector<Tool *> out;
    out.reserve(m_tools.size());
    for (const auto &[name, tool] : m_tools)
        out.push_back(tool.get());
    return out;
}

} // namespace Countersign
