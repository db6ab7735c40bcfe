#include "upstreamspec.h"

#include "actionspec.h"
#include "filepath.h"
#include "scriptplaceholders.h"

#include <QDir>
#include <QRegularExpression>
#include <QUrl>

namespace Countersign {

namespace {

using json = nlohmann::json;

// An object of strings, as header or environment maps are.
std::optional<QList<QPair<QString, QString>>> stringMap(const json &value)
{
    if (!value.is_object())
        return std::nullopt;
    QList<QPair<QString, QString>> out;
    for (auto it = value.begin(); it != value.end(); ++it) {
        if (!it.value().is_string() || it.key().empty())
            return std::nullopt;
        out.append({QString::fromStdString(it.key()), QString::fromStdString(it.value().get<std::string>())});
    }
    return out;
}

Result<UpstreamToolSettings> toolSettings(const json &value, const QString &at)
{
    if (!value.is_object())
        return failure(at + QStringLiteral(": must be an object"));
    UpstreamToolSettings settings;
    for (auto it = value.begin(); it != value.end(); ++it) {
        const std::string &key = it.key();
        const json &v = it.value();
        const QString field = at + QLatin1Char('.') + QString::fromStdString(key);
        if (key == "decision") {
            settings.decision =
                v.is_string() ? parseVerdict(QString::fromStdString(v.get<std::string>())) : std::nullopt;
            if (!settings.decision)
                return failure(field + QStringLiteral(": must be allow, ask or deny"));
        } else if (key == "risk") {
            const auto risk =
                v.is_string() ? parseRisk(QString::fromStdString(v.get<std::string>())) : std::nullopt;
            if (!risk)
                return failure(field + QStringLiteral(": must be low, medium, high or critical"));
            settings.risk = *risk;
        } else if (key == "targets") {
            const auto names = ActionSpec::stringList(v);
            if (!names)
                return failure(field + QStringLiteral(": must be a non-empty array of argument names"));
            settings.targets = *names;
        } else if (key == "planWith") {
            if (!v.is_object() || v.empty())
                return failure(field + QStringLiteral(": must be an object of arguments (for example "
                                                      "{\"dryRun\": true})"));
            settings.planWith = v;
        } else if (key == "plan") {
            const auto argv = ActionSpec::stringList(v);
            if (!argv)
                return failure(field +
                               QStringLiteral(": must be a non-empty argv array of non-empty strings"));
            if (const auto problem = ScriptPlaceholders::problem(*argv))
                return failure(field + QStringLiteral(": ") + *problem);
            settings.plan = *argv;
        } else {
            return failure(field + QStringLiteral(": unknown tool setting"));
        }
    }
    if (!settings.planWith.is_null() && !settings.plan.isEmpty())
        return failure(at + QStringLiteral(": give plan or planWith, not both"));
    return settings;
}

} // namespace

Result<UpstreamSpec> UpstreamSpec::fromJson(const json &value, const QString &at)
{
    if (!value.is_object())
        return failure(at + QStringLiteral(": must be an object"));
    UpstreamSpec spec;
    spec.source = value;
    static const QRegularExpression namePattern(QStringLiteral("^[A-Za-z0-9_-]{1,32}$"));
    for (auto it = value.begin(); it != value.end(); ++it) {
        const std::string &key = it.key();
        const json &v = it.value();
        const QString field = at + QLatin1Char('.') + QString::fromStdString(key);
        if (key == "name" || key == "prefix") {
            const QString text = v.is_string() ? QString::fromStdString(v.get<std::string>()) : QString();
            if (!namePattern.match(text).hasMatch() && !(key == "prefix" && v == ""))
                return failure(field + QStringLiteral(": must be 1-32 letters, digits, '_' or '-'"));
            (key == "name" ? spec.name : spec.prefix) = text;
        } else if (key == "command") {
            const auto argv = ActionSpec::stringList(v);
            if (!argv)
                return failure(field + QStringLiteral(": must be a non-empty argv array of non-empty strings "
                                                      "(no shell: [\"node\", \"/path/server.js\"])"));
            spec.command = *argv;
        } else if (key == "env") {
            const auto env = stringMap(v);
            if (!env)
                return failure(field + QStringLiteral(": must map variable names to strings"));
            for (const auto &[name, text] : *env)
                spec.env.insert(name, text);
        } else if (key == "cwd") {
            if (!v.is_string() || !FilePath::isAbsolute(QString::fromStdString(v.get<std::string>())))
                return failure(field + QStringLiteral(": must be an absolute path"));
            spec.cwd = QString::fromStdString(v.get<std::string>());
        } else if (key == "url") {
            const QUrl url(v.is_string() ? QString::fromStdString(v.get<std::string>()) : QString(),
                           QUrl::StrictMode);
            if (!url.isValid() ||
                (url.scheme() != QLatin1String("http") && url.scheme() != QLatin1String("https")) ||
                url.host().isEmpty())
                return failure(field + QStringLiteral(": must be an http:// or https:// URL"));
            spec.url = url.toString();
        } else if (key == "headers") {
            const auto headers = stringMap(v);
            if (!headers)
                return failure(field + QStringLiteral(": must map header names to strings"));
            for (const auto &[name, text] : *headers) {
                if (name.contains(QRegularExpression(QStringLiteral("[^A-Za-z0-9-]"))) ||
                    text.contains(QLatin1Char('\n')) || text.contains(QLatin1Char('\r')))
                    return failure(field + QStringLiteral(".%1: not a valid header").arg(name));
                spec.headers.append({name.toLatin1(), text.toUtf8()});
            }
        } else if (key == "timeoutSeconds") {
            if (!v.is_number_integer() || v.get<long long>() < 1 || v.get<long long>() > 3600)
                return failure(field + QStringLiteral(": must be an integer from 1 to 3600"));
            spec.timeoutSeconds = v.get<int>();
        } else if (key == "tools") {
            if (!v.is_object())
                return failure(field + QStringLiteral(": must map the upstream's tool names to settings"));
            for (auto t = v.begin(); t != v.end(); ++t) {
                auto settings =
                    toolSettings(t.value(), field + QLatin1Char('.') + QString::fromStdString(t.key()));
                if (!settings)
                    return failure(settings.error());
                spec.tools.insert(QString::fromStdString(t.key()), std::move(settings).value());
            }
        } else {
            return failure(field + QStringLiteral(": unknown upstream key"));
        }
    }
    if (spec.name.isEmpty())
        return failure(at + QStringLiteral(".name: is required"));
    if (spec.command.isEmpty() == spec.url.isEmpty())
        return failure(at + QStringLiteral(": give either command (a stdio server) or url (an HTTP server)"));
    if (!spec.isStdio() && (!spec.env.isEmpty() || !spec.cwd.isEmpty()))
        return failure(at + QStringLiteral(": env and cwd are for command upstreams"));
    if (spec.isStdio() && !spec.headers.isEmpty())
        return failure(at + QStringLiteral(": headers are for url upstreams"));
    if (!value.contains("prefix"))
        spec.prefix = spec.name + QLatin1Char('_');
    return spec;
}

} // namespace Countersign
