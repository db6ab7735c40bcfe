#include "fixturetools.h"

#include "jsonrpc.h"
#include "tool.h"
#include "toolregistry.h"

#include <QList>

#include <sodium.h>

#include <functional>

namespace Countersign::FixtureTools {

namespace {

using json = nlohmann::json;

class FixtureTool final : public SyncTool
{
public:
    using Body = std::function<ToolReply(const ToolCall &)>;

    FixtureTool(QString name, Body body) : m_name(std::move(name)), m_body(std::move(body)) {}

    QString name() const override { return m_name; }
    json descriptor() const override
    {
        return {
            {"name", m_name.toStdString()},
            {"description", "Conformance fixture " + m_name.toStdString()},
            {"inputSchema", {{"type", "object"}, {"properties", json::object()}}},
            {"annotations", {{"readOnlyHint", true}, {"destructiveHint", false}, {"idempotentHint", true}}}};
    }
    ToolReply run(const ToolCall &call) override { return m_body(call); }

private:
    QString m_name;
    Body m_body;
};

// 1x1 red PNG and a 44-byte silent WAV: the smallest valid media for the content-type fixtures.
constexpr char kPng[] =
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg==";
constexpr char kWav[] = "UklGRiQAAABXQVZFZm10IBAAAAABAAEAQB8AAEAfAAABAAgAZGF0YQAAAAA=";

// Integrity-protected requestState for the MRTR fixtures: payload.HMAC, with a per-process key.
// Every state names the fixture that sealed it, and only that fixture opens it.
class StateCodec final
{
public:
    StateCodec() { crypto_auth_keygen(m_key); }
    std::string seal(const char *tool, json payload) const
    {
        payload["tool"] = tool;
        const std::string body = payload.dump();
        unsigned char tag[crypto_auth_BYTES];
        crypto_auth(tag, reinterpret_cast<const unsigned char *>(body.data()), body.size(), m_key);
        const auto b64 = [](const QByteArray &b) {
            return b.toBase64(QByteArray::Base64UrlEncoding | QByteArray::OmitTrailingEquals).toStdString();
        };
        return "v1." + b64(QByteArray::fromStdString(body)) + "." +
               b64(QByteArray(reinterpret_cast<const char *>(tag), sizeof tag));
    }
    std::optional<json> open(const json &params, const char *tool) const
    {
        const auto it = params.find("requestState");
        if (it == params.end() || !it->is_string())
            return std::nullopt;
        const QList<QByteArray> parts = QByteArray::fromStdString(it->get<std::string>()).split('.');
        if (parts.size() != 3 || parts[0] != "v1")
            return std::nullopt;
        const auto opts = QByteArray::Base64UrlEncoding | QByteArray::AbortOnBase64DecodingErrors;
        const auto decodedBody = QByteArray::fromBase64Encoding(parts[1], opts);
        const auto decodedTag = QByteArray::fromBase64Encoding(parts[2], opts);
        const QByteArray *body = &decodedBody.decoded;
        const QByteArray *tag = &decodedTag.decoded;
        if (!decodedBody || !decodedTag || tag->size() != crypto_auth_BYTES)
            return std::nullopt;
        if (crypto_auth_verify(reinterpret_cast<const unsigned char *>(tag->constData()),
                               reinterpret_cast<const unsigned char *>(body->constData()),
                               static_cast<unsigned long long>(body->size()), m_key) != 0)
            return std::nullopt;
        json payload = json::parse(body->toStdString(), nullptr, false);
        if (!payload.is_object() || payload.value("tool", "") != tool)
            return std::nullopt;
        return payload;
    }

private:
    unsigned char m_key[crypto_auth_KEYBYTES];
};

json elicit(const char *message, const char *property, const char *type)
{
    return {
        {"method", "elicitation/create"},
        {"params",
         {{"message", message},
          {"requestedSchema",
           {{"type", "object"}, {"properties", {{property, {{"type", type}}}}}, {"required", {property}}}}}}};
}

json sample(const char *text, int maxTokens)
{
    return {
        {"method", "sampling/createMessage"},
        {"params",
         {{"messages", json::array({{{"role", "user"}, {"content", {{"type", "text"}, {"text", text}}}}})},
          {"maxTokens", maxTokens}}}};
}

json inputRequired(json requests, std::optional<std::string> state = std::nullopt)
{
    json r = {{"resultType", "input_required"}, {"inputRequests", std::move(requests)}};
    if (state)
        r["requestState"] = *state;
    return r;
}

bool declares(const ToolCall &call, const char *capability)
{
    return call.request.envelope.clientCapabilities.contains(capability);
}

ProtocolError missing(const char *capability)
{
    return ProtocolError{
        JsonRpc::kMissingRequiredClientCapability,
        QStringLiteral("this tool needs the client capability \"%1\"").arg(QLatin1String(capability)),
        {{"requiredCapabilities", {{capability, json::object()}}}}};
}

const json *response(const ToolCall &call, const char *key)
{
    const auto responses = call.params.find("inputResponses");
    if (responses == call.params.end() || !responses->is_object())
        return nullptr;
    const auto it = responses->find(key);
    return it == responses->end() || !it->is_object() ? nullptr : &*it;
}

std::string contentString(const json *answer, const char *field)
{
    if (!answer)
        return {};
    const auto content = answer->find("content");
    if (content == answer->end() || !content->is_object())
        return {};
    const auto v = content->find(field);
    if (v == content->end())
        return {};
    return v->is_string() ? v->get<std::string>() : v->dump();
}

// An elicitation, a sampling and a roots request, each only when the client declared it.
json requestsForDeclared(const ToolCall &call)
{
    json requests = json::object();
    if (declares(call, "elicitation"))
        requests["user_name"] = elicit("What is your name?", "name", "string");
    if (declares(call, "sampling"))
        requests["greeting"] = sample("Generate a greeting", 50);
    if (declares(call, "roots"))
        requests["client_roots"] = {{"method", "roots/list"}, {"params", json::object()}};
    return requests;
}

ProtocolError badState()
{
    return ProtocolError{JsonRpc::kInvalidParams,
                         QStringLiteral("Invalid or expired requestState"),
                         {{"reason", "invalid_request_state"}}};
}

} // namespace

void addTo(ToolRegistry &registry, const std::function<void()> &changed)
{
    // Kept across rebuilds (a tool list change must not void the states handed out before it).
    static const auto keptCodec = std::make_shared<StateCodec>();
    const std::shared_ptr<StateCodec> codec = keptCodec;
    static bool dynamicTool = false;
    auto add = [&](const char *name, FixtureTool::Body body) {
        registry.add(std::make_unique<FixtureTool>(QString::fromLatin1(name), std::move(body)));
    };
    auto content = [](json blocks) { return ToolReply(json{{"content", std::move(blocks)}}); };

    add("test_simple_text", [](const ToolCall &) {
        return ToolReply(textResult(QStringLiteral("This is a simple text response for testing.")));
    });
    add("test_image_content", [=](const ToolCall &) {
        return content(json::array({{{"type", "image"}, {"data", kPng}, {"mimeType", "image/png"}}}));
    });
    add("test_audio_content", [=](const ToolCall &) {
        return content(json::array({{{"type", "audio"}, {"data", kWav}, {"mimeType", "audio/wav"}}}));
    });
    add("test_embedded_resource", [=](const ToolCall &) {
        return content(json::array({{{"type", "resource"},
                                     {"resource",
                                      {{"uri", "test://embedded-resource"},
                                       {"mimeType", "text/plain"},
                                       {"text", "This is an embedded resource content."}}}}}));
    });
    add("test_multiple_content_types", [=](const ToolCall &) {
        return content(json::array({{{"type", "text"}, {"text", "Multiple content types test:"}},
                                    {{"type", "image"}, {"data", kPng}, {"mimeType", "image/png"}},
                                    {{"type", "resource"},
                                     {"resource",
                                      {{"uri", "test://mixed-content-resource"},
                                       {"mimeType", "application/json"},
                                       {"text", R"({"test":"data","value":123})"}}}}}));
    });
    add("test_error_handling", [](const ToolCall &) {
        return ToolReply(
            textResult(QStringLiteral("This tool intentionally returns an error for testing"), true));
    });
    // The conformance suite's hook for "the tool list changed" (sep-2575 list-changed checks).
    add("test_trigger_tool_change", [changed](const ToolCall &) {
        dynamicTool = !dynamicTool;
        changed();
        return ToolReply(
            textResult(QStringLiteral("test_dynamic_tool %1").arg(dynamicTool ? "added" : "removed")));
    });
    if (dynamicTool)
        add("test_dynamic_tool",
            [](const ToolCall &) { return ToolReply(textResult(QStringLiteral("dynamic"))); });
    add("test_missing_capability", [](const ToolCall &call) -> ToolReply {
        if (!declares(call, "sampling"))
            return missing("sampling");
        return textResult(QStringLiteral("sampling is declared"));
    });
    add("test_input_required_result_elicitation", [](const ToolCall &call) -> ToolReply {
        if (const json *answer = response(call, "user_name"))
            return textResult(
                QStringLiteral("Hello, %1!").arg(QString::fromStdString(contentString(answer, "name"))));
        if (!declares(call, "elicitation"))
            return missing("elicitation");
        return inputRequired({{"user_name", elicit("What is your name?", "name", "string")}});
    });
    add("test_input_required_result_sampling", [](const ToolCall &call) -> ToolReply {
        if (const json *answer = response(call, "capital_question")) {
            const json c = answer->value("content", json::object());
            return textResult(QStringLiteral("The model answered: %1")
                                  .arg(QString::fromStdString(c.is_object() ? c.value("text", std::string())
                                                                            : std::string())));
        }
        if (!declares(call, "sampling"))
            return missing("sampling");
        return inputRequired({{"capital_question", sample("What is the capital of France?", 100)}});
    });
    add("test_input_required_result_list_roots", [](const ToolCall &call) -> ToolReply {
        if (const json *answer = response(call, "client_roots"))
            return textResult(QStringLiteral("Client roots: %1")
                                  .arg(QString::fromStdString(answer->value("roots", json::array()).dump())));
        if (!declares(call, "roots"))
            return missing("roots");
        return inputRequired({{"client_roots", {{"method", "roots/list"}, {"params", json::object()}}}});
    });
    // One elicitation round whose requestState must come back intact; answerPrefix proves it did.
    auto sealedConfirm = [codec](const char *tag, const char *answerPrefix) {
        return [codec, tag, answerPrefix](const ToolCall &call) -> ToolReply {
            if (call.params.contains("requestState")) {
                if (!codec->open(call.params, tag))
                    return badState();
                return textResult(
                    QStringLiteral("%1: confirmed %2")
                        .arg(QLatin1String(answerPrefix),
                             QString::fromStdString(contentString(response(call, "confirm"), "ok"))));
            }
            if (!declares(call, "elicitation"))
                return missing("elicitation");
            return inputRequired({{"confirm", elicit("Please confirm", "ok", "boolean")}},
                                 codec->seal(tag, json::object()));
        };
    };
    add("test_input_required_result_request_state", sealedConfirm("request_state", "state-ok"));
    add("test_input_required_result_tampered_state", sealedConfirm("tampered_state", "state verified"));
    add("test_input_required_result_multiple_inputs", [codec](const ToolCall &call) -> ToolReply {
        if (call.params.contains("requestState")) {
            if (!codec->open(call.params, "multiple_inputs"))
                return badState();
            return textResult(
                QStringLiteral("Received: name=%1, greeting=%2, roots=%3")
                    .arg(QString::fromStdString(contentString(response(call, "user_name"), "name")))
                    .arg(response(call, "greeting") ? QStringLiteral("yes") : QStringLiteral("no"))
                    .arg(response(call, "client_roots") ? QStringLiteral("yes") : QStringLiteral("no")));
        }
        json requests = requestsForDeclared(call);
        if (requests.empty())
            return missing("elicitation");
        return inputRequired(std::move(requests), codec->seal("multiple_inputs", json::object()));
    });
    add("test_input_required_result_multi_round", [codec](const ToolCall &call) -> ToolReply {
        if (!declares(call, "elicitation"))
            return missing("elicitation");
        if (!call.params.contains("requestState"))
            return inputRequired({{"step1", elicit("Step 1: What is your name?", "name", "string")}},
                                 codec->seal("multi_round", {{"round", 1}}));
        const auto state = codec->open(call.params, "multi_round");
        if (!state)
            return badState();
        if (state->value("round", 0) == 1) {
            const std::string name = contentString(response(call, "step1"), "name");
            if (name.empty())
                return inputRequired({{"step1", elicit("Step 1: What is your name?", "name", "string")}},
                                     codec->seal("multi_round", {{"round", 1}}));
            return inputRequired(
                {{"step2", elicit("Step 2: What is your favorite color?", "color", "string")}},
                codec->seal("multi_round", {{"round", 2}, {"name", name}}));
        }
        return textResult(QStringLiteral("Hello %1, your favorite color is %2.")
                              .arg(QString::fromStdString(state->value("name", std::string())),
                                   QString::fromStdString(contentString(response(call, "step2"), "color"))));
    });
    add("test_input_required_result_capabilities", [](const ToolCall &call) -> ToolReply {
        json requests = requestsForDeclared(call);
        if (call.params.contains("inputResponses") || requests.empty())
            return textResult(QStringLiteral("done"));
        return inputRequired(std::move(requests));
    });
}

} // namespace Countersign::FixtureTools
