#pragma once

#include <QHash>
#include <QList>
#include <QString>
#include <QStringList>

namespace Countersign {

// What a human declined of each agent session a moment ago, and whether a later call of the session
// reaches the same files by another road: a declined `rm -rf x`, then `find x -delete`, then a
// Python `shutil.rmtree('x')`. Such a call asks whatever the rules say, its card says first that it
// tries again after a decline (the same words each time it is planned, so that its re-plan after an
// approval matches), and once it has come back after two declines the session's connection is held
// (HookService). A call reaches a declined file when it deletes, discards or overwrites that file, a
// folder holding it, or a file in it. Bounded: the last kPerSession declines of each of the last
// kSessions sessions, for kWithinMs. Server thread.
class DeclinedIntents final
{
public:
    static constexpr int kPerSession = 16;
    static constexpr int kSessions = 256;
    static constexpr qint64 kWithinMs = 30 * 60 * 1000;

    struct Match final
    {
        int declines = 0; // how many declines of the session it reaches (0: none)
        QString note;     // for its card; empty when it reaches none
    };

    // session: the connection, a line break and the agent's session id. what: the call in a few words.
    void declined(const QString &session, const QStringList &targets, const QString &what, qint64 atMs);
    Match match(const QString &session, const QStringList &targets, qint64 nowMs) const;
    // Whether anything of the session was declined (what a call reaches is measured only then).
    bool any(const QString &session) const { return m_sessions.contains(session); }
    // A human released the connection: what its sessions had declined no longer holds it again.
    void forget(const QString &connection);

private:
    struct Declined final
    {
        QStringList targets;
        QString what;
        qint64 atMs = 0;
    };
    QHash<QString, QList<Declined>> m_sessions;
    QStringList m_order; // sessions, oldest first
};

} // namespace Countersign
