#pragma once

#include "mcprequest.h"

#include <nlohmann/json.hpp>

#include <QString>

#include <memory>
#include <optional>
#include <variant>

namespace Countersign {

class ContentSource;
class ToolRegistry;
class ToolTasks;

// JSON-RPC dispatch for MCP 2026-07-28, without any transport: a parsed message goes in, a Reply
// comes out. Transports call classify(), run their own header checks on the McpRequest, then
// handle(); dispatch() does both for transports without headers (stdio) and for tests.
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

    // Checks JSON-RPC shape and the _meta envelope. A Reply means the message is answered already
    // (an error, or 202 for a notification). headerVersion is the MCP-Protocol-Version header, if
    // the transport has one. With allowLegacy (HTTP, which keeps sessions), a request without the
    // envelope is a 2025-era one (envelope.legacy): an initialize, or a request the transport must
    // match to its session; without it such a request is refused with the supported versions.
    std::variant<McpRequest, Reply> classify(const nlohmann::json &message, const QString &headerVersion = {},
                                             bool allowLegacy = false) const;

    // Version support, method routing and the method itself. done receives the Reply once; for
    // everything but a tool that waits (the gate) that happens before handle() returns. Both
    // classify() and handle() answer anything that throws inside them with -32603.
    void handle(const McpRequest &request, const CallContext &context, ReplyHandler done) const;

    void dispatch(const nlohmann::json &message, const CallContext &context, ReplyHandler done) const;

    nlohmann::json serverInfoMeta() const;

    // A 2025-era request after initialize takes its session's envelope (version, clientInfo,
    // capabilities) and its own progress token; a mistyped token is answered here.
    static std::optional<Reply> joinSession(McpRequest &request, const Envelope &session);
    // The answer to a request with neither the 2026-07-28 envelope nor a 2025-era session.
    static Reply noSession(const nlohmann::json &id);

private:
    std::variant<McpRequest, Reply> classifyChecked(const nlohmann::json &message,
                                                    const QString &headerVersion, bool allowLegacy) const;
    void handleLegacy(const McpRequest &request, const CallContext &context, ReplyHandler done) const;
    void handleChecked(const McpRequest &request, const CallContext &context, ReplyHandler done) const;
    // -32603 for a request whose handling threw (messageOrId: the message, or its id).
    static Reply internalError(const nlohmann::json &messageOrId);
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
