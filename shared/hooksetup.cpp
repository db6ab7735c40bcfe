#include "hooksetup.h"

#include <QDir>
#include <QRegularExpression>

namespace Countersign::HookSetup {

using json = nlohmann::json;

namespace {

QStringList eventsOf(const QString &client)
{
    if (client == QLatin1String("claude-code"))
        return {QStringLiteral("PreToolUse"), QStringLiteral("PostToolUse")};
    if (client == QLatin1String("gemini"))
        return {QStringLiteral("BeforeTool"), QStringLiteral("AfterTool")};
    return {QStringLiteral("PreToolUse"), QStringLiteral("PermissionRequest"), QStringLiteral("PostToolUse")};
}

// One of Countersign's handlers: an HTTP hook on a loopback /hooks/ URL, or a command that runs
// `countersign hook`.
bool isOurs(const json &handler)
{
    if (!handler.is_object())
        return false;
    const std::string url = handler.value("url", json("")).is_string() ? handler.value("url", "") : "";
    if (url.rfind("http://127.0.0.1:", 0) == 0 && url.find("/hooks/") != std::string::npos)
        return true;
    const std::string command =
        handler.value("command", json("")).is_string() ? handler.value("command", "") : "";
    return command.find("countersign-hook ") != std::string::npos ||
           (command.find("countersign") != std::string::npos && command.find(" hook ") != std::string::npos);
}

json handlerFor(const Target &target)
{
    if (target.client == QLatin1String("claude-code"))
        return {{"type", "http"},
                {"url", target.hookUrl.toStdString()},
                {"headers", {{"Authorization", ("Bearer " + target.token).toStdString()}}},
                {"timeout", 600},
                {"onFailure", "block"},
                {"statusMessage", "Waiting for Countersign"}};
    QStringList quoted;
    for (const QString &part : target.shim)
        quoted.append(part.contains(QRegularExpression(QStringLiteral("[^A-Za-z0-9_./=:@%+,-]")))
                          ? QLatin1Char('\'') +
                                QString(part).replace(QLatin1Char('\''), QStringLiteral("'\\''")) +
                                QLatin1Char('\'')
                          : part);
    json handler = {{"type", "command"}, {"command", quoted.join(QLatin1Char(' ')).toStdString()}};
    if (target.client == QLatin1String("gemini")) {
        handler["name"] = "countersign";
        handler["timeout"] = 600000; // milliseconds
    } else {
        handler["timeout"] = 600; // seconds
        handler["statusMessage"] = "Waiting for Countersign";
    }
    return handler;
}

} // namespace

QStringList clients()
{
    return {QStringLiteral("claude-code"), QStringLiteral("codex"), QStringLiteral("gemini"),
            QStringLiteral("qwen")};
}

QString settingsPath(const QString &client, const QString &home, const QString &codexHome)
{
    if (client == QLatin1String("claude-code"))
        return QDir(home).filePath(QStringLiteral(".claude/settings.json"));
    if (client == QLatin1String("codex"))
        return QDir(codexHome.isEmpty() ? QDir(home).filePath(QStringLiteral(".codex")) : codexHome)
            .filePath(QStringLiteral("hooks.json"));
    if (client == QLatin1String("gemini"))
        return QDir(home).filePath(QStringLiteral(".gemini/settings.json"));
    if (client == QLatin1String("qwen"))
        return QDir(home).filePath(QStringLiteral(".qwen/settings.json"));
    return {};
}

QString matcher(const QString &client)
{
    // Anchored: the clients read a matcher with anything but letters, digits, _ and | as an
    // unanchored regular expression (Bash would also match BashOutput).
    if (client == QLatin1String("claude-code"))
        return QStringLiteral("^(Bash|Write|Edit|MultiEdit|NotebookEdit|Read|Glob|Grep|LS|mcp__.*)$");
    if (client == QLatin1String("qwen"))
        return QStringLiteral(
            "^(run_shell_command|write_file|edit|replace|Bash|Write|Edit|read_file|read_many_files|"
            "list_directory|glob|grep_search|search_file_content|mcp__.*)$");
    if (client == QLatin1String("codex"))
        return QStringLiteral("^(Bash|apply_patch|mcp__.*)$");
    // The read tools too: a read of a secret asks, as cat's does.
    return QStringLiteral(
        "^(run_shell_command|write_file|replace|read_file|read_many_files|list_directory|glob|"
        "search_file_content|grep_search)$");
}

json remove(const json &settings, const QString &client)
{
    json out = settings.is_object() ? settings : json::object();
    auto hooks = out.find("hooks");
    if (hooks == out.end() || !hooks->is_object())
        return out;
    for (const QString &event : eventsOf(client)) {
        auto groups = hooks->find(event.toStdString());
        if (groups == hooks->end() || !groups->is_array())
            continue;
        json kept = json::array();
        for (json group : *groups) {
            if (group.is_object() && group.contains("hooks") && group["hooks"].is_array()) {
                json handlers = json::array();
                for (const json &h : group["hooks"])
                    if (!isOurs(h))
                        handlers.push_back(h);
                if (handlers.empty())
                    continue;
                group["hooks"] = std::move(handlers);
            }
            kept.push_back(std::move(group));
        }
        if (kept.empty())
            hooks->erase(event.toStdString());
        else
            *groups = std::move(kept);
    }
    if (hooks->empty())
        out.erase("hooks");
    return out;
}

bool installed(const json &settings, const QString &client)
{
    return remove(settings, client) != (settings.is_object() ? settings : json::object());
}

Result<json> install(const json &settings, const Target &target)
{
    if (!settings.is_null() && !settings.is_object())
        return failure(QStringLiteral("the settings file does not hold a JSON object; nothing was changed"));
    if (settings.is_object() && settings.contains("hooks") && !settings["hooks"].is_object())
        return failure(QStringLiteral("its \"hooks\" is not an object; nothing was changed"));
    json out = remove(settings, target.client);
    for (const QString &event : eventsOf(target.client)) {
        json &groups = out["hooks"][event.toStdString()];
        if (!groups.is_array())
            groups = json::array();
        groups.push_back({{"matcher", matcher(target.client).toStdString()},
                          {"hooks", json::array({handlerFor(target)})}});
    }
    return Result<json>(std::move(out));
}

} // namespace Countersign::HookSetup
