#include "statustool.h"

namespace Countersign {

nlohmann::json StatusTool::descriptor() const
{
    static const nlohmann::json kDescriptor = {
        {"name", "countersign_status"},
        {"title", "Countersign status"},
        {"description", "Reports the Countersign version and the connection this client is known as. "
                        "Changes nothing."},
        {"inputSchema",
         {{"type", "object"}, {"properties", nlohmann::json::object()}, {"additionalProperties", false}}},
        {"annotations",
         {{"title", "Countersign status"},
          {"readOnlyHint", true},
          {"destructiveHint", false},
          {"idempotentHint", true},
          {"openWorldHint", false}}}};
    return kDescriptor;
}

ToolReply StatusTool::run(const ToolCall &call)
{
    const QString connection = call.context.principal.name;
    nlohmann::json result = textResult(
        QStringLiteral("Countersign %1; this client is connection \"%2\".").arg(m_version, connection));
    result["structuredContent"] = {{"version", m_version.toStdString()},
                                   {"connection", connection.toStdString()}};
    return result;
}

} // namespace Countersign
