#pragma once

#include <QString>

#include <map>
#include <memory>
#include <vector>

namespace Countersign {

class Tool;

// The tools the server serves, in a stable order (by name).
class ToolRegistry final
{
public:
    ToolRegistry();
    ~ToolRegistry();
    Q_DISABLE_COPY_MOVE(ToolRegistry)

    // Refuses (returns false) a second tool of the same name.
    bool add(std::unique_ptr<Tool> tool);
    Tool *find(const QString &name) const;
    std::vector<Tool *> tools() const;
    // Drops every tool (a configuration reload builds them again). Calls in flight keep what they
    // need alive themselves.
    void clear() { m_tools.clear(); }

private:
    std::map<QString, std::unique_ptr<Tool>> m_tools;
};

} // namespace Countersign
