#include "hooksetup.h"

#include "hookclients.h"

#include <QDir>
#include <QRegularExpression>

namespace Countersign::HookSetup {

using json = nlohmann::ordered_json;

namespace {

QString text(std::string_view s)
{
    return QString::fromUtf8(s.data(), qsizetype(s.size()));
}

const HookClientSpec *specOf(const QString &client)
{
    const auto named = hookClientNamed(client.toStdString());
    return named && text(hookClientSpec(*named).name) == client ? &hookClientSpec(*named) : nullptr;
}

// The events Countersign hooks in the client: before a tool runs, when it would ask (where it has
// that hook), after it ran.
QStringList eventsOf(const QString &client)
{
    const HookClientSpec *spec = specOf(client);
    if (!spec)
        return {};
    QStringList events{text(spec->preEvent)};
    if (!spec->permissionEvent.empty())
        events.append(text(spec->permissionEvent));
    events.append(text(spec->postEvent));
    return events;
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
    const HookClientSpec *spec = specOf(target.client);
    if (spec && spec->httpHook)
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
    if (spec && spec->client == HookClient::Copilot) {
        // Copilot CLI lets a call through when its hook times out, and skips an entry with a key
        // it does not know: only its own keys, and a timeout past the longest the shim can wait
        // (it answers a deny first).
        handler["timeoutSec"] = 3700;
    } else if (spec && spec->timeoutInMs) { // Gemini CLI's form: a name, and milliseconds
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
    QStringList names;
    for (const HookClientSpec &spec : kHookClients)
        names.append(text(spec.name));
    return names;
}

QString settingsPath(const QString &client, const QString &home, const QString &codexHome)
{
    const HookClientSpec *spec = specOf(client);
    if (!spec)
        return {};
    if (spec->client == HookClient::Codex && !codexHome.isEmpty())
        return QDir(codexHome).filePath(QStringLiteral("hooks.json"));
    return QDir(home).filePath(text(spec->settingsFile));
}

QStringList pluginFiles(const QString &client, const QString &home)
{
    const HookClientSpec *spec = specOf(client);
    if (!spec || !spec->pluginFile)
        return {};
    QStringList files{QDir(home).filePath(text(spec->settingsFile))};
    if (!spec->secondFile.empty())
        files.append(QDir(home).filePath(text(spec->secondFile)));
    return files;
}

QString matcher(const QString &client)
{
    const HookClientSpec *spec = specOf(client);
    return spec ? text(spec->matcher) : QString();
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
