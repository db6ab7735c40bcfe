#pragma once

#include "result.h"

#include <QByteArray>
#include <QString>

namespace Countersign {

// Countersign's MCP server entry ("countersign", over HTTP with the connection's bearer token) in
// each agent's own user-level configuration, for `countersign setup CLIENT`. Everything else in the
// file is kept, in its order; a file that cannot be parsed is refused, never rewritten.
//   claude-code  ~/.claude.json             mcpServers.countersign {type http, url, headers}
//   codex        $CODEX_HOME/config.toml    a [mcp_servers.countersign] table (url, http_headers)
//                                           between two marker comments, appended at the end
//   gemini       ~/.gemini/settings.json    mcpServers.countersign {httpUrl, headers}
//   qwen         ~/.qwen/settings.json      mcpServers.countersign {httpUrl, headers}
//   copilot      ~/.copilot/mcp-config.json mcpServers.countersign {type http, url, headers, tools}
//   opencode     ~/.config/opencode/opencode.json  mcp.countersign {type remote, url, headers}
//   pi           none: pi has no MCP client (its own tools go through the extension alone)
namespace McpEntries {

struct Entry final
{
    QString url;   // the console's /mcp URL
    QString token; // the connection's bearer token
};

// The file, or empty for a client without MCP (pi).
QString configPath(const QString &client, const QString &home, const QString &codexHome = {});
// current: the file's bytes (empty when it does not exist).
Result<QByteArray> install(const QString &client, const QByteArray &current, const Entry &entry);
Result<QByteArray> remove(const QString &client, const QByteArray &current);
Result<bool> installed(const QString &client, const QByteArray &current);

} // namespace McpEntries

} // namespace Countersign
