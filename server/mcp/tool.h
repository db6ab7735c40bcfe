#pragma once

#include "mcprequest.h"

#include <nlohmann/json.hpp>

#include <QString>

#include <functional>
#include <variant>

namespace Countersign {

// A JSON-RPC error a tool answers with instead of a result (tampered requestState -32602,
// missing client capability -32021).
struct ProtocolError final
{
    int code = 0;
    QString message;
    nlohmann::json data;
};

// A tool's answer: the result object (content, isError, or resultType "input_required" with
// inputRequests/requestState), or a protocol error. The dispatcher adds resultType and _meta.
using ToolReply = std::variant<nlohmann::json, ProtocolError>;
using ToolDone = std::function<void(ToolReply)>;

// The references live only for the duration of Tool::call(); a tool that answers later copies
// what it needs.
struct ToolCall final
{
    const nlohmann::json &arguments; // already validated against the tool's inputSchema
    const nlohmann::json &params;    // the whole tools/call params (requestState, inputResponses)
    const McpRequest &request;
    const CallContext &context;
};

class Tool
{
public:
    virtual ~Tool() = default;
    virtual QString name() const = 0;
    // The tools/list entry: name, title, description, inputSchema, annotations (every tool states
    // readOnlyHint, destructiveHint and idempotentHint).
    virtual nlohmann::json descriptor() const = 0;
    // Answers exactly once through done, now or later (from the server thread's event loop).
    virtual void call(const ToolCall &call, ToolDone done) = 0;
};

// A tool that answers before call() returns.
class SyncTool : public Tool
{
public:
    void call(const ToolCall &call, ToolDone done) final { done(run(call)); }
    virtual ToolReply run(const ToolCall &call) = 0;
};

// A complete result with one text block.
inline nlohmann::json textResult(const QString &text, bool isError = false)
{
    nlohmann::json result = {
        {"content", nlohmann::json::array({{{"type", "text"}, {"text", text.toStdString()}}})}};
    if (isError)
        result["isError"] = true;
    return result;
}

} // namespace Countersign
