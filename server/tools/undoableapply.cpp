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

void UndoableApply::keptInFull(Plan &plan)
{
    plan.blastRadius["irreversible"] = false;
    if (plan.risk == Risk::High)
        plan.risk = Risk::Medium;
}

void UndoableApply::run(const UndoPlan &undo, const Plan &plan, const GatedAction::Recorder &record,
                        const Run &run, GatedAction::ApplyDone done) const
{
    const auto refuse = [&done](const QString &why) {
        qCWarning(lcUndo) << "refused a change whose promised copy could not be kept:" << why;
        return done(
            textResult(QStringLiteral("Countersign could not keep a copy of what the change overwrites or "
                                      "deletes (%1), and its card said it could be undone. Nothing was "
                                      "changed.")
                           .arg(why),
                       true));
    };
    const nlohmann::json promise =
        plan.blastRadius.is_object() ? plan.blastRadius.value("undo", nlohmann::json()) : nlohmann::json();
    const bool promised = promise.is_object() && promise.contains("files");
    if (promised && (!m_snapshots || !undo.undoable()))
        return refuse(undo.why.isEmpty() ? QStringLiteral("nothing can be kept now") : undo.why);
    if (promised && promise.value("files", nlohmann::json()) != nlohmann::json(undo.files.size()))
        return refuse(QStringLiteral("it now changes %1 files, not the %2 its card counted")
                          .arg(undo.files.size())
                          .arg(QString::fromStdString(promise.value("files", nlohmann::json()).dump())));
    if (!m_snapshots || !undo.undoable())
        return run(std::move(done));
    QString error;
    const QList<SnapshotStore::Kept> kept = UndoPlan::keep(*m_snapshots, undo.files, &error);
    if (kept.isEmpty()) {
        if (promised)
            return refuse(error);
        // No card promised it (a rule allowed the call): it runs as allowed, with no undo.
        qCWarning(lcUndo) << "a change runs with no undo:" << error;
        return run(std::move(done));
    }
    run([kept, record, done = std::move(done)](nlohmann::json result) {
        record(QStringLiteral("tool-undo-kept"), {{"undo", FileUndo::record(kept)}});
        done(std::move(result));
    });
}

} // namespace Countersign
