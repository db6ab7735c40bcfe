#include "fixturetools.h"

#include "tool.h"
#include "toolregistry.h"

#include <functional>

namespace Countersign::FixtureTools {

namespace {

using json = nlohmann::json;

class FixtureTool final : public Tool
{
public:
    using Body = std::function<ToolReply(const ToolCall &)>;

    FixtureTool(QString name, json inputSchema, Body body)
        : m_name(std::move(name)), m_schema(std::move(inputSchema)), m_body(std::move(body))
    {
    }

    QString name() const override { return m_name; }
    json descriptor() const override
    {
        return {{"name", m_name.toStdString()},
                {"description", "Conformance fixture " + m_name.toStdString()},
                {"inputSchema", m_schema},
                {"annotations", {{"readOnlyHint", true}, {"destructiveHint", false}, {"idempotentHint", true}}}};
    }
    ToolReply call(const ToolCall &call) override { return m_body(call); }

private:
    QString m_name;
    json m_schema;
    Body m_body;
};

json noArguments()
{
    return {{"type", "object"}, {"properties", json::object()}};
}

} // namespace

void addTo(ToolRegistry &registry)
{
    registry.add(std::make_unique<FixtureTool>(QStringLiteral("test_simple_text"), noArguments(), [](const ToolCall &) {
        return ToolReply(textResult(QStringLiteral("This is a simple text response for testing.")));
    }));
}

} // namespace Countersign::FixtureTools
