#pragma once

#include "snapshotstore.h"
#include "undo.h"

#include <nlohmann/json.hpp>

namespace Countersign {

class AuditStore;

// Undo over the snapshot store and the audit chain: the "undo" list of an operation's
// "agent-tool-ran" event (an agent's own tool) or "tool-undo-kept" (Countersign's own) names each file with
// the digest of what it held before the agent's change (null: it did not exist) and after it (null: the
// change deleted it). A file is restored only when it still holds what the change left, so a revert never
// throws away work done since; a restored file keeps its permissions, and a file the agent created is
// deleted.
class FileUndo final : public Undo
{
public:
    FileUndo(AuditStore &store, SnapshotStore &snapshots);

    // The "undo" list for these kept files, each with what it holds now that the change ran.
    static nlohmann::json record(const QList<SnapshotStore::Kept> &kept);

    Result<bool> hasUndo(const QString &nonce) override;
    Result<UndoPreview> preview(const QString &nonce) override;
    Result<QString> revert(const QString &nonce, const QString &by) override;

private:
    Result<nlohmann::json> undoList(const QString &nonce);

    AuditStore &m_store;
    SnapshotStore &m_snapshots;
};

} // namespace Countersign
