#include "hookcall.h"

#include "clinepayload.h"

namespace Countersign {

using json = nlohmann::json;

namespace HookClients {

std::optional<HookClient> parse(const QString &name)
{
    return hookClientNamed(name.toStdString());
}

QString name(HookClient client)
{
    const std::string_view n = hookClientSpec(client).name;
    return QString::fromUtf8(n.data(), qsizetype(n.size()));
}

QString title(HookClient client)
{
    const std::string_view t = hookClientSpec(client).title;
    return QString::fromUtf8(t.data(), qsizetype(t.size()));
}

} // namespace HookClients

namespace {

constexpr qsizetype kMaxName = 256;

// A string field of at most max characters; empty when absent and not required.
Result<QString> stringField(const json &payload, const char *key, bool required, qsizetype max = kMaxName)
{
    const auto it = payload.find(key);
    if (it == payload.end() || it->is_null()) {
        if (required)
            return failure(QStringLiteral("the hook payload has no %1").arg(QLatin1String(key)));
        return QString();
    }
    if (!it->is_string())
        return failure(QStringLiteral("the hook payload's %1 is not a string").arg(QLatin1String(key)));
    const QString value = QString::fromStdString(it->get<std::string>());
    if (value.size() > max)
        return failure(QStringLiteral("the hook payload's %1 is longer than %2 characters")
                           .arg(QLatin1String(key))
                           .arg(max));
    return value;
}

std::optional<HookCall::Event> eventOf(HookClient client, const QString &name, bool &failed)
{
    failed = false;
    const HookClientSpec &spec = hookClientSpec(client);
    const QByteArray event = name.toUtf8();
    const auto is = [&event](std::string_view n) {
        return !n.empty() && std::string_view(event.constData(), size_t(event.size())) == n;
    };
    if (is(spec.preEvent))
        return HookCall::Event::Pre;
    if (is(spec.permissionEvent))
        return HookCall::Event::Permission;
    if (is(spec.postEvent))
        return HookCall::Event::Post;
    if (is(spec.failureEvent)) {
        failed = true;
        return HookCall::Event::Post;
    }
    return std::nullopt;
}

} // namespace

Result<HookCall> HookCall::parse(HookClient client, const json &sent)
{
    // Cline's payload has a shape of its own: read into Claude Code's first.
    bool unasked = false;
    json translated;
    if (client == HookClient::Cline) {
        auto read = ClinePayload::translate(sent, &unasked);
        if (!read)
            return failure(read.error());
        translated = std::move(read).value();
    }
    const json &payload = client == HookClient::Cline ? translated : sent;
    if (!payload.is_object())
        return failure(QStringLiteral("the hook payload is not a JSON object"));
    HookCall call;
    call.client = client;
    call.unasked = unasked;
    auto event = stringField(payload, "hook_event_name", true);
    if (!event)
        return failure(event.error());
    call.eventName = event.value();
    const auto kind = eventOf(client, call.eventName, call.failed);
    if (!kind)
        return failure(QStringLiteral("%1 hooks send no event %2 that Countersign takes")
                           .arg(HookClients::title(client), call.eventName.left(64)));
    call.event = *kind;
    auto tool = stringField(payload, "tool_name", true);
    if (!tool)
        return failure(tool.error());
    if (tool.value().isEmpty())
        return failure(QStringLiteral("the hook payload's tool_name is empty"));
    call.tool = tool.value();
    const auto input = payload.find("tool_input");
    if (client == HookClient::Copilot && input != payload.end() && input->is_string() &&
        call.tool == QLatin1String("Edit")) {
        // Copilot CLI's apply_patch (gpt-5 models) arrives as an Edit whose input is the patch.
        call.tool = QStringLiteral("apply_patch");
        call.input = {{"input", *input}};
    } else {
        if (input == payload.end() || !input->is_object())
            return failure(QStringLiteral("the hook payload's tool_input is not an object"));
        call.input = *input;
    }
    if (client == HookClient::Copilot) {
        // Copilot CLI keeps its own argument names under Claude Code's tool names; it acts on
        // those, so a payload naming both spellings is refused rather than guessed.
        for (const auto &[copilot, claude] :
             {std::pair{"file_text", "content"}, std::pair{"old_str", "old_string"},
              std::pair{"new_str", "new_string"}}) {
            const auto it = call.input.find(copilot);
            if (it == call.input.end())
                continue;
            if (call.input.contains(claude))
                return failure(QStringLiteral("the hook payload's tool_input has both %1 and %2")
                                   .arg(QLatin1String(copilot), QLatin1String(claude)));
            call.input[claude] = *it;
            call.input.erase(copilot);
        }
    }
    // Claude Code, Codex and Qwen Code send the call's id before it runs and after (Codex not with
    // PermissionRequest); Gemini CLI sends none.
    auto id = stringField(payload, "tool_use_id", false);
    if (!id)
        return failure(id.error());
    call.toolUseId = id.value();
    auto cwd = stringField(payload, "cwd", false, 4096);
    if (!cwd)
        return failure(cwd.error());
    call.cwd = cwd.value();
    auto session = stringField(payload, "session_id", false);
    if (!session)
        return failure(session.error());
    call.sessionId = session.value();
    auto transcript = stringField(payload, "transcript_path", false, 4096);
    if (!transcript)
        return failure(transcript.error());
    call.transcriptPath = transcript.value();
    if (call.event == Event::Post)
        call.response = payload.value("tool_response", json());
    return call;
}

HookAnswer HookAnswer::allow(HookClient client, HookCall::Event event)
{
    HookAnswer answer;
    answer.stdoutText = QByteArray::fromStdString(HookFormat::allow(client, event));
    return answer;
}

HookAnswer HookAnswer::deny(HookClient client, HookCall::Event event, const QString &reason)
{
    HookAnswer answer;
    answer.stdoutText = QByteArray::fromStdString(HookFormat::deny(client, event, reason.toStdString()));
    return answer;
}

HookAnswer HookAnswer::recorded()
{
    return HookAnswer{};
}

json HookAnswer::toJson() const
{
    return {{"stdout", stdoutText.toStdString()}, {"stderr", stderrText.toStdString()}, {"exit", exitCode}};
}

std::optional<HookAnswer> HookAnswer::fromJson(const json &value)
{
    if (!value.is_object() || !value.value("stdout", json()).is_string() ||
        !value.value("stderr", json()).is_string() || !value.value("exit", json()).is_number_integer())
        return std::nullopt;
    HookAnswer answer;
    answer.stdoutText = QByteArray::fromStdString(value.at("stdout").get<std::string>());
    answer.stderrText = QByteArray::fromStdString(value.at("stderr").get<std::string>());
    answer.exitCode = value.at("exit").get<int>();
    return answer;
}

} // namespace Countersign
