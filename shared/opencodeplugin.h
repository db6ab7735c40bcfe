#pragma once

#include <QString>
#include <QStringList>

namespace Countersign::OpenCodePlugin {

// opencode has no hook commands: its plugins' "tool.execute.before" runs before every tool, and a
// throw there stops the tool. Countersign's plugin (a file of its own in opencode's plugin folder)
// hands each call of opencode's own tools to the shim (shim: its program and arguments) in Claude
// Code's payload, with opencode's argument names renamed (filePath: file_path, oldString:
// old_string, ...; a call naming both spellings is refused), and throws unless the answer is an
// allow: a shim that fails, exits non-zero or prints anything else stops the tool. Tools it does
// not know (MCP tools among them) are not asked about. After a tool ran, it reports it.
QString text(const QStringList &shim);

// Whether a file's text is Countersign's plugin (what install writes and remove deletes).
bool isOurs(const QByteArray &text);

} // namespace Countersign::OpenCodePlugin
