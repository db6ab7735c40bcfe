#include "dispatcher.h"

#include "contentsource.h"
#include "jsonrpc.h"
#include "requestreader.h"
#include "schemavalidator.h"
#include "tool.h"
#include "toolregistry.h"
#include "tooltasks.h"

#include <QLoggingCategory>

Q_LOGGING_CATEGORY(lcDispatch, "countersign.dispatch")

namespace Countersign {

namespace {

using json = nlohmann::json;

int httpStatusFor(int code)
{
    switch (code) {
    case JsonRpc::kMissingRequiredClientCapability:
    case JsonRpc::kHeaderMismatch:
    case JsonRpc::kUnsupportedProtocolVersion:
        return 400;
    case JsonRpc::kMethodNotFound:
        return 404;
    default:
        return 200; // handler-level errors travel in-band
    }
}

} // namespace

Dispatcher::Dispatcher(const ToolRegistry &tools, ServerInfo info) : m_tools(tools), m_info(std::move(info))
{
}

json Dispatcher::serverInfoMeta() const
{
    return {{JsonRpc::kMetaServerInfo,
             {{"name", m_info.name.toStdString()}, {"version", m_info.version.toStdString()}}}};
}

// The last resort around handle(): whatever a request makes throw is answered as its own -32603
// and logged; the server goes on serving the others.
void Dispatcher::handle(const McpRequest &request, const CallContext &context, ReplyHandler done) const
{
    // done is called at most once: a throw after the answer went out answers nothing more.
    auto answered = std::make_shared<bool>(false);
    ReplyHandler once = [answered, done = std::move(done)](Reply reply) {
        if (!std::exchange(*answered, true))
            done(std::move(reply));
    };
    try {
        return handleChecked(request, context, once);
    } catch (const std::exception &e) {
        qCCritical(lcDispatch) << "internal error handling" << request.method << ":" << e.what();
    } catch (...) {
        qCCritical(lcDispatch) << "internal error handling" << request.method;
    }
    once(Reply::internalError(request.id));
}

void Dispatcher::handleChecked(const McpRequest &request, const CallContext &context, ReplyHandler done) const
{
    if (request.envelope.legacy)
        return handleLegacy(request, context, std::move(done));
    if (request.envelope.protocolVersion != QLatin1String(JsonRpc::kProtocolVersion))
        return done(Reply::error(
            400, request.id, JsonRpc::kUnsupportedProtocolVersion,
            QStringLiteral("Unsupported protocol version: %1").arg(request.envelope.protocolVersion),
            {{"supported", JsonRpc::supportedVersions()},
             {"requested", request.envelope.protocolVersion.toStdString()}}));
    if (request.method == QLatin1String("server/discover"))
        return done(result(request.id, discover()));
    if (request.method == QLatin1String("tools/list"))
        return done(result(request.id, listTools()));
    if (request.method == QLatin1String("tools/call"))
        return callTool(request, context, std::move(done));
    if (serveContent(request, done))
        return;
    done(Reply::error(404, request.id, JsonRpc::kMethodNotFound, QStringLiteral("Method not found")));
}

// 2025-11-25 and 2025-06-18: the handshake's answer, ping, the tool list and tool calls, in the
// 2025 shapes. The transport has matched the request to its session already.
void Dispatcher::handleLegacy(const McpRequest &request, const CallContext &context, ReplyHandler done) const
{
    if (request.method == QLatin1String("initialize")) {
        json body = {
            {"protocolVersion", request.envelope.protocolVersion.toStdString()},
            {"capabilities", capabilities(true, hasTasks(request))},
            {"serverInfo", {{"name", m_info.name.toStdString()}, {"version", m_info.version.toStdString()}}}};
        if (!m_info.instructions.isEmpty())
            body["instructions"] = m_info.instructions.toStdString();
        return done(legacyResult(request.id, std::move(body)));
    }
    if (request.method == QLatin1String("ping"))
        return done(legacyResult(request.id, json::object()));
    if (request.method == QLatin1String("tools/list")) {
        json body = listTools();
        body.erase("ttlMs");
        body.erase("cacheScope");
        if (hasTasks(request)) {
            for (json &tool : body["tools"])
                tool["execution"] = {{"taskSupport", "optional"}};
        }
        return done(legacyResult(request.id, std::move(body)));
    }
    if (request.method == QLatin1String("tools/call")) {
        if (request.params.contains("task") && hasTasks(request))
            return callAsTask(request, context, std::move(done));
        return callTool(request, context, std::move(done));
    }
    if (hasTasks(request) && serveTasks(request, context, done))
        return;
    if (serveContent(request, done))
        return;
    done(Reply::error(200, request.id, JsonRpc::kMethodNotFound, QStringLiteral("Method not found")));
}

// Tasks came with 2025-11-25 (the 2026-07-28 revision moved them to an extension): an older
// session has none.
bool Dispatcher::hasTasks(const McpRequest &request) const
{
    return m_tasks && request.envelope.legacy &&
           request.envelope.protocolVersion == QLatin1String(JsonRpc::kLegacyVersions[0]);
}

// The task is created and answered at once; the call goes on as the task's, without the request's
// stream (no question to the client, no progress) and with the task's cancel handle.
void Dispatcher::callAsTask(const McpRequest &request, const CallContext &context, ReplyHandler done) const
{
    const json &task = request.params.at("task");
    if (!task.is_object())
        return done(Reply::error(200, request.id, JsonRpc::kInvalidParams,
                                 QStringLiteral("Invalid params: task must be an object")));
    std::optional<qint64> ttl;
    if (const auto t = task.find("ttl"); t != task.end() && !t->is_null()) {
        if (!t->is_number_integer() || t->get<qint64>() < 0)
            return done(Reply::error(200, request.id, JsonRpc::kInvalidParams,
                                     QStringLiteral("Invalid params: task.ttl must be a whole number of "
                                                    "milliseconds, 0 or more")));
        ttl = t->get<qint64>();
    }
    const auto name = request.params.find("name");
    if (name == request.params.end() || !name->is_string() ||
        !m_tools.find(QString::fromStdString(name->get<std::string>())))
        return callTool(request, context, std::move(done)); // refused as a plain call would be
    auto created = m_tasks->create(context.principal.connectionId, ttl);
    if (!created)
        return done(Reply::error(200, request.id, JsonRpc::kInvalidRequest,
                                 QStringLiteral("Invalid Request: this connection has %1 tasks working "
                                                "already; wait for one to end")
                                     .arg(ToolTasks::kMaxWorking)));
    const json state = *m_tasks->describe(context.principal.connectionId, created->taskId);
    McpRequest call = request;
    call.params.erase("task");
    call.envelope.progressToken = nullptr;
    CallContext callContext{context.principal, context.transport};
    callContext.task = created->cancel;
    callTool(call, callContext,
             [tasks = std::weak_ptr<ToolTasks>(m_tasks), taskId = created->taskId](Reply reply) {
                 if (const auto shared = tasks.lock(); shared && reply.body)
                     shared->finish(taskId, *reply.body);
             });
    done(legacyResult(request.id,
                      {{"task", state},
                       {"_meta",
                        {{"io.modelcontextprotocol/model-immediate-response",
                          "Countersign holds this call for a human to approve or decline in its window; the "
                          "result comes when they decide."}}}}));
}

bool Dispatcher::serveTasks(const McpRequest &request, const CallContext &context, ReplyHandler &done) const
{
    const QString &method = request.method;
    if (method != QLatin1String("tasks/get") && method != QLatin1String("tasks/result") &&
        method != QLatin1String("tasks/cancel") && method != QLatin1String("tasks/list"))
        return false;
    const qint64 connection = context.principal.connectionId;
    const auto invalid = [&](const QString &message) {
        done(Reply::error(200, request.id, JsonRpc::kInvalidParams, message));
    };
    if (method == QLatin1String("tasks/list")) {
        const json cursor = request.params.value("cursor", json());
        if (!cursor.is_null() && !cursor.is_string()) {
            invalid(QStringLiteral("Invalid params: cursor must be a string"));
            return true;
        }
        auto page = m_tasks->list(
            connection, cursor.is_string() ? QString::fromStdString(cursor.get<std::string>()) : QString());
        if (auto *why = std::get_if<QString>(&page))
            invalid(*why);
        else
            done(legacyResult(request.id, std::get<json>(std::move(page))));
        return true;
    }
    const json id = request.params.value("taskId", json());
    if (!id.is_string()) {
        invalid(QStringLiteral("Invalid params: taskId must be a string"));
        return true;
    }
    const QString taskId = QString::fromStdString(id.get<std::string>());
    const QString notFound = QStringLiteral("Failed to retrieve task: Task not found");
    if (method == QLatin1String("tasks/get")) {
        if (auto state = m_tasks->describe(connection, taskId))
            done(legacyResult(request.id, std::move(*state)));
        else
            invalid(notFound);
    } else if (method == QLatin1String("tasks/cancel")) {
        auto state = m_tasks->cancel(connection, taskId);
        if (auto *why = std::get_if<QString>(&state))
            invalid(*why);
        else
            done(legacyResult(request.id, std::get<json>(std::move(state))));
    } else if (!m_tasks->whenEnded(connection, taskId, [id = request.id, done](json message) {
                   message["id"] = id; // what the call answered, as this request's answer
                   done(Reply{200, std::move(message)});
               })) {
        invalid(notFound);
    }
    return true;
}

bool Dispatcher::serveContent(const McpRequest &request, ReplyHandler &done) const
{
    const QString &method = request.method;
    const bool prompts = method == QLatin1String("prompts/list") || method == QLatin1String("prompts/get");
    const bool resources = method == QLatin1String("resources/list") ||
                           method == QLatin1String("resources/templates/list") ||
                           method == QLatin1String("resources/read");
    if (!m_content || (!prompts && !resources) || (prompts && !m_content->servesPrompts()) ||
        (resources && !m_content->servesResources()))
        return false;
    const bool legacy = request.envelope.legacy;
    // Lists and resources/read are cacheable results: they carry caching hints (these change with
    // the upstreams, so nothing may be reused).
    const bool list = method.endsWith(QLatin1String("/list")) || method == QLatin1String("resources/read");
    m_content->serve(method, request.params,
                     [this, id = request.id, legacy, list, done = std::move(done)](ToolReply reply) {
                         if (auto *err = std::get_if<ProtocolError>(&reply))
                             return done(Reply::error(legacy ? 200 : httpStatusFor(err->code), id, err->code,
                                                      err->message, err->data));
                         json body = std::move(std::get<json>(reply));
                         if (legacy)
                             return done(legacyResult(id, std::move(body)));
                         if (list) {
                             body["ttlMs"] = 0;
                             body["cacheScope"] = "private";
                         }
                         done(result(id, std::move(body)));
                     });
    return true;
}

// Every transport tells its clients when the tools change: a 2025-era stdio session on its
// connection, an HTTP session on its GET stream, a 2026-07-28 client on subscriptions/listen.
json Dispatcher::capabilities(bool legacy, bool tasks) const
{
    json caps = {{"tools", {{"listChanged", true}}}};
    if (tasks)
        caps["tasks"] = {{"list", json::object()},
                         {"cancel", json::object()},
                         {"requests", {{"tools", {{"call", json::object()}}}}}};
    if (m_content && m_content->servesPrompts())
        caps["prompts"] = legacy ? json{{"listChanged", false}} : json::object();
    if (m_content && m_content->servesResources())
        caps["resources"] = legacy ? json{{"listChanged", false}, {"subscribe", false}} : json::object();
    return caps;
}

Reply Dispatcher::legacyResult(const json &id, json body) const
{
    body.erase("resultType");
    return Reply{200, JsonRpc::response(id, std::move(body))};
}

void Dispatcher::dispatch(const json &message, const CallContext &context, ReplyHandler done) const
{
    auto classified = RequestReader::read(message);
    if (auto *reply = std::get_if<Reply>(&classified))
        return done(std::move(*reply));
    handle(std::get<McpRequest>(classified), context, std::move(done));
}

Reply Dispatcher::result(const json &id, json body) const
{
    if (!body.contains("resultType"))
        body["resultType"] = "complete";
    json meta = body.value("_meta", json::object());
    meta.update(serverInfoMeta());
    body["_meta"] = std::move(meta);
    return Reply{200, JsonRpc::response(id, std::move(body))};
}

json Dispatcher::discover() const
{
    json body = {{"supportedVersions", JsonRpc::supportedVersions()},
                 {"capabilities", capabilities(false)},
                 {"ttlMs", 0},
                 {"cacheScope", "private"}};
    if (!m_info.instructions.isEmpty())
        body["instructions"] = m_info.instructions.toStdString();
    return body;
}

json Dispatcher::listTools() const
{
    json tools = json::array();
    for (const Tool *tool : m_tools.tools())
        tools.push_back(tool->descriptor());
    // The list can change with the configuration and differs by nothing else; clients may not reuse it.
    return {{"tools", std::move(tools)}, {"ttlMs", 0}, {"cacheScope", "private"}};
}

void Dispatcher::callTool(const McpRequest &request, const CallContext &context, ReplyHandler done) const
{
    const auto nameIt = request.params.find("name");
    if (nameIt == request.params.end() || !nameIt->is_string())
        return done(Reply::error(200, request.id, JsonRpc::kInvalidParams,
                                 QStringLiteral("Invalid params: name must be a string")));
    const QString name = QString::fromStdString(nameIt->get<std::string>());
    Tool *tool = m_tools.find(name);
    if (!tool)
        return done(Reply::error(200, request.id, JsonRpc::kInvalidParams,
                                 QStringLiteral("Unknown tool: %1").arg(name)));

    static const json kNoArguments = json::object();
    const auto argsIt = request.params.find("arguments");
    if (argsIt != request.params.end() && !argsIt->is_object() && !argsIt->is_null())
        return done(Reply::error(200, request.id, JsonRpc::kInvalidParams,
                                 QStringLiteral("Invalid params: arguments must be an object")));
    const json &arguments = argsIt != request.params.end() && argsIt->is_object() ? *argsIt : kNoArguments;
    if (const auto state = request.params.find("requestState");
        state != request.params.end() && !state->is_string())
        return done(Reply::error(200, request.id, JsonRpc::kInvalidParams,
                                 QStringLiteral("Invalid params: requestState must be a string")));
    if (const auto responses = request.params.find("inputResponses"); responses != request.params.end()) {
        if (!responses->is_object())
            return done(Reply::error(200, request.id, JsonRpc::kInvalidParams,
                                     QStringLiteral("Invalid params: inputResponses must be an object")));
        for (const auto &[key, answer] : responses->items()) {
            if (!answer.is_object())
                return done(Reply::error(200, request.id, JsonRpc::kInvalidParams,
                                         QStringLiteral("Invalid params: inputResponses.%1 must be an object")
                                             .arg(QString::fromStdString(key).left(64))));
        }
    }
    if (auto valid = SchemaValidator::validate(tool->descriptor().at("inputSchema"), arguments); !valid) {
        json refused = textResult(QStringLiteral("Input validation error: Invalid arguments for tool %1: %2")
                                      .arg(name, valid.error()),
                                  true);
        return done(request.envelope.legacy ? legacyResult(request.id, std::move(refused))
                                            : result(request.id, std::move(refused)));
    }

    tool->call(
        ToolCall{arguments, request.params, request, context},
        [this, id = request.id, legacy = request.envelope.legacy, done = std::move(done)](ToolReply reply) {
            if (auto *err = std::get_if<ProtocolError>(&reply))
                return done(Reply::error(legacy ? 200 : httpStatusFor(err->code), id, err->code, err->message,
                                         err->data));
            json body = std::move(std::get<json>(reply));
            done(legacy ? legacyResult(id, std::move(body)) : result(id, std::move(body)));
        });
}

} // namespace Countersign
