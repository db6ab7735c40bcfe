#pragma once

#include "blastradius.h"
#include "gatedaction.h"
#include "undoableapply.h"

#include <memory>

namespace Countersign {

class CommandRunner;
class Workspace;

// run_command: a program and its arguments (an argv array, never a shell) in a workspace folder.
// The read-only forms (readonlycommand.h) run without a card; everything else asks (rules change
// both). A card's plan pins the SHA-256 of every file inside the roots that argv names, so a script
// edited after approval re-plans into a new card instead of running.
class RunCommand final : public GatedAction
{
public:
    // snapshots: where what it deletes or discards is kept before it runs, for an undo (none: no undo).
    RunCommand(std::shared_ptr<const Workspace> ws, CommandRunner &runner,
               std::shared_ptr<SnapshotStore> snapshots = nullptr);

    QString name() const override { return QStringLiteral("run_command"); }
    nlohmann::json descriptor() const override;
    Verdict defaultVerdict(const nlohmann::json &args) const override;
    void plan(const nlohmann::json &args, PlanDone done) override;
    void apply(const nlohmann::json &args, ApplyDone done) override;
    void applyRecorded(const nlohmann::json &args, const Plan &plan, Recorder record,
                       ApplyDone done) override;

private:
    struct Pin final
    {
        QString path;
        QString sha256;
    };
    QList<Pin> pins(const QStringList &argv, const QString &cwd) const;
    static QStringList argvOf(const nlohmann::json &args);
    static QString quoted(const QStringList &argv);
    Result<QString> cwdOf(const nlohmann::json &args) const;
    static BlastRadius radiusOf(const QStringList &argv, const QString &cwd);
    UndoPlan undoPlan(const BlastRadius &radius) const;

    std::shared_ptr<const Workspace> m_wsOwner;
    const Workspace &m_ws;
    CommandRunner &m_runner;
    UndoableApply m_undo;
};

} // namespace Countersign
