#pragma once

#include "gatedaction.h"
#include "undoableapply.h"
#include "workspace.h"
#include "workspaceargs.h"

#include <memory>

namespace Countersign {

// What the workspace tools share (WorkspaceTools, PathTools): confined to the roots, their path
// arguments spelled as the rules see them, planned and applied at once, and a change's undo.
class WorkspaceAction : public GatedAction
{
public:
    using json = nlohmann::json;
    // Entries named in a plan or a listing.
    static constexpr int kMaxListed = 2000;

    // Shares the workspace, so a configuration reload cannot pull it away from a call in flight.
    // snapshots: where a change keeps what it overwrites or deletes, for an undo (none: no undo).
    WorkspaceAction(std::shared_ptr<const Workspace> ws, std::shared_ptr<SnapshotStore> snapshots)
        : m_wsOwner(std::move(ws)), m_ws(*m_wsOwner), m_undo(std::move(snapshots))
    {
    }

    // Their paths as the rules see them: resolved, so a rule on build holds for ./build and build/.
    PathSpellings pathSpellings(const json &args) const override
    {
        PathSpellings paths;
        for (const char *name : pathArguments()) {
            // Listed even when it cannot be resolved: no allow rule then matches it.
            if (const auto value = args.find(name); value != args.end() && value->is_string())
                paths[QLatin1String(name)] = m_ws.spellings(WorkspaceArgs::str(args, name));
        }
        return paths;
    }

protected:
    // The arguments that name a path inside the roots.
    virtual QList<const char *> pathArguments() const { return {"path"}; }
    // Most file tools plan and apply synchronously; they answer through the callbacks at once.
    virtual Result<Plan> planNow(const json &args) const = 0;
    virtual json applyNow(const json &args) const = 0;
    // The files a change overwrites, deletes or creates (absolute), kept before it runs for its
    // undo; none for a tool that changes nothing.
    virtual QStringList changedFiles(const json &args) const
    {
        Q_UNUSED(args)
        return {};
    }
    void plan(const json &args, PlanDone done) override
    {
        auto p = planNow(args);
        if (p && !readsOnly() && m_undo.keeps()) {
            const UndoPlan undo = m_undo.plan(changedFiles(args), m_ws);
            UndoableApply::describe(undo, p.value());
            // Every file it changes is kept first: it can be taken back (issue 51).
            if (undo.undoable())
                UndoableApply::keptInFull(p.value());
        }
        done(std::move(p));
    }
    void apply(const json &args, ApplyDone done) override { done(applyNow(args)); }
    void applyRecorded(const json &args, const Plan &plan, Recorder record, ApplyDone done) override
    {
        if (readsOnly())
            return apply(args, std::move(done));
        m_undo.run(
            m_undo.plan(changedFiles(args), m_ws), plan, record,
            [this, args](ApplyDone d) { d(applyNow(args)); }, std::move(done));
    }

    std::shared_ptr<const Workspace> m_wsOwner;
    const Workspace &m_ws;
    UndoableApply m_undo;
};

} // namespace Countersign
