#pragma once

#include "plan.h"
#include "policy.h"
#include "result.h"

#include <nlohmann/json.hpp>

#include <QByteArray>
#include <QList>
#include <QMap>
#include <QPair>
#include <QString>
#include <QStringList>

#include <optional>

namespace Countersign {

// What the configuration says of one tool of an upstream ("upstreams[i].tools.NAME"). Each field
// overrides what the upstream's annotations would make of it.
struct UpstreamToolSettings final
{
    std::optional<Verdict> decision; // when no rule matches; else the annotations decide
    std::optional<Risk> risk;        // of its card; else high for destructive tools, medium otherwise
    QStringList targets;             // names of the arguments that name what the call touches
    nlohmann::json planWith;         // an object: arguments that make the same tool only say what it would do
    QStringList plan;                // an argv template ({argument} placeholders) whose output is the plan
};

// An MCP server behind the gate ("upstreams" in the configuration): a command Countersign starts
// and talks to over stdio, or an HTTP URL it connects to on demand. Its tools are served as
// <prefix><tool>.
struct UpstreamSpec final
{
    QString name;
    QString prefix;             // "<name>_" unless given
    QStringList command;        // stdio: argv (no shell)
    QMap<QString, QString> env; // stdio: added to Countersign's environment
    QString cwd;                // stdio: working directory (absolute); the data folder's parent when empty
    QString url;                // HTTP: the MCP endpoint
    QList<QPair<QByteArray, QByteArray>> headers; // HTTP: sent with every request
    int timeoutSeconds = 60; // one call's limit; a call past it is answered "outcome unknown"
    QMap<QString, UpstreamToolSettings> tools;
    nlohmann::json source; // the configuration's object, as written (compared on reload)

    bool isStdio() const { return !command.isEmpty(); }
    // The settings of an upstream tool (its name upstream); defaults when the config names none.
    UpstreamToolSettings settingsOf(const QString &tool) const { return tools.value(tool); }

    // value: one element of "upstreams"; at names it in errors ("upstreams[0]").
    static Result<UpstreamSpec> fromJson(const nlohmann::json &value, const QString &at);
};

} // namespace Countersign
