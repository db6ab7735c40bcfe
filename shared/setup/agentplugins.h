#pragma once

#include "hookclients.h"

#include <QByteArray>
#include <QString>
#include <QStringList>

namespace Countersign::AgentPlugins {

// The agents with no hook commands, whose own extension point a file of Countersign's runs the
// shim (shim: its program and arguments) for, in Claude Code's payload, with the agent's argument
// names renamed to Claude Code's (a call naming both spellings is refused), and stops the tool
// unless the answer is an allow: a shim that cannot start, exits non-zero or prints anything else
// stops it. A tool it does not know (an MCP tool, another plugin's) is asked about under its own
// name, which the gate does not know either: a card. opencode's tools that change nothing (its
// todo list, a subagent, a web fetch) are not asked about. After a tool ran, it reports it.
//   - opencode: a plugin whose "tool.execute.before" throws (its permission.ask never fires);
//   - pi: an extension whose "tool_call" handler answers { block: true, reason }.
QString text(HookClient client, const QStringList &shim);

// Whether a file's text is one of Countersign's (what install writes and remove deletes).
bool isOurs(const QByteArray &text);

} // namespace Countersign::AgentPlugins
