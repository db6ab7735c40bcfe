#pragma once

#include "mcprequest.h"

#include <nlohmann/json.hpp>

#include <QString>

#include <memory>

namespace Countersign {

class ContentSource;
class ToolRegistry;
class ToolTasks;

// JSON-RPC dispatch for MCP 2026-07-28 (and the 2025 revisions' sessions), without any transport:
// a request RequestReader read goes in, a Reply comes out. Transports read the message, run their
// own header and session checks on the McpRequest, then hand it here once.
class Dispatcher final
{
public:
    struct ServerInfo final
    {
        QString name;
        QString version;
        QString instructions;
    };

    Dispatcher(const ToolRegistry &tools, ServerInfo info);
    Q_DISABLE_COPY_MOVE(Dispatcher)

    // Where prompts and resources come from (the gateway); none: they are not advertised and their
    // methods answer -32601. Must outlive the dispatcher.
    void setContent(ContentSource *content) { m_content = content; }
    // Where 2025-11-25 task-augmented tool calls are kept; none: tasks are not advertised, and a
    // call's task field is ignored (the call is answered as usual).
    void setTasks(std::shared_ptr<ToolTasks> tasks) { m_tasks = std::move(tasks); }

    // Version support, method routing and the method itself, for a request RequestReader read.
    // done receives the Reply once; for everything but a tool that waits (the gate) that happens
    // before handle() returns. Anything that throws inside is answered -32603.
    void handle(const McpRequest &request, const CallContext &context, ReplyHandler done) const;

    // RequestReader::read, then handle(): for tests, and callers with no headers and no sessions.
    void dispatch(const nlohmann::json &message, const CallContext &context, ReplyHandler done) const;

    nlohmann::json serverInfoMeta() const;

private:
    void handleLegacy(const McpRequest &request, const CallContext &context, ReplyHandler done) const;
    void handleChecked(const McpRequest &request, const CallContext &context, ReplyHandler done) const;
    nlohmann::json discover() const;
    nlohmann::json listTools() const;
    void callTool(const McpRequest &request, const CallContext &context, ReplyHandler done) const;
    // 2025-11-25 tasks: whether this session has them, a task-augmented tools/call (answered with
    // its task at once), and tasks/get, tasks/result, tasks/cancel and tasks/list.
    bool hasTasks(const McpRequest &request) const;
    void callAsTask(const McpRequest &request, const CallContext &context, ReplyHandler done) const;
    bool serveTasks(const McpRequest &request, const CallContext &context, ReplyHandler &done) const;
    // prompts/* and resources/* through the content source; false when the method is not one of
    // them or nothing serves it (the caller answers -32601).
    bool serveContent(const McpRequest &request, ReplyHandler &done) const;
    nlohmann::json capabilities(bool legacy, bool tasks = false) const;
    Reply result(const nlohmann::json &id, nlohmann::json body) const;
    // A 2025-era result: no resultType, no caching hints.
    Reply legacyResult(const nlohmann::json &id, nlohmann::json body) const;

    const ToolRegistry &m_tools;
    ServerInfo m_info;
    ContentSource *m_content = nullptr;
    std::shared_ptr<ToolTasks> m_tasks;
};

} // namespace Countersign
