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
// current: the file's bytes (empty when it does not exist). Codex's table is found between the two
// markers; unmarkedToo (the ledger says setup wrote this file): a table of that name anywhere too,
// since Codex's own config writers drop comments when they rewrite a table. Lines Codex put between
// the markers (its own tables) are kept. A server of that name that setup did not write, in any of
// TOML's spellings (a table, a dotted key, a key under [mcp_servers], or mcp_servers inline), is
// refused: writing another would make a file Codex cannot load.
Result<QByteArray> install(const QString &client, const QByteArray &current, const Entry &entry,
                           bool unmarkedToo = false);
Result<QByteArray> remove(const QString &client, const QByteArray &current, bool unmarkedToo = false);
// Whether a server of that name is there (Codex: under any header of that name).
Result<bool> installed(const QString &client, const QByteArray &current);

} // namespace McpEntries

} // namespace Countersign
