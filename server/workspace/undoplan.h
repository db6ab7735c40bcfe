#pragma once

#include "snapshotstore.h"

#include <nlohmann/json.hpp>

#include <QString>
#include <QStringList>

namespace Countersign {

class Workspace;
struct BlastRadius;

// Whether a change the human approves (or a rule allows) can be taken back afterwards, decided when
// its card is made so that the card can say so: the files it deletes, overwrites or writes are kept
// before it runs (SnapshotStore) when every one of them is known, inside the roots, a regular file
// (or none yet) with no other hard link and at most SnapshotStore::kMaxFileBytes, together at most
// kMaxFiles and kMaxBytes. Otherwise nothing is kept, and why not is said. Shared by the agents'
// own tools (through their hooks) and Countersign's own workspace tools.
struct UndoPlan final
{
    QStringList files; // absolute, each once; empty when nothing can be kept
    qint64 bytes = 0;
    QString why; // why it cannot be undone; empty when it can (or when it changes no file)

    // Each of these files, as the checks above allow. ws may be null (no roots: nothing is kept).
    static UndoPlan ofFiles(const QStringList &files, const Workspace *ws);
    // What a measured command deletes or discards (BlastRadius::deletes), when all of it is known.
    static UndoPlan ofRadius(const BlastRadius &radius, const Workspace *ws);

    bool undoable() const { return !files.isEmpty() && why.isEmpty(); }
    // One sentence for the card: what is kept and how to bring it back, or why it cannot be undone.
    QString sentence() const;
    // For the plan's blast radius (its digest binds it): {"files", "bytes"} or {"refused": why}.
    nlohmann::json toJson() const;

    // Keeps what each file holds now, before the change runs; all or none (a list that stops part
    // way is no undo: it is cleared, and error says why).
    static QList<SnapshotStore::Kept> keep(SnapshotStore &snapshots, const QStringList &files,
                                           QString *error);

    static constexpr int kMaxFiles = 2000;
    static constexpr qint64 kMaxBytes = 64LL << 20;
};

} // namespace Countersign
