#include "denyrule.h"

#include "config.h"
#include "configfile.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>

#include <algorithm>
#include <optional>

namespace Countersign {

namespace {

using json = nlohmann::json;

QString nameOf(const std::string &key)
{
    return QString::fromStdString(key);
}

bool hasWildcard(const QString &text)
{
    return text.contains(QLatin1Char('*')) || text.contains(QLatin1Char('?'));
}

// Why a text cannot be pinned, or empty when it can.
QString unpinnable(const QString &text)
{
    if (DenyRule::unmatchable(text))
        return QStringLiteral("holds a line break or a control character, which no rule pattern matches");
    if (text.size() > DenyRule::kMaxPinnedLength)
        return QStringLiteral("is longer than %1 characters").arg(DenyRule::kMaxPinnedLength);
    return {};
}

QString typeWords(const json &value)
{
    if (value.is_array())
        return QStringLiteral("a list");
    if (value.is_object())
        return QStringLiteral("an object");
    return QStringLiteral("null");
}

} // namespace

QString DenyRule::literalGlob(const QString &text)
{
    QString glob = text;
    glob.replace(QLatin1Char('*'), QLatin1Char('?'));
    return glob;
}

bool DenyRule::unmatchable(const QString &text)
{
    for (const char32_t c : text.toUcs4()) {
        if (c < 0x20 || (c >= 0x7f && c <= 0x9f) || c == 0x2028 || c == 0x2029)
            return true;
    }
    return false;
}

Result<DenyRule> DenyRule::make(json rule, QStringList notes)
{
    auto policy = Policy::fromJson(json::array({rule}), json());
    if (!policy)
        return failure(policy.error());
    DenyRule made;
    made.m_rule = policy.value().rules().first();
    made.m_json = std::move(rule);
    made.m_notes = std::move(notes);
    return made;
}

Result<DenyRule> DenyRule::forCall(const QString &tool, const json &arguments, const QString &reason)
{
    if (tool.isEmpty() || unmatchable(tool))
        return failure(QStringLiteral("the tool's name cannot be written in a rule"));
    QStringList notes;
    if (hasWildcard(tool))
        notes.append(QStringLiteral("The tool's name holds * or ?, which a rule pattern cannot match on its "
                                    "own: the rule has ? there, so it also denies tools whose names differ "
                                    "only there."));
    json pinned = json::object();
    json prefix = json::array();
    const bool hasArguments = arguments.is_object() && !arguments.empty();
    if (hasArguments) {
        for (auto it = arguments.begin(); it != arguments.end(); ++it) {
            const QString name = nameOf(it.key());
            const json &value = it.value();
            if (it.key() == "argv" && value.is_array() && !value.empty() &&
                std::all_of(value.begin(), value.end(), [](const json &e) { return e.is_string(); })) {
                QString stopped;
                for (const json &element : value) {
                    const QString text = QString::fromStdString(element.get<std::string>());
                    if (stopped = unpinnable(text); !stopped.isEmpty())
                        break;
                    if (hasWildcard(text))
                        notes.append(QStringLiteral("argv element %1 holds * or ?, which a rule pattern "
                                                    "cannot match on its own: the rule has ? there, so it "
                                                    "also denies commands that differ only there.")
                                         .arg(prefix.size() + 1));
                    prefix.push_back(literalGlob(text).toStdString());
                }
                if (!stopped.isEmpty())
                    notes.append(prefix.empty()
                                     ? QStringLiteral("The rule does not look at argv: its first element %1.")
                                           .arg(stopped)
                                     : QStringLiteral("The rule matches the first %1 elements of argv only: "
                                                      "element %2 %3.")
                                           .arg(prefix.size())
                                           .arg(prefix.size() + 1)
                                           .arg(stopped));
                if (!prefix.empty())
                    notes.append(QStringLiteral("argv is matched as a prefix: the rule also denies the same "
                                                "command with more arguments after these."));
                continue;
            }
            const auto text = Rule::argumentText(value);
            if (!text) {
                notes.append(
                    QStringLiteral("The rule does not look at \"%1\" (%2, which a rule pattern cannot "
                                   "match): it denies the call whatever \"%1\" holds.")
                        .arg(name, typeWords(value)));
                continue;
            }
            if (const QString why = unpinnable(*text); !why.isEmpty()) {
                notes.append(
                    QStringLiteral(
                        "The rule does not look at \"%1\": its value %2. It denies the call whatever "
                        "\"%1\" holds.")
                        .arg(name, why));
                continue;
            }
            if (hasWildcard(*text))
                notes.append(
                    QStringLiteral("\"%1\" holds * or ?, which a rule pattern cannot match on its own: "
                                   "the rule has ? there, so it also denies values that differ only "
                                   "there.")
                        .arg(name));
            pinned[it.key()] = literalGlob(*text).toStdString();
        }
        if (pinned.empty() && prefix.empty())
            return failure(
                QStringLiteral("no argument of this call can be written in a rule, so a rule would "
                               "deny every call of %1")
                    .arg(tool));
    }
    json rule = {{"tool", literalGlob(tool).toStdString()}, {"decision", "deny"}};
    if (!pinned.empty())
        rule["arguments"] = std::move(pinned);
    if (!prefix.empty())
        rule["argvPrefix"] = std::move(prefix);
    if (!reason.isEmpty())
        rule["reason"] = reason.toStdString();
    return make(std::move(rule), std::move(notes));
}

Result<DenyRule> DenyRule::forTarget(const QString &tool, const QString &target, const json &arguments,
                                     const QString &reason)
{
    if (tool.isEmpty() || unmatchable(tool))
        return failure(QStringLiteral("the tool's name cannot be written in a rule"));
    if (const QString why = unpinnable(target); !why.isEmpty())
        return failure(QStringLiteral("the target %1").arg(why));
    QString argument;
    if (arguments.is_object()) {
        for (auto it = arguments.begin(); it != arguments.end() && argument.isEmpty(); ++it) {
            if (const auto text = Rule::argumentText(it.value()); text && *text == target)
                argument = nameOf(it.key());
        }
    }
    if (argument.isEmpty())
        return failure(
            QStringLiteral("no argument of the call is the target itself (the plan names it), so a "
                           "rule cannot single it out: deny the same call instead"));
    QStringList notes;
    if (hasWildcard(tool))
        notes.append(QStringLiteral("The tool's name holds * or ?, which a rule pattern cannot match on its "
                                    "own: the rule has ? there, so it also denies tools whose names differ "
                                    "only there."));
    if (hasWildcard(target))
        notes.append(
            QStringLiteral("The target holds * or ?, which a rule pattern cannot match on its own: "
                           "the rule has ? there, so it also denies targets that differ only there."));
    json rule = {{"tool", literalGlob(tool).toStdString()},
                 {"arguments", {{argument.toStdString(), literalGlob(target).toStdString()}}},
                 {"decision", "deny"}};
    if (!reason.isEmpty())
        rule["reason"] = reason.toStdString();
    return make(std::move(rule), std::move(notes));
}

Status DenyRule::prependTo(const QString &configPath) const
{
    if (configPath.isEmpty())
        return failure(QStringLiteral("there is no configuration file to write the rule to"));
    const QFileInfo info(configPath);
    if (!QDir().mkpath(info.absolutePath()))
        return failure(QStringLiteral("cannot make the folder %1").arg(info.absolutePath()));
    json rules = json::array();
    if (QFile file(configPath); file.exists()) {
        if (!file.open(QIODevice::ReadOnly))
            return failure(QStringLiteral("cannot read %1: %2").arg(configPath, file.errorString()));
        const QByteArray text = file.readAll();
        // A file Countersign refuses is not edited behind the human's back: its error first.
        if (auto parsed = Config::parse(text, configPath); !parsed)
            return failure(QStringLiteral("the configuration file does not read (%1); fix it first")
                               .arg(parsed.error()));
        if (!text.trimmed().isEmpty()) {
            const json doc = json::parse(text.cbegin(), text.cend(), nullptr, false, true);
            if (const auto it = doc.find("rules"); it != doc.end() && it->is_array())
                rules = *it;
        }
    }
    rules.insert(rules.begin(), m_json);
    if (auto written = ConfigFile::update(configPath, {{"rules", rules}}); !written)
        return failure(written.error());
    return success();
}

} // namespace Countersign
