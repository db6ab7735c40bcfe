#pragma once

#include <QTreeWidget>

namespace Countersign {

// The MCP servers behind the gate (the configuration's "upstreams"), for the Connections tab: one
// row per upstream with its state (ready, with the server's name and protocol; starting; down, with
// why), and under it each tool as served with the decision a call gets when no argument rule
// singles it out, and the rule or default that gives it. Everything shown is plain text: names
// and errors come from the upstream.
class UpstreamList final : public QTreeWidget
{
    Q_OBJECT
public:
    explicit UpstreamList(QWidget *parent = nullptr);
    Q_DISABLE_COPY_MOVE(UpstreamList)

    // status: McpServer::upstreamsChanged's JSON text; anything unreadable shows as no upstreams.
    void setStatus(const QString &status);
};

} // namespace Countersign
