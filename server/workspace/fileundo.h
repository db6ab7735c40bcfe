#pragma once

#include "snapshotstore.h"
#include "undo.h"

#include <QHash>

#include <nlohmann/json.hpp>

namespace Countersign {

class AuditStore;

// Undo over the snapshot store and the audit chain: the "undo" list of an operation's
// "agent-tool-ran" event (an agent's own tool) or "tool-undo-kept" (Countersign's own) names each file with
// the digest of what it held before the agent's change (null: it did not exist) and after it (null: the
// change deleted it). A file is restored only when it still holds what the change left, so a revert never
// throws away work done since; a restored file keeps its permissions, and a file the agent created is
// deleted. What a revert overwrites or deletes is kept first, and named in its chain row, so a revert
// loses nothing either. A turn (the calls of one agent session between two pauses, or since a time)
// is reverted as one: each file back to what it held before the turn's first change of it.
class FileUndo final : public Undo
{
public:
    FileUndo(AuditStore &store, SnapshotStore &snapshots);

    // The "undo" list for these kept files, each with what it holds now that the change ran.
    static nlohmann::json record(const QList<SnapshotStore::Kept> &kept);

    Result<bool> hasUndo(const QString &nonce) override;
    Result<UndoPreview> preview(const QString &nonce) override;
    Result<QString> revert(const QString &nonce, const QString &by) override;
    Result<QStringList> turnOf(const QString &nonce) override;
    Result<bool> hasTurn(const QString &nonce) override;
    Result<QStringList> turnOfSession(const QString &session, qint64 sinceMs) override;
    Result<UndoPreview> previewTurn(const QStringList &nonces) override;
    Result<QString> revertTurn(const QStringList &nonces, const QString &by) override;

    // A pause longer than this between two calls of a session ends a turn (where the agent tells
    // no prompt, the turn is what it did between two pauses).
    static constexpr qint64 kTurnPauseMs = 120'000;

    struct Entry;

private:
    Result<nlohmann::json> undoList(const QString &nonce);
    // The operations' undo lists merged, oldest first; refusal set when they cannot be undone now.
    Result<QList<Entry>> entriesOf(const QStringList &nonces, QString *refusal);
    // The preview of these entries, refused with refusal when it is set; what each file held before
    // goes into previousBytes (by digest) when given.
    UndoPreview previewOf(const QStringList &nonces, const QList<Entry> &entries, const QString &refusal,
                          QHash<QString, QByteArray> *previousBytes);

    AuditStore &m_store;
    SnapshotStore &m_snapshots;
};

} // namespace Countersign
