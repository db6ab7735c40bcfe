#pragma once

#include "result.h"

#include <QLockFile>
#include <QObject>

#include <memory>

class QLocalServer;

namespace Countersign {

// One console per data folder. The first start holds a lock file in the folder (console.lock; a
// lock left by a process that died is taken over) and listens on a local socket that only its user
// can open: in $XDG_RUNTIME_DIR when that is a folder of this user closed to others, else in
// /tmp/countersign-<uid> (made 0700, and used only when it is this user's and closed to others). A later
// start finds the lock held, asks the running console over that socket to show its window, and exits: two
// consoles on one database would both serve, and a card would show in only one of them.
class ConsoleInstance final : public QObject
{
    Q_OBJECT
public:
    ~ConsoleInstance() override;
    Q_DISABLE_COPY_MOVE(ConsoleInstance)

    // This process becomes the data folder's console (keep the object alive while it serves), or,
    // when another console holds the folder, nothing: *elsewhere then says which and what it was
    // asked. Fails when the folder cannot be locked at all.
    static Result<std::unique_ptr<ConsoleInstance>> claim(const QString &dataDir, QString *elsewhere);

    // The local socket's path for a data folder (for a later start, and for `token add --setup`).
    static QString socketPath(const QString &dataDir);
    // Where the console listens for `countersign --stdio` bridges (LocalEndpoint).
    static QString bridgePath(const QString &dataDir);
    // The running console's /mcp URL, asked over its socket; empty when none answers (or what it
    // answers is not a loopback /mcp URL).
    static QString runningUrl(const QString &dataDir);

    // What runningUrl() answers, once the server listens.
    void setUrl(const QString &url) { m_url = url; }

Q_SIGNALS:
    // A later start asked for the window.
    void raiseRequested();

private:
    explicit ConsoleInstance(const QString &lockPath);

    QLockFile m_lock;
    QLocalServer *m_server = nullptr;
    QString m_url;
};

} // namespace Countersign
