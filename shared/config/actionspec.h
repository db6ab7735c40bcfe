#pragma once

#include "plan.h"
#include "result.h"

#include <nlohmann/json.hpp>

#include <QString>
#include <QStringList>

#include <optional>

namespace Countersign {

// A gated action from the configuration's "actions" list: a tool whose plan and apply steps are
// commands given as argv arrays. "{name}" in an argv element is replaced by the validated argument
// of that name; nothing passes through a shell, and no placeholder may stand inside a script that a
// shell or an interpreter runs (sh -c, python -c, node -e...).
struct ActionSpec final
{
    QString name;
    QString title;
    QString description;
    nlohmann::json inputSchema;
    QStringList plan;  // argv template; its stdout is the plan
    QStringList apply; // argv template; runs only through the gate
    QString workingDirectory;
    Risk risk = Risk::High;
    int timeoutSeconds = 120;

    // value: one element of "actions"; at names it in errors ("actions[2]"). Refuses a plan or apply
    // command with a placeholder inside a shell or interpreter script (wherever that program stands
    // in the argv: behind env, sudo, find -exec...), naming the safe form that passes the value as
    // an argument instead.
    static Result<ActionSpec> fromJson(const nlohmann::json &value, const QString &at);

    // Fills the placeholders. Refuses a value that is not a string, number or boolean, that holds a
    // NUL byte, or that starts with '-' (it would be read as an option by the command); and a filled
    // element that holds a NUL byte, or that starts with '-' when its template does not ("{a}-{b}"
    // with a = ""; "--name={name}" is the config author's own option).
    static Result<QStringList> fillArgv(const QStringList &argvTemplate, const nlohmann::json &arguments);
    // A non-empty JSON array of non-empty strings (an argv, a list of names), or nothing.
    static std::optional<QStringList> stringList(const nlohmann::json &value);
    // The placeholder names used in a template, in order.
    static QStringList placeholders(const QStringList &argvTemplate);
};

} // namespace Countersign
