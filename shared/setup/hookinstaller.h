#pragma once

#include "hooksetup.h"
#include "result.h"

#include <QString>
#include <QStringList>

namespace Countersign {

class TokenStore;

// Countersign's hooks written into (and taken out of) a client's user-level settings file, for
// `countersign hooks install|remove CLIENT` and the Connections tab alike (HookSetup merges; this
// reads and writes the file and keeps the connection CLIENT-hooks and its token):
//   - the file is backed up beside itself first, never over an earlier backup, and replaced at once;
//   - a file with comments, or that is not JSON, is refused and left as it was;
//   - install makes the connection CLIENT-hooks with a fresh token (Claude Code: in its HTTP hook's
//     header; the others: in DATA/hooks/CLIENT.token, readable by the user alone, which the shim
//     reads); remove revokes it and deletes the token file.
class HookInstaller final
{
public:
    struct Place final
    {
        QString home;        // the user's home folder
        QString codexHome;   // $CODEX_HOME, when set
        QString dataDir;     // Countersign's data folder (absolute)
        QString consoleBase; // http://127.0.0.1:PORT, the console's HTTP address
        QStringList shim;    // what a command hook runs before CLIENT: countersign-hook, or countersign hook
        QString socket;      // the console's socket for bridges and hook shims
    };
    struct State final
    {
        QString client;
        QString path; // the client's settings file
        bool installed = false;
        QString problem; // why the file cannot be read, when it cannot
    };

    HookInstaller(TokenStore &tokens, Place place);

    // Whether each client's settings hold Countersign's hooks now (read from the files each time).
    State state(const QString &client) const { return stateAt(m_place, client); }
    static State stateAt(const Place &place, const QString &client);
    // What was done, in a sentence for a person (the backup's path, the client's own step after).
    Result<QString> install(const QString &client, const QString &owner);
    Result<QString> remove(const QString &client);
    // The hooks that install would merge at place, as text to paste, with a placeholder for the token.
    static Result<QString> setupText(const Place &place, const QString &client);

    // The connection a client's hooks act as.
    static QString connectionName(const QString &client);
    // The connection CLIENT-hooks revoked (gone already is fine) and its token file deleted.
    void dropConnection(const QString &client);
    // What the person must still do in the client itself (Codex's trust step, trusted folders).
    static QString afterwards(const QString &client);
    // The client's name as a person reads it ("Claude Code").
    static QString displayName(const QString &client);

private:
    static QString settingsPath(const Place &place, const QString &client);
    Result<QString> freshToken(const QString &client, const QString &owner);
    static HookSetup::Target targetOf(const Place &place, const QString &client);

    TokenStore &m_tokens;
    Place m_place;
};

} // namespace Countersign
