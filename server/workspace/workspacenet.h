#pragma once

#include "snapshotstore.h"

#include <QHash>
#include <QList>
#include <QSet>
#include <QString>
#include <QStringList>

#include <memory>

namespace Countersign {

// The net under the workspace (docs/threat-model.md, "The net"): whatever a call that runs with no
// card does inside the roots can be taken back, whether or not the reader of its command line knew
// what it writes. Before such a call, the roots' files are recorded (arm): each regular file's size,
// times and permissions, and its bytes in the undo store (SnapshotStore), copied only where a file
// changed since the last record, so that recording a large, mostly unchanged tree costs a walk.
// When the call's report comes (disarm), the tree is compared with the record: each file changed,
// created or deleted is named with what it held before, the list FileUndo reverts byte for byte.
// Calls that overlap share one record (each is told how many others did). Not recorded: .git and
// the folders a build or a package manager makes again (regenerated()), links, and what is past the
// limits (a root of more than maxFiles files is not recorded at all; past maxNewBytes in one record,
// or over the store's largest file, a file is watched but not copied: its change is named with no
// undo). Not thread-safe: the server thread's.
class WorkspaceNet final
{
public:
    struct Limits final
    {
        int maxFiles = 50'000;            // per root
        qint64 maxNewBytes = 256LL << 20; // copied in one record (the first one copies the tree)
    };
    // Folder names not recorded, wherever they are: git's own, and what builds and package managers
    // make again (node_modules, target, build, .venv, ...).
    static const QStringList &regenerated();

    WorkspaceNet(QStringList roots, std::shared_ptr<SnapshotStore> store, Limits limits);
    WorkspaceNet(QStringList roots, std::shared_ptr<SnapshotStore> store)
        : WorkspaceNet(std::move(roots), std::move(store), Limits{})
    {
    }
    // New roots or a new store (a reload): a changed set of roots is recorded anew (calls in flight
    // then report no change).
    void configure(QStringList roots, std::shared_ptr<SnapshotStore> store);

    // A call that may change files is allowed; call: its key among the calls in flight.
    void arm(const QString &call, qint64 nowMs);

    struct Outcome final
    {
        QList<SnapshotStore::Kept> kept; // each file the call changed, as it was before it
        QStringList unkept;              // changed, and no copy of before was kept
        int sharedWith = 0;              // other calls that ran over the same record
        bool recorded = false;           // the call was armed
        bool incomplete = false;         // a root grew past twice its limit: deletions not told
    };
    // The call's report came: what changed in the roots since the record.
    Outcome disarm(const QString &call);
    // Calls armed before olderThanMs whose report never came: forgotten.
    void forgetStale(qint64 olderThanMs);

    bool armed() const { return !m_inFlight.isEmpty(); }
    int filesRecorded() const { return int(m_index.size()); }
    // Roots past maxFiles, not recorded.
    QStringList skippedRoots() const { return m_skipped.values(); }

private:
    struct Entry final
    {
        quint64 device = 0, inode = 0;
        qint64 size = 0, mtimeNs = 0, ctimeNs = 0;
        int mode = 0;
        QString sha256; // empty: not copied
        bool seen = false;
    };
    void record();

    QStringList m_roots;
    std::shared_ptr<SnapshotStore> m_store;
    Limits m_limits;
    QHash<QString, Entry> m_index;     // path -> as recorded
    QHash<QString, qint64> m_inFlight; // call -> when armed
    int m_sharers = 0;                 // calls armed over the record in force
    QSet<QString> m_skipped;
};

} // namespace Countersign
