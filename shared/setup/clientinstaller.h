#pragma once

#include "hookinstaller.h"
#include "result.h"

#include <QString>

namespace Countersign {

class TokenStore;

// All of one agent's set-up, and all of it taken out again (`countersign setup CLIENT`, `--remove`):
//   - its hooks, or its plugin (HookInstaller), as the connection CLIENT-hooks;
//   - Countersign's MCP server in the agent's own configuration (McpEntries), as CLIENT-mcp, with a
//     token of its own;
//   - a ledger in DATA/setup/CLIENT.json (readable by the user alone): each file touched, its bytes
//     before the first setup, and a digest of the bytes setup left.
// Remove puts each file back byte for byte (or deletes it, if setup made it) when nobody changed it
// since; a file changed since has only Countersign's entries taken out, and the answer says so.
// Both connections are revoked. A file that cannot be parsed is refused before anything changes.
class ClientInstaller final
{
public:
    ClientInstaller(TokenStore &tokens, HookInstaller::Place place);

    // The MCP connection's name.
    static QString mcpConnection(const QString &client);
    // What was done, in sentences for a person.
    Result<QString> setup(const QString &client, const QString &owner);
    Result<QString> remove(const QString &client);
    // The files setup writes for client (the hooks' or plugin's, the MCP configuration's).
    QStringList files(const QString &client) const;
    const HookInstaller &hooks() const { return m_hooks; }
    const HookInstaller::Place &place() const { return m_place; }

private:
    QString ledgerPath(const QString &client) const;

    TokenStore &m_tokens;
    HookInstaller::Place m_place;
    HookInstaller m_hooks;
};

} // namespace Countersign
