#include "undoableapply.h"

#include "fileundo.h"
#include "snapshotstore.h"
#include "tool.h"

#include <QLoggingCategory>

Q_LOGGING_CATEGORY(lcUndo, "countersign.undo")

namespace Countersign {

UndoPlan UndoableApply::plan(const QStringList &files, const Workspace &ws) const
{
    return m_snapshots ? UndoPlan::ofFiles(files, &ws) : UndoPlan{};
}

void UndoableApply::describe(const UndoPlan &undo, Plan &plan)
{
    const QString sentence = undo.sentence();
    if (sentence.isEmpty())
        return;
    if (!plan.summary.isEmpty())
        plan.summary += plan.summary.endsWith(QLatin1Char('.')) ? QStringLiteral(" ") : QStringLiteral(". ");
    plan.summary += sentence;
    plan.prompt += QLatin1Char(' ') + sentence;
    plan.blastRadius["undo"] = undo.toJson();
}

void UndoableApply::run(const UndoPlan &undo, const GatedAction::Recorder &record, const Run &run,
                        GatedAction::ApplyDone done) const
{
    if (!m_snapshots || !undo.undoable())
        return run(std::move(done));
    QString error;
    const QList<SnapshotStore::Kept> kept = UndoPlan::keep(*m_snapshots, undo.files, &error);
    if (kept.isEmpty()) {
        qCWarning(lcUndo) << "refused a change whose copy could not be kept:" << error;
        return done(
            textResult(QStringLiteral("Countersign could not keep a copy of what the change overwrites "
                                      "or deletes (%1), and its card said it could be undone. Nothing "
                                      "was changed.")
                           .arg(error),
                       true));
    }
    run([kept, record, done = std::move(done)](nlohmann::json result) {
        record(QStringLiteral("tool-undo-kept"), {{"undo", FileUndo::record(kept)}});
        done(std::move(result));
    });
}

} // namespace Countersign
