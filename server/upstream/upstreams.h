#pragma once

#include "upstreamspec.h"

#include <nlohmann/json.hpp>

#include <QObject>

#include <map>

namespace Countersign {

class CommandRunner;
class Gate;
class Policy;
class ToolRegistry;
class UpstreamLink;

// The configured upstream MCP servers (server/upstream): one UpstreamLink each, kept across
// configuration reloads while its connection (command, env, cwd, url, headers) stays the same.
// Lives in the server thread.
class Upstreams final : public QObject
{
    Q_OBJECT
public:
    explicit Upstreams(QObject *parent = nullptr);
    ~Upstreams() override;
    Q_DISABLE_COPY_MOVE(Upstreams)

    // Starts the new ones, stops the removed ones, restarts those whose connection changed.
    void configure(const QList<UpstreamSpec> &specs);
    // Adds every ready upstream's tools, as GatedTools, under their prefixes; a name taken already
    // (a built-in tool or an action) is skipped with a warning.
    void addTo(ToolRegistry &tools, Gate &gate, CommandRunner &runner) const;
    // For the window: [{"name", "state", "error", "server", "protocol", "tools": [{"name",
    // "decision", "rule"}]}], each tool's decision as policy makes it for a call that no
    // argument rule singles out.
    nlohmann::json status(const Policy &policy) const;
    UpstreamLink *link(const QString &name) const;

Q_SIGNALS:
    // An upstream's tools changed (it became ready, went down, or listed anew).
    void toolsChanged();
    void statusChanged();

private:
    std::map<QString, UpstreamLink *> m_links;
};

} // namespace Countersign
