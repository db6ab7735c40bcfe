#include "modelwire.h"

#include <QRegularExpression>

#include <QRandomGenerator>

namespace Countersign::ModelWire {

namespace {

using json = nlohmann::json;

const char kSideText[] = "OK.";

QString randomId()
{
    return QString::number(QRandomGenerator::global()->generate64(), 36);
}

// Every string in a result, text parts first: what a model would read.
void flatten(const json &v, QStringList &out)
{
    if (v.is_string())
        out << QString::fromStdString(v.get<std::string>());
    else if (v.is_number() || v.is_boolean())
        out << QString::fromStdString(v.dump());
    else if (v.is_array())
        for (const json &x : v)
            flatten(x, out);
    else if (v.is_object()) {
        if (v.contains("text") && v["text"].is_string())
            out << QString::fromStdString(v["text"].get<std::string>());
        for (const auto &[k, x] : v.items())
            if (k != "text" && k != "type")
                flatten(x, out);
    }
}
QString flatText(const json &v)
{
    QStringList out;
    flatten(v, out);
    return out.join(QLatin1Char('\n'));
}
// A tool result as a string, or JSON text, or parts.
QString resultText(const json &v)
{
    if (v.is_string()) {
        const json parsed = json::parse(v.get<std::string>(), nullptr, false);
        return parsed.is_discarded() ? QString::fromStdString(v.get<std::string>()) : flatText(parsed);
    }
    return flatText(v);
}

// The smallest value a JSON schema (or a Gemini schema, with upper-case types) accepts.
json fromSchema(const json &schema)
{
    if (!schema.is_object())
        return json::object();
    if (schema.contains("enum") && schema["enum"].is_array() && !schema["enum"].empty())
        return schema["enum"][0];
    if (schema.contains("const"))
        return schema["const"];
    for (const char *alt : {"anyOf", "oneOf"})
        if (schema.contains(alt) && schema[alt].is_array() && !schema[alt].empty())
            return fromSchema(schema[alt][0]);
    json t = schema.value("type", json("object"));
    if (t.is_array())
        t = t.empty() ? json("object") : t[0];
    const QString type =
        t.is_string() ? QString::fromStdString(t.get<std::string>()).toLower() : QStringLiteral("object");
    if (type == QLatin1String("array")) {
        json a = json::array();
        for (int i = 0; i < schema.value("minItems", 0); ++i)
            a.push_back(fromSchema(schema.value("items", json::object())));
        return a;
    }
    if (type == QLatin1String("string"))
        return "user";
    if (type == QLatin1String("number") || type == QLatin1String("integer"))
        return schema.value("minimum", json(0));
    if (type == QLatin1String("boolean"))
        return false;
    if (type == QLatin1String("null"))
        return nullptr;
    json o = json::object();
    const json props = schema.value("properties", json::object());
    if (schema.contains("required") && schema["required"].is_array()) {
        for (const json &k : schema["required"])
            if (k.is_string())
                o[k.get<std::string>()] = fromSchema(props.value(k.get<std::string>(), json::object()));
    } else if (props.is_object()) {
        for (const auto &[k, p] : props.items())
            o[k] = fromSchema(p);
    }
    return o;
}

QString str(const json &o, const char *key)
{
    return o.is_object() && o.contains(key) && o[key].is_string()
               ? QString::fromStdString(o[key].get<std::string>())
               : QString();
}

int approxTokens(const json &body)
{
    return std::max(1, int(body.dump().size() / 4));
}

QByteArray sseEvent(const char *event, const json &data)
{
    return QByteArray("event: ") + event + "\ndata: " + QByteArray::fromStdString(data.dump()) + "\n\n";
}

QByteArray sseData(const json &data)
{
    return "data: " + QByteArray::fromStdString(data.dump()) + "\n\n";
}

QByteArray anthropic(const json &body, const QByteArray &path, const Decide &decide, QByteArray *contentType)
{
    const QString callId = randomId();
    if (path.endsWith("/count_tokens"))
        return QByteArray::fromStdString(json{{"input_tokens", approxTokens(body)}}.dump());
    QStringList offered;
    for (const json &t : body.value("tools", json::array()))
        if (!str(t, "name").isEmpty())
            offered << str(t, "name");
    Turn turn{offered, {}, false, false};
    {
        QSet<QString> ids;
        QList<QString> results;
        for (const json &m : body.value("messages", json::array())) {
            if (!m.is_object() || !m.contains("content") || !m["content"].is_array())
                continue;
            for (const json &b : m["content"]) {
                if (str(m, "role") == QLatin1String("assistant") &&
                    str(b, "type") == QLatin1String("tool_use"))
                    ids.insert(str(b, "id"));
                if (str(m, "role") == QLatin1String("user") &&
                    str(b, "type") == QLatin1String("tool_result") && ids.contains(str(b, "tool_use_id")))
                    results << resultText(b.value("content", json()));
            }
        }
        turn.results = results;
    }
    const std::optional<Reply> decided = decide(turn);
    Reply answer = decided.value_or(Reply{});
    if (!decided && (body.contains("output_format") || body.contains("output_config"))) {
        const json schema =
            body.contains("output_format")
                ? body["output_format"].value("schema", json::object())
                : body["output_config"].value("format", json::object()).value("schema", json::object());
        answer.text = QString::fromStdString(fromSchema(schema).dump());
    }
    const bool call = answer.kind == Reply::Kind::Call;
    const json block = call ? json{{"type", "tool_use"},
                                   {"id", ("toolu_" + callId).toStdString()},
                                   {"name", answer.name.toStdString()},
                                   {"input", answer.args}}
                            : json{{"type", "text"}, {"text", answer.text.toStdString()}};
    const std::string id = ("msg_" + randomId()).toStdString();
    const json model = body.value("model", json("claude-sonnet-4-5"));
    const json usage = {{"input_tokens", approxTokens(body)},
                        {"output_tokens", 8},
                        {"cache_creation_input_tokens", 0},
                        {"cache_read_input_tokens", 0}};
    const char *stop = call ? "tool_use" : "end_turn";
    if (!body.value("stream", false))
        return QByteArray::fromStdString(json{
            {"id", id},
            {"type", "message"},
            {"role", "assistant"},
            {"model", model},
            {"content", {block}},
            {"stop_reason", stop},
            {"stop_sequence", nullptr},
            {"usage", usage}}.dump());
    *contentType = "text/event-stream";
    QByteArray out = sseEvent("message_start", {{"type", "message_start"},
                                                {"message",
                                                 {{"id", id},
                                                  {"type", "message"},
                                                  {"role", "assistant"},
                                                  {"model", model},
                                                  {"content", json::array()},
                                                  {"stop_reason", nullptr},
                                                  {"stop_sequence", nullptr},
                                                  {"usage", usage}}}});
    json start = block;
    json delta;
    if (call) {
        start["input"] = json::object();
        delta = {{"type", "input_json_delta"}, {"partial_json", answer.args.dump()}};
    } else {
        start["text"] = "";
        delta = {{"type", "text_delta"}, {"text", answer.text.toStdString()}};
    }
    out += sseEvent("content_block_start",
                    {{"type", "content_block_start"}, {"index", 0}, {"content_block", start}});
    out += sseEvent("content_block_delta", {{"type", "content_block_delta"}, {"index", 0}, {"delta", delta}});
    out += sseEvent("content_block_stop", {{"type", "content_block_stop"}, {"index", 0}});
    out += sseEvent("message_delta", {{"type", "message_delta"},
                                      {"delta", {{"stop_reason", stop}, {"stop_sequence", nullptr}}},
                                      {"usage", {{"output_tokens", 8}}}});
    out += sseEvent("message_stop", {{"type", "message_stop"}});
    return out;
}

QByteArray gemini(const json &body, const QByteArray &path, const Decide &decide, QByteArray *contentType)
{
    const QString callId = randomId();
    const QByteArray method = path.mid(path.lastIndexOf(':') + 1);
    if (method == "countTokens")
        return QByteArray::fromStdString(json{{"totalTokens", approxTokens(body)}}.dump());
    if (method == "embedContent")
        return QByteArray::fromStdString(json{{"embedding", {{"values", {0, 0, 0}}}}}.dump());
    QStringList offered;
    for (const json &t : body.value("tools", json::array()))
        if (t.is_object())
            for (const json &d : t.value("functionDeclarations", json::array()))
                if (!str(d, "name").isEmpty())
                    offered << str(d, "name");
    Turn turn{offered, {}, false, false};
    {
        QList<QString> results;
        for (const json &c : body.value("contents", json::array()))
            if (c.is_object())
                for (const json &p : c.value("parts", json::array()))
                    if (p.is_object() && p.contains("functionResponse") && p["functionResponse"].is_object())
                        results << flatText(p["functionResponse"].value("response", json::object()));
        turn.results = results;
    }
    const std::optional<Reply> decided = decide(turn);
    Reply answer = decided.value_or(Reply{});
    if (!decided) {
        const json g = body.value("generationConfig", body.value("config", json::object()));
        if (g.is_object() && (g.contains("responseJsonSchema") || g.contains("responseSchema") ||
                              str(g, "responseMimeType") == QLatin1String("application/json")))
            answer.text = QString::fromStdString(
                fromSchema(g.value("responseJsonSchema", g.value("responseSchema", json::object()))).dump());
    }
    const json part = answer.kind == Reply::Kind::Call ? json{{"functionCall",
                                                               {{"id", callId.toStdString()},
                                                                {"name", answer.name.toStdString()},
                                                                {"args", answer.args}}}}
                                                       : json{{"text", answer.text.toStdString()}};
    const json chunk = {
        {"candidates",
         {{{"content", {{"role", "model"}, {"parts", {part}}}}, {"finishReason", "STOP"}, {"index", 0}}}},
        {"usageMetadata",
         {{"promptTokenCount", approxTokens(body)},
          {"candidatesTokenCount", 8},
          {"totalTokenCount", approxTokens(body) + 8}}},
        {"responseId", ("resp_" + randomId()).toStdString()}};
    if (method != "streamGenerateContent")
        return QByteArray::fromStdString(chunk.dump());
    *contentType = "text/event-stream";
    return sseData(chunk);
}

// Responses tools are { type: function, name } or grouped ({ type: namespace, name, tools: [...] }):
// each offered name, and for a grouped one the namespace and the tool's own name to call it by.
void responseTools(const json &tools, QStringList &names, QHash<QString, QPair<QString, QString>> &calls)
{
    for (const json &t : tools) {
        if (!t.is_object())
            continue;
        if (t.contains("tools") && t["tools"].is_array()) {
            QStringList inner;
            responseTools(t["tools"], inner, calls);
            const QString ns = str(t, "name");
            for (const QString &n : inner) {
                names << n;
                const QString joined =
                    ns + (ns.endsWith(QLatin1Char('_')) ? QString() : QStringLiteral("__")) + n;
                names << joined;
                calls.insert(joined, {ns, n});
            }
        } else if (!str(t, "name").isEmpty()) {
            names << str(t, "name");
        } else if (t.contains("function")) {
            names << str(t["function"], "name");
        }
    }
}

QByteArray responses(const json &body, const Decide &decide, QByteArray *contentType)
{
    const json input =
        body.value("input", json::array()).is_array() ? body.value("input", json::array()) : json::array();
    json tools = body.value("tools", json::array());
    bool searched = false;
    for (const json &i : input) {
        if (str(i, "type") == QLatin1String("tool_search_output"))
            for (const json &t : i.value("tools", json::array()))
                tools.push_back(t);
        searched = searched || str(i, "type") == QLatin1String("tool_search_call");
    }
    QStringList offered;
    QHash<QString, QPair<QString, QString>> namespaced;
    responseTools(tools, offered, namespaced);
    Turn turn{offered, {}, false, searched};
    for (const json &t : body.value("tools", json::array()))
        turn.canSearch = turn.canSearch || str(t, "type") == QLatin1String("tool_search");
    {
        QSet<QString> ids;
        QList<QString> results;
        for (const json &item : input) {
            const QString type = str(item, "type");
            if (type == QLatin1String("function_call") || type == QLatin1String("custom_tool_call"))
                ids.insert(str(item, "call_id"));
            if ((type == QLatin1String("function_call_output") ||
                 type == QLatin1String("custom_tool_call_output")) &&
                ids.contains(str(item, "call_id")))
                results << resultText(item.value("output", json()));
        }
        turn.results = results;
    }
    const std::optional<Reply> decided = decide(turn);
    Reply answer = decided.value_or(Reply{});
    if (!decided && body.contains("text") && body["text"].is_object() &&
        body["text"].value("format", json::object()).contains("schema"))
        answer.text = QString::fromStdString(fromSchema(body["text"]["format"]["schema"]).dump());
    const std::string respId = ("resp_" + randomId()).toStdString();
    const std::string aid = randomId().toStdString();
    json item;
    bool custom = false;
    if (answer.kind == Reply::Kind::Call) {
        const auto [ns, name] = namespaced.value(answer.name, {QString(), answer.name});
        for (const json &t : tools)
            custom = custom || (str(t, "type") == QLatin1String("custom") && str(t, "name") == name);
        if (custom)
            item = {{"type", "custom_tool_call"},
                    {"id", "ctc_" + aid},
                    {"call_id", aid},
                    {"name", name.toStdString()},
                    {"input", answer.args.is_object() ? answer.args.value("input", "") : ""},
                    {"status", "completed"}};
        else {
            item = {{"type", "function_call"},
                    {"id", "fc_" + aid},
                    {"call_id", aid},
                    {"name", name.toStdString()},
                    {"arguments", answer.args.dump()},
                    {"status", "completed"}};
            if (!ns.isEmpty())
                item["namespace"] = ns.toStdString();
        }
    } else if (answer.kind == Reply::Kind::Search) {
        item = {{"type", "tool_search_call"},
                {"id", "tsc_" + aid},
                {"call_id", aid},
                {"status", "completed"},
                {"execution", "client"},
                {"arguments", {{"query", answer.text.toStdString()}, {"limit", 8}}}};
    } else {
        item = {{"type", "message"},
                {"id", "msg_" + respId},
                {"role", "assistant"},
                {"status", "completed"},
                {"content",
                 {{{"type", "output_text"},
                   {"text", answer.text.toStdString()},
                   {"annotations", json::array()}}}}};
    }
    const json usage = {{"input_tokens", approxTokens(body)},
                        {"input_tokens_details", {{"cached_tokens", 0}}},
                        {"output_tokens", 8},
                        {"output_tokens_details", {{"reasoning_tokens", 0}}},
                        {"total_tokens", approxTokens(body) + 8}};
    json response = {{"id", respId},          {"object", "response"},
                     {"status", "completed"}, {"model", body.value("model", json("gpt-5"))},
                     {"output", {item}},      {"usage", usage}};
    if (!body.value("stream", false))
        return QByteArray::fromStdString(response.dump());
    *contentType = "text/event-stream";
    int seq = 0;
    auto ev = [&seq](const char *type, json data) {
        data["type"] = type;
        data["sequence_number"] = seq++;
        return sseEvent(type, data);
    };
    json progress = response;
    progress["status"] = "in_progress";
    progress["output"] = json::array();
    json added = item;
    added["status"] = "in_progress";
    QByteArray out = ev("response.created", {{"response", progress}});
    out += ev("response.in_progress", {{"response", progress}});
    out += ev("response.output_item.added", {{"output_index", 0}, {"item", added}});
    if (answer.kind == Reply::Kind::Text) {
        out += ev("response.output_text.delta", {{"item_id", item["id"]},
                                                 {"output_index", 0},
                                                 {"content_index", 0},
                                                 {"delta", answer.text.toStdString()}});
        out += ev("response.output_text.done", {{"item_id", item["id"]},
                                                {"output_index", 0},
                                                {"content_index", 0},
                                                {"text", answer.text.toStdString()}});
    } else if (custom) {
        out += ev("response.custom_tool_call_input.delta",
                  {{"item_id", item["id"]}, {"output_index", 0}, {"delta", item["input"]}});
        out += ev("response.custom_tool_call_input.done",
                  {{"item_id", item["id"]}, {"output_index", 0}, {"input", item["input"]}});
    } else if (answer.kind == Reply::Kind::Call) {
        out += ev("response.function_call_arguments.delta",
                  {{"item_id", item["id"]}, {"output_index", 0}, {"delta", item["arguments"]}});
        out += ev("response.function_call_arguments.done",
                  {{"item_id", item["id"]}, {"output_index", 0}, {"arguments", item["arguments"]}});
    }
    out += ev("response.output_item.done", {{"output_index", 0}, {"item", item}});
    out += ev("response.completed", {{"response", response}});
    return out;
}

QByteArray chat(const json &body, const Decide &decide, QByteArray *contentType)
{
    const QString callId = randomId();
    QStringList offered;
    for (const json &t : body.value("tools", json::array())) {
        const QString name =
            t.is_object() && t.contains("function") ? str(t["function"], "name") : str(t, "name");
        if (!name.isEmpty())
            offered << name;
    }
    Turn turn{offered, {}, false, false};
    {
        QSet<QString> ids;
        QList<QString> results;
        for (const json &m : body.value("messages", json::array())) {
            if (str(m, "role") == QLatin1String("assistant") && m.contains("tool_calls") &&
                m["tool_calls"].is_array())
                for (const json &c : m["tool_calls"])
                    ids.insert(str(c, "id"));
            if (str(m, "role") == QLatin1String("tool") && ids.contains(str(m, "tool_call_id")))
                results << resultText(m.value("content", json()));
        }
        turn.results = results;
    }
    const std::optional<Reply> decided = decide(turn);
    Reply answer = decided.value_or(Reply{});
    if (!decided && body.contains("response_format") && body["response_format"].is_object()) {
        const json &f = body["response_format"];
        if (f.contains("json_schema") || str(f, "type") == QLatin1String("json_object"))
            answer.text = QString::fromStdString(
                fromSchema(f.value("json_schema", json::object()).value("schema", json::object())).dump());
    }
    const std::string id = ("chatcmpl-" + randomId()).toStdString();
    const json model = body.value("model", json("gpt-4o"));
    const json usage = {{"prompt_tokens", approxTokens(body)},
                        {"completion_tokens", 8},
                        {"total_tokens", approxTokens(body) + 8}};
    const bool call = answer.kind == Reply::Kind::Call;
    const json toolCall = {
        {"id", callId.toStdString()},
        {"type", "function"},
        {"function", {{"name", answer.name.toStdString()}, {"arguments", answer.args.dump()}}}};
    const char *finish = call ? "tool_calls" : "stop";
    if (!body.value("stream", false)) {
        const json message =
            call ? json{{"role", "assistant"}, {"content", nullptr}, {"tool_calls", {toolCall}}}
                 : json{{"role", "assistant"}, {"content", answer.text.toStdString()}};
        return QByteArray::fromStdString(json{
            {"id", id},
            {"object", "chat.completion"},
            {"model", model},
            {"choices", {{{"index", 0}, {"message", message}, {"finish_reason", finish}}}},
            {"usage", usage}}.dump());
    }
    *contentType = "text/event-stream";
    auto chunk = [&](const json &choices) {
        return sseData(
            {{"id", id}, {"object", "chat.completion.chunk"}, {"model", model}, {"choices", choices}});
    };
    json indexed = toolCall;
    indexed["index"] = 0;
    const json first =
        call ? json{{"role", "assistant"}, {"content", nullptr}, {"tool_calls", json::array({indexed})}}
             : json{{"role", "assistant"}, {"content", answer.text.toStdString()}};
    QByteArray out = chunk({{{"index", 0}, {"delta", first}, {"finish_reason", nullptr}}});
    out += chunk({{{"index", 0}, {"delta", json::object()}, {"finish_reason", finish}}});
    if (body.value("stream_options", json::object()).value("include_usage", false))
        out += sseData({{"id", id},
                        {"object", "chat.completion.chunk"},
                        {"model", model},
                        {"choices", json::array()},
                        {"usage", usage}});
    return out + "data: [DONE]\n\n";
}

} // namespace

Response answer(const QByteArray &method, const QByteArray &target, const QByteArray &rawBody,
                const Decide &decide)
{
    Response r;
    try {
        const json parsed = json::parse(rawBody.toStdString(), nullptr, false);
        const json body = parsed.is_object() ? parsed : json::object();
        const QByteArray path = target.split('?').first();
        static const QRegularExpression geminiPath(QStringLiteral(R"(/models/[^/]+:\w+$)"));
        if (method == "POST" && (path.endsWith("/messages") || path.endsWith("/messages/count_tokens")))
            r.body = anthropic(body, path, decide, &r.contentType);
        else if (method == "POST" && geminiPath.match(QString::fromLatin1(path)).hasMatch())
            r.body = gemini(body, path, decide, &r.contentType);
        else if (method == "POST" && path.endsWith("/responses"))
            r.body = responses(body, decide, &r.contentType);
        else if (method == "POST" && path.endsWith("/chat/completions"))
            r.body = chat(body, decide, &r.contentType);
        else if (method == "GET" && path.endsWith("/models"))
            r.body = QByteArray::fromStdString(
                json{{"object", "list"}, {"data", json::array()}, {"models", json::array()}}.dump());
        else {
            r.status = 404;
            r.body = QByteArray::fromStdString(
                json{{"error", {{"type", "not_found_error"}, {"message", "not a model endpoint"}}}}.dump());
        }
    } catch (const json::exception &e) { // a member of an unexpected type
        r = Response{};
        r.status = 400;
        r.body = QByteArray::fromStdString(
            json{{"error", {{"type", "invalid_request_error"}, {"message", e.what()}}}}.dump());
    }
    return r;
}

} // namespace Countersign::ModelWire
