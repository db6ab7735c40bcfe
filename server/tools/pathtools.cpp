#include "pathtools.h"

#include "blastradius.h"
#include "git.h"
#include "tool.h"
#include "workspaceaction.h"

#include <QDir>
#include <QDirIterator>
#include <QFile>
#include <QFileInfo>
#include <QLocale>

namespace Countersign {

namespace {

using json = nlohmann::json;
using WorkspaceArgs::shown;
using WorkspaceArgs::str;

// What a folder holds that is not a folder (links included, not followed), in path order, with the
// bytes of its regular files; a file alone when path is not a folder. *any: the folder holds anything.
QStringList filesUnder(const QString &path, qint64 *bytes, bool *any)
{
    const QFileInfo info(path);
    *any = false;
    *bytes = 0;
    if (!info.isDir() || info.isSymLink()) {
        *bytes = info.isSymLink() ? 0 : info.size();
        return {path};
    }
    QStringList files;
    QDirIterator it(path, QDir::AllEntries | QDir::Hidden | QDir::System | QDir::NoDotAndDotDot,
                    QDirIterator::Subdirectories);
    while (it.hasNext()) {
        const QFileInfo f(it.next());
        *any = true;
        if (!f.isDir() || f.isSymLink()) {
            files.append(f.filePath());
            *bytes += f.isSymLink() ? 0 : f.size();
        }
    }
    files.sort(); // listed in path order, whatever order the file system gave
    return files;
}

class DeletePath final : public WorkspaceAction
{
public:
    using WorkspaceAction::WorkspaceAction;
    QString name() const override { return QStringLiteral("delete_path"); }
    json descriptor() const override
    {
        static const json kDescriptor = WorkspaceArgs::descriptor(
            "delete_path", "Delete a file or folder",
            "Deletes a file, or a folder with recursive: true, inside the workspace roots.",
            {{"path", {{"type", "string"}}}, {"recursive", {{"type", "boolean"}}}}, {"path"}, false, true);
        return kDescriptor;
    }
    Result<Plan> planNow(const json &args) const override
    {
        auto path = m_ws.resolve(str(args, "path"), Workspace::Must::Exist);
        if (!path)
            return failure(path.error());
        if (m_ws.roots().contains(path.value()))
            return failure(
                QStringLiteral("%1 is a workspace root; it cannot be deleted").arg(str(args, "path")));
        qint64 bytes = 0;
        bool any = false;
        const QStringList files = filesUnder(path.value(), &bytes, &any);
        if (any && !args.value("recursive", false))
            return failure(
                QStringLiteral("%1 is a folder that is not empty: pass recursive: true to delete it")
                    .arg(str(args, "path")));
        const Git::LossReport lost = Git::lossReport(files);
        Plan p;
        p.title = QStringLiteral("Delete %1").arg(shown(m_ws, path.value()));
        p.targets = {shown(m_ws, path.value())}; // what the human types to confirm
        QStringList lines;
        for (qsizetype i = 0; i < files.size() && i < kMaxListed; ++i) {
            QString mark;
            if (lost.untracked.contains(files[i]))
                mark = QStringLiteral("   (untracked: git cannot bring it back)");
            else if (lost.uncommitted.contains(files[i]))
                mark = QStringLiteral("   (uncommitted changes: git cannot bring them back)");
            lines.append(QStringLiteral("-%1%2").arg(shown(m_ws, files[i]), mark));
        }
        if (files.size() > kMaxListed)
            lines.append(QStringLiteral("… and %1 more files").arg(files.size() - kMaxListed));
        p.diff = lines.join(QLatin1Char('\n'));
        const bool unrecoverable = lost.unrecoverable();
        p.summary = QStringLiteral("%1, %2; %3 untracked and %4 with uncommitted changes")
                        .arg(files.size() == 1 ? QStringLiteral("1 file")
                                               : QStringLiteral("%1 files").arg(files.size()),
                             QLocale::c().formattedDataSize(bytes, 1, QLocale::DataSizeTraditionalFormat))
                        .arg(lost.untracked.size())
                        .arg(lost.uncommitted.size());
        if (!lost.inWorkTree)
            p.summary += QStringLiteral("; not in a git work tree, nothing can be restored");
        // The same sentence as an agent's own rm -r of it (BlastRadius) says it all.
        Shell::Effect deletion;
        deletion.kind = Shell::Effect::Kind::Deletes;
        deletion.path = path.value();
        deletion.what = QStringLiteral("delete_path");
        if (const BlastRadius radius = BlastRadius::of({deletion}, QDir::homePath());
            !radius.sentences.isEmpty())
            p.summary = radius.sentences.join(QLatin1Char(' '));
        p.prompt = QStringLiteral("%1? (%2)").arg(p.title, p.summary);
        p.blastRadius = {{"files", files.size()},
                         {"bytes", bytes},
                         {"untracked", lost.untracked.size()},
                         {"uncommitted", lost.uncommitted.size()},
                         {"inGitWorkTree", lost.inWorkTree},
                         {"irreversible", unrecoverable}};
        p.risk = unrecoverable ? Risk::High : Risk::Medium;
        return p;
    }
    json applyNow(const json &args) const override
    {
        auto path = m_ws.resolve(str(args, "path"), Workspace::Must::Exist);
        if (!path)
            return textResult(path.error(), true);
        const QFileInfo info(path.value());
        const bool ok = info.isDir() && !info.isSymLink() ? QDir(path.value()).removeRecursively()
                                                          : QFile::remove(path.value());
        return ok ? textResult(QStringLiteral("deleted %1").arg(str(args, "path")))
                  : textResult(QStringLiteral("could not delete all of %1").arg(str(args, "path")), true);
    }
    QStringList changedFiles(const json &args) const override
    {
        auto path = m_ws.resolve(str(args, "path"), Workspace::Must::Exist);
        if (!path)
            return {};
        qint64 bytes = 0;
        bool any = false;
        return filesUnder(path.value(), &bytes, &any);
    }
};

class MovePath final : public WorkspaceAction
{
public:
    using WorkspaceAction::WorkspaceAction;
    QString name() const override { return QStringLiteral("move_path"); }
    QList<const char *> pathArguments() const override { return {"from", "to"}; }
    json descriptor() const override
    {
        static const json kDescriptor = WorkspaceArgs::descriptor(
            "move_path", "Move or rename", "Moves a file or folder inside the workspace roots.",
            {{"from", {{"type", "string"}}}, {"to", {{"type", "string"}}}}, {"from", "to"}, false, true);
        return kDescriptor;
    }
    Result<Plan> planNow(const json &args) const override
    {
        auto from = m_ws.resolve(str(args, "from"), Workspace::Must::Exist);
        if (!from)
            return failure(from.error());
        auto to = m_ws.resolve(str(args, "to"), Workspace::Must::MayBeNew);
        if (!to)
            return failure(to.error());
        if (m_ws.roots().contains(from.value()))
            return failure(QStringLiteral("a workspace root cannot be moved"));
        const QFileInfo target(to.value());
        if (target.isDir() && !target.isSymLink())
            return failure(
                QStringLiteral("%1 is an existing folder; name the new path itself").arg(str(args, "to")));
        Plan p;
        p.title = QStringLiteral("Move %1 to %2").arg(shown(m_ws, from.value()), shown(m_ws, to.value()));
        p.targets = {shown(m_ws, from.value()), shown(m_ws, to.value())};
        const bool overwrites = target.exists();
        p.diff = QStringLiteral("rename from %1\nrename to %2\n")
                     .arg(shown(m_ws, from.value()), shown(m_ws, to.value()));
        if (overwrites)
            p.diff += QStringLiteral("-%1 (%2 bytes, overwritten)\n")
                          .arg(shown(m_ws, to.value()))
                          .arg(target.size());
        const Git::LossReport lost = overwrites ? Git::lossReport({to.value()}) : Git::LossReport{};
        const bool unrecoverable = overwrites && lost.unrecoverable();
        p.summary = overwrites ? QStringLiteral("overwrites %1").arg(shown(m_ws, to.value()))
                               : QStringLiteral("nothing is overwritten");
        p.prompt = QStringLiteral("%1? (%2)").arg(p.title, p.summary);
        p.blastRadius = {{"overwrites", overwrites},
                         {"bytesOverwritten", overwrites ? target.size() : 0},
                         {"irreversible", unrecoverable}};
        p.risk = unrecoverable ? Risk::High : Risk::Medium;
        return p;
    }
    json applyNow(const json &args) const override
    {
        auto from = m_ws.resolve(str(args, "from"), Workspace::Must::Exist);
        auto to = m_ws.resolve(str(args, "to"), Workspace::Must::MayBeNew);
        if (!from || !to)
            return textResult(from ? to.error() : from.error(), true);
        if (QFileInfo::exists(to.value()) && !QFile::remove(to.value()))
            return textResult(QStringLiteral("cannot replace %1").arg(str(args, "to")), true);
        if (!QDir().rename(from.value(), to.value()))
            return textResult(QStringLiteral("cannot move %1 to %2").arg(str(args, "from"), str(args, "to")),
                              true);
        return textResult(QStringLiteral("moved %1 to %2").arg(str(args, "from"), str(args, "to")));
    }
    // What leaves from (each file under it) and what appears or is overwritten at to.
    QStringList changedFiles(const json &args) const override
    {
        auto from = m_ws.resolve(str(args, "from"), Workspace::Must::Exist);
        auto to = m_ws.resolve(str(args, "to"), Workspace::Must::MayBeNew);
        if (!from || !to)
            return {};
        qint64 bytes = 0;
        bool any = false;
        QStringList files = filesUnder(from.value(), &bytes, &any);
        const qsizetype moved = files.size();
        for (qsizetype i = 0; i < moved; ++i)
            files.append(to.value() + files.at(i).mid(from.value().size()));
        // What it replaces at to, whatever moves there (an empty folder too).
        if (const QFileInfo target(to.value());
            (target.exists() || target.isSymLink()) && !files.contains(to.value()))
            files.append(to.value());
        return files;
    }
};

} // namespace

std::shared_ptr<GatedAction> PathTools::deletePath(std::shared_ptr<const Workspace> ws,
                                                   std::shared_ptr<SnapshotStore> snapshots)
{
    return std::make_shared<DeletePath>(std::move(ws), std::move(snapshots));
}

std::shared_ptr<GatedAction> PathTools::movePath(std::shared_ptr<const Workspace> ws,
                                                 std::shared_ptr<SnapshotStore> snapshots)
{
    return std::make_shared<MovePath>(std::move(ws), std::move(snapshots));
}

} // namespace Countersign
