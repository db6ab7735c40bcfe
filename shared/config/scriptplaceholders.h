#pragma once

#include <QRegularExpression>
#include <QString>
#include <QStringList>

#include <optional>

namespace Countersign {

// Script strings in an action's argv template. A placeholder inside code that a shell or an
// interpreter runs (sh -c, python -c, node -e, awk programs, ... wherever that program stands:
// behind env, sudo, find -exec) turns the agent's value into code, whatever the input schema says
// of it; so does one in what a program joins into a shell command line (ssh after the host, watch
// without --exec, su -c). Each program is read with the option syntax it really has, closely enough
// to find which elements it runs as code.
namespace ScriptPlaceholders {

// "{name}" in an argv element.
const QRegularExpression &pattern();
bool has(const QString &text);

// Why argvTemplate puts a placeholder where it becomes code, with the safe form that passes the
// value as an argument where there is one; nothing when it does not.
std::optional<QString> problem(const QStringList &argvTemplate);

} // namespace ScriptPlaceholders

} // namespace Countersign
