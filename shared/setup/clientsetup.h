#pragma once

#include <QList>
#include <QString>
#include <QStringList>

namespace Countersign {

// How each client is pointed at Countersign, in the format that client reads today: over HTTP
// (the console's URL and a bearer token) and over stdio (the client starts `countersign --stdio`,
// which relays to the running console, with the token in COUNTERSIGN_TOKEN). The Connections tab
// shows this text after adding a connection; `countersign token add NAME --setup` prints it.
struct ClientSetup final
{
    QString client;     // "Claude Code"
    QString transport;  // "HTTP" or "stdio"
    QString where;      // the file it goes in, or how it is run; empty for a command line
    QString text;       // the command line, or the file's content
    QString needs = {}; // what the client itself needs before it uses the server (a trust step)

    // The whole text: the token, then each client under a header line
    // "== <client>, <transport>[: <where>] ==", its text, and what it needs ("Then: ...").
    static QString document(const QString &connection, const QString &url, const QString &token,
                            const QStringList &stdioCommand);
    // url: the /mcp URL; stdioCommand: the program and its arguments (`countersign --stdio` and the
    // folders it must name).
    static QList<ClientSetup> all(const QString &url, const QString &token, const QStringList &stdioCommand);
};

} // namespace Countersign
