#pragma once

#include "protectedset.h"

#include <QByteArray>
#include <QHash>
#include <QList>
#include <QSet>
#include <QString>

#include <functional>

namespace Countersign {

// The tripwire under the quiet path (docs/threat-model.md): whatever the reader of a command line
// missed, a file of the protected set (ProtectedSet) that a call allowed with no card changed is put
// back as it was, and said. The state of the set is recorded when the first of the quiet calls in
// flight is allowed (arm) and compared when each ends (disarm): a file changed, created or deleted
// since is restored from the copy taken at arm time (its bytes, its permissions; a link's target),
// or deleted when it was created, and the change is returned for the alarm. What it was changed to
// is handed to a keeper first (the undo store), so that a change the human made meanwhile is never
// lost. Between quiet calls the set is free to change (the human's edits, an approved call's):
// the record is taken again at the next arm. Files approved calls name while quiet calls run are
// not put back (exempt). Not thread-safe: the server thread's.
class Tripwire final
{
public:
    // Keeps what a file holds now somewhere it can be had back (the undo store); returns its
    // SHA-256, or an empty string when it could not be kept.
    using Keeper = std::function<QString(const QString &path)>;

    explicit Tripwire(ProtectedSet set = {}, Keeper keeper = {});

    void setProtected(ProtectedSet set);
    void setKeeper(Keeper keeper) { m_keeper = std::move(keeper); }
    const ProtectedSet &protectedSet() const { return m_set; }

    struct Change;
    // A quiet call is allowed: its key (unique among calls in flight). When no other quiet call
    // is in flight, the state of the protected set is recorded now, and what changed since the
    // last record while no quiet call ran is returned (not put back: it may be the human's own
    // change, or a program a call left running; the files an approved call named are left out).
    QList<Change> arm(const QString &call, qint64 nowMs);
    // Files a call approved by a human may change (while quiet calls are in flight, and until
    // the next record).
    void exempt(const QStringList &paths);

    struct Change final
    {
        QString path;
        QString what; // what the file is (ProtectedSet), in words
        QString how;  // "changed", "created", "deleted", "made a link"
        bool restored = false;
        QString problem;    // why it could not be restored
        QString keptSha256; // what the call left, kept by the keeper (empty: nothing, or not kept)
    };
    // The call ended (its report came): what the protected set lost since arm, each put back.
    // Calls still in flight share the record: what they change is found when they end.
    QList<Change> disarm(const QString &call);
    // Quiet calls whose report never came (the client stopped, or sends no report after a
    // failure): disarmed as if their report had come, when they were armed before olderThanMs.
    // Returns the keys with what each found.
    QList<QPair<QString, QList<Change>>> disarmStale(qint64 olderThanMs);

    bool armed() const { return !m_inFlight.isEmpty(); }
    QStringList inFlight() const { return m_inFlight.keys(); }
    int filesWatched() const { return m_baseline.size(); }

    // The largest file whose bytes are kept in memory to be put back (a larger one is watched
    // by its size and times, and an alarm says it could not be put back).
    static constexpr qint64 kMaxKeptBytes = 1 << 20;

private:
    struct State final
    {
        bool exists = false;
        bool link = false;
        bool regular = false;
        bool folder = false;
        bool hasBytes = false; // bytes holds the whole file (or the link's target)
        quint64 device = 0, inode = 0;
        qint64 size = 0, mtimeNs = 0, ctimeNs = 0;
        int mode = 0;
        QByteArray bytes; // a regular file's content, or a link's target
        QString what;
    };
    static State stateOf(const QString &path, const State *previous);
    static bool sameStat(const State &a, const State &b);
    static bool sameContent(const State &a, const State &b);
    // Takes the record again; returns what changed since the previous one.
    QList<Change> record();
    Change restore(const QString &path, const State &was, const State &now);

    ProtectedSet m_set;
    Keeper m_keeper;
    QHash<QString, State> m_baseline;
    QHash<QString, qint64> m_inFlight; // call -> when it was armed
    QSet<QString> m_exempt;
    QSet<QString> m_approved; // named by an approved call since the last record
};

} // namespace Countersign
