#include "actionspec.h"

#include "filepath.h"
#include "scriptplaceholders.h"

#include <QDir>
#include <QRegularExpression>

#include <optional>

namespace Countersign {

namespace {

using json = nlohmann::json;

const QRegularExpression &placeholderPattern()
{
    return ScriptPlaceholders::pattern();
}

} // namespace

std::optional<QStringList> ActionSpec::stringList(const json &value)
{
    if (!value.is_array() || value.empty())
        return std::nullopt;
    QStringList out;
    for (const json &e : value) {
        if (!e.is_string() || e.get_ref<const std::string &>().empty())
            return std::nullopt;
        out.append(QString::fromStdString(e.get<std::string>()));
    }
    return out;
}

QStringList ActionSpec::placeholders(const QStringList &argvTemplate)
{
    QStringList names;
    for (const QString &element : argvTemplate) {
        auto it = placeholderPattern().globalMatch(element);
        while (it.hasNext())
            names.append(it.next().captured(1));
    }
    return names;
}

Result<QStringList> ActionSpec::fillArgv(const QStringList &argvTemplate, const json &arguments)
{
    QStringList argv;
    for (const QString &element : argvTemplate) {
        QString out;
        qsizetype last = 0;
        bool filled = false;
        auto it = placeholderPattern().globalMatch(element);
        while (it.hasNext()) {
            const auto match = it.next();
            out += element.mid(last, match.capturedStart() - last);
            const QString name = match.captured(1);
            const auto value = arguments.find(name.toStdString());
            if (value == arguments.end())
                return failure(QStringLiteral("argument \"%1\" is required by the command").arg(name));
            QString text;
            if (value->is_string())
                text = QString::fromStdString(value->get<std::string>());
            else if (value->is_number() || value->is_boolean())
                text = QString::fromStdString(value->dump());
            else
                return failure(
                    QStringLiteral("argument \"%1\" must be a string, number or boolean to be used in a "
                                   "command")
                        .arg(name));
            if (text.contains(QChar(0)))
                return failure(QStringLiteral("argument \"%1\" contains a NUL byte").arg(name));
            if (text.startsWith(QLatin1Char('-')))
                return failure(
                    QStringLiteral("argument \"%1\" may not start with '-': the command would read it as "
                                   "an option")
                        .arg(name));
            out += text;
            last = match.capturedEnd();
            filled = true;
        }
        out += element.mid(last);
        // Values next to each other, or a literal '-' after an empty one ("{a}{b}", "{a}-{b}"), can
        // still make an option; only the config author may write one ("--name={name}").
        if (filled && out.startsWith(QLatin1Char('-')) && !element.startsWith(QLatin1Char('-')))
            return failure(QStringLiteral("the command element \"%1\" would start with '-' once filled: the "
                                          "command would read it as an option")
                               .arg(element));
        if (out.contains(QChar(0)))
            return failure(QStringLiteral("the command element \"%1\" contains a NUL byte").arg(element));
        argv.append(out);
    }
    return argv;
}

Result<ActionSpec> ActionSpec::fromJson(const json &value, const QString &at)
{
    if (!value.is_object())
        return failure(at + QStringLiteral(": must be an object"));
    ActionSpec spec;
    for (auto it = value.begin(); it != value.end(); ++it) {
        const std::string &key = it.key();
        const json &v = it.value();
        const QString field = at + QLatin1Char('.') + QString::fromStdString(key);
        if (key == "name") {
            static const QRegularExpression namePattern(QStringLiteral("^[A-Za-z0-9_.-]{1,64}$"));
            if (!v.is_string() || !namePattern.match(QString::fromStdString(v.get<std::string>())).hasMatch())
                return failure(field + QStringLiteral(": must be 1-64 letters, digits, '_', '-' or '.'"));
            spec.name = QString::fromStdString(v.get<std::string>());
        } else if (key == "title" || key == "description" || key == "workingDirectory") {
            if (!v.is_string())
                return failure(field + QStringLiteral(": must be a string"));
            const QString text = QString::fromStdString(v.get<std::string>());
            if (key == "title")
                spec.title = text;
            else if (key == "description")
                spec.description = text;
            else if (!FilePath::isAbsolute(text))
                return failure(field + QStringLiteral(": must be an absolute path"));
            else
                spec.workingDirectory = text;
        } else if (key == "inputSchema") {
            if (!v.is_object() || v.value("type", json()) != "object")
                return failure(field + QStringLiteral(": must be a JSON Schema with \"type\": \"object\""));
            spec.inputSchema = v;
        } else if (key == "plan" || key == "apply") {
            const auto argv = stringList(v);
            if (!argv)
                return failure(field + QStringLiteral(": must be a non-empty argv array of non-empty strings "
                                                      "(no shell: [\"terraform\", \"plan\"])"));
            if (const auto problem = ScriptPlaceholders::problem(*argv))
                return failure(field + QStringLiteral(": ") + *problem);
            (key == "plan" ? spec.plan : spec.apply) = *argv;
        } else if (key == "risk") {
            const auto risk =
                v.is_string() ? parseRisk(QString::fromStdString(v.get<std::string>())) : std::nullopt;
            if (!risk)
                return failure(field + QStringLiteral(": must be low, medium, high or critical"));
            spec.risk = *risk;
        } else if (key == "timeoutSeconds") {
            if (!v.is_number_integer() || v.get<long long>() < 1 || v.get<long long>() > 3600)
                return failure(field + QStringLiteral(": must be an integer from 1 to 3600"));
            spec.timeoutSeconds = v.get<int>();
        } else {
            return failure(field + QStringLiteral(": unknown action key"));
        }
    }
    if (spec.name.isEmpty())
        return failure(at + QStringLiteral(".name: is required"));
    if (spec.apply.isEmpty())
        return failure(at + QStringLiteral(".apply: is required"));
    if (spec.plan.isEmpty())
        return failure(at + QStringLiteral(".plan: is required (its output is what the human approves)"));
    if (spec.inputSchema.is_null())
        spec.inputSchema = {
            {"type", "object"}, {"properties", json::object()}, {"additionalProperties", false}};
    if (spec.title.isEmpty())
        spec.title = spec.name;
    const json properties = spec.inputSchema.value("properties", json::object());
    for (const QString &name : placeholders(spec.plan) + placeholders(spec.apply)) {
        if (!properties.is_object() || !properties.contains(name.toStdString()))
            return failure(at +
                           QStringLiteral(": placeholder {%1} is not a property of inputSchema").arg(name));
    }
    return spec;
}

} // namespace Countersign
