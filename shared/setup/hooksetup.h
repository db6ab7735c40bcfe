#pragma once

#include "result.h"

#include <nlohmann/json.hpp>

#include <QString>
#include <QStringList>

namespace Countersign {

// Countersign's hooks in each client's own settings file, merged with what is there
// (docs/client-hooks.md has each format as the client's source reads it). Install first takes out
// any Countersign hook it finds (so installing twice gives the same file), then adds its own; remove
// takes them out and drops what is left empty. Nothing else in the file changes.
//   claude-code  ~/.claude/settings.json: HTTP hooks on the console (PreToolUse, PostToolUse), the
//                token in their Authorization header (a user-level file, never a project's),
//                onFailure "block" (Claude Code 2.1.295 and later), timeout 600 s
//   codex        $CODEX_HOME/hooks.json (~/.codex): command hooks running the shim (PreToolUse,
//                PermissionRequest, PostToolUse), timeout 600 s; Codex runs them only once their
//                hash is trusted (/hooks in the TUI), or with --dangerously-bypass-hook-trust
//   gemini       ~/.gemini/settings.json: command hooks (BeforeTool, AfterTool), timeout 600000 ms
//                (Gemini CLI reads milliseconds), in trusted folders only
//   qwen         ~/.qwen/settings.json: command hooks (PreToolUse, PermissionRequest, PostToolUse),
//                timeout 600 s
// The shim reads its token from a file of the data folder (countersign hook --token-file), so no
// client file holds it but Claude Code's user settings.
namespace HookSetup {

struct Target final
{
    QString client;   // "claude-code", ...
    QString hookUrl;  // claude-code: http://127.0.0.1:PORT/hooks/claude-code
    QString token;    // claude-code: the connection's bearer token
    QStringList shim; // the others: the program and arguments of `countersign hook CLIENT ...`
};

// The settings file of client under home (codexHome: $CODEX_HOME when set).
QString settingsPath(const QString &client, const QString &home, const QString &codexHome = {});
// A plugin client's files under home: its settingsPath, and its second file where it has one
// (Cline's hook after a tool ran); none for a client with hook settings.
QStringList pluginFiles(const QString &client, const QString &home);
// The tools each client's hooks are asked about: shell, file writes and edits, other MCP servers.
QString matcher(const QString &client);

Result<nlohmann::ordered_json> install(const nlohmann::ordered_json &settings, const Target &target);
nlohmann::ordered_json remove(const nlohmann::ordered_json &settings, const QString &client);
// Whether settings holds a Countersign hook of client.
bool installed(const nlohmann::ordered_json &settings, const QString &client);

QStringList clients();

} // namespace HookSetup

} // namespace Countersign
