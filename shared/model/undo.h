#pragma once

#include "result.h"

#include <QString>
#include <QStringList>

namespace Countersign {

// Taking back what a change did: an agent's write, edit or patch that ran with no card, an approved
// command that deleted or discarded files, a change by Countersign's own workspace tools. Its files'
// previous content was kept before it ran, and the audit chain names it under the operation's
// nonce (the event "agent-tool-ran" or "tool-undo-kept", its "undo" list). The audit view's Revert and
// `countersign undo` both go through this; the server's FileUndo does the work.
struct UndoPreview final
{
    QString nonce;
    QStringList nonces; // a turn's operations, oldest first (one: nonce)
    QStringList files;  // the paths it restores (or deletes, where the agent created them)
    QString diff;       // from each file as it is now to what it held before the agent's change
    // Why it cannot be undone now (a file changed since the change, a kept copy is gone, it was
    // reverted already); empty when it can.
    QString refusal;
};

class Undo
{
public:
    virtual ~Undo() = default;
    // Whether the operation kept what an undo needs (an agent's change that ran with no card).
    virtual Result<bool> hasUndo(const QString &nonce) = 0;
    virtual Result<UndoPreview> preview(const QString &nonce) = 0;
    // Checks again (a file that changed since the preview is refused), restores every file, and
    // records "agent-tool-reverted" with by in the chain. The words are for the person.
    virtual Result<QString> revert(const QString &nonce, const QString &by) = 0;

    // A whole turn of an agent session, taken back as one: the operations of the turn that holds
    // nonce (the session's calls on its connection between two pauses), oldest first, those that
    // kept something; or of a session, its last turn (sinceMs 0) or all its calls since sinceMs.
    virtual Result<QStringList> turnOf(const QString &nonce) = 0;
    // Whether the operation is a call of an agent session that kept something (cheap: its own rows
    // only; turnOf reads the session's).
    virtual Result<bool> hasTurn(const QString &nonce) = 0;
    virtual Result<QStringList> turnOfSession(const QString &session, qint64 sinceMs) = 0;
    // As preview and revert, for the turn as one change: each file back to what it held before the
    // turn's first change of it, refused when a file changed since the last or between two of them.
    virtual Result<UndoPreview> previewTurn(const QStringList &nonces) = 0;
    virtual Result<QString> revertTurn(const QStringList &nonces, const QString &by) = 0;
};

} // namespace Countersign
