#pragma once

#include "gatedaction.h"
#include "undoplan.h"

#include <QStringList>

#include <functional>
#include <memory>

namespace Countersign {

class SnapshotStore;

// The undo of Countersign's own workspace tools, as for an agent's own write or rm: a card says
// whether the change can be taken back (UndoPlan, in the plan its digest binds), and the run keeps
// what the files hold first, then names the kept copies in the audit chain under the operation
// (the event "tool-undo-kept", its "undo" list), which Revert in the audit view and
// `countersign undo` read (FileUndo). Nothing is kept without a snapshot store.
class UndoableApply final
{
public:
    explicit UndoableApply(std::shared_ptr<SnapshotStore> snapshots) : m_snapshots(std::move(snapshots)) {}

    bool keeps() const { return m_snapshots != nullptr; }
    // The undo of a change to these files (absolute), as the card states it.
    UndoPlan plan(const QStringList &files, const Workspace &ws) const;
    // The card's words and blast radius for it: the sentence appended to the summary and the
    // prompt, and "undo" in the blast radius. Nothing when nothing is kept or nothing changes.
    static void describe(const UndoPlan &undo, Plan &plan);
    // For a change whose kept copy covers everything it changes (a workspace tool's own files):
    // risk follows what can still be taken back, so it is not irreversible and High becomes
    // Medium, with no name to type.
    static void keptInFull(Plan &plan);

    using Run = std::function<void(GatedAction::ApplyDone)>;
    // Keeps the files (undo, made again now), runs, then records what was kept and what each file
    // holds after. When the plan it runs under promised a copy (its card said it could be undone),
    // nothing changes without one: a keep that fails, or files that can no longer be kept or are
    // not those the card counted, refuse the run with isError.
    void run(const UndoPlan &undo, const Plan &plan, const GatedAction::Recorder &record, const Run &run,
             GatedAction::ApplyDone done) const;

private:
    std::shared_ptr<SnapshotStore> m_snapshots;
};

} // namespace Countersign
