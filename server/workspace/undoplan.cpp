#include "undoplan.h"

#include "blastradius.h"
#include "workspace.h"

#include <QFile>
#include <QLocale>

#include <cerrno>
#include <sys/stat.h>
#include <unistd.h>

namespace Countersign {

namespace {

UndoPlan refused(QString why)
{
    UndoPlan plan;
    plan.why = std::move(why);
    return plan;
}

} // namespace

UndoPlan UndoPlan::ofFiles(const QStringList &files, const Workspace *ws)
{
    if (files.size() > kMaxFiles)
        return refused(QStringLiteral("it deletes or overwrites more than %1 files").arg(kMaxFiles));
    UndoPlan undo;
    for (const QString &file : files) {
        if (undo.files.contains(file))
            continue;
        // Kept only as the snapshot store reads it: through folders that are not links.
        QByteArray leaf;
        if (const int dir = SnapshotStore::openFolderOf(file, &leaf); dir >= 0)
            ::close(dir);
        else if (errno != ENOENT)
            return refused(QStringLiteral("%1 is reached through a link").arg(file));
        struct stat st;
        if (::lstat(QFile::encodeName(file).constData(), &st) != 0) {
            if (errno != ENOENT)
                return refused(QStringLiteral("%1 cannot be read").arg(file));
            if (!ws || !ws->confines(file))
                return refused(QStringLiteral("%1 is outside the workspace roots").arg(file));
            undo.files.append(file); // a file the change creates: its absence is what is kept
            continue;
        }
        if (!S_ISREG(st.st_mode))
            return refused(QStringLiteral("%1 is not a regular file (a link, a device)").arg(file));
        if (!ws || !ws->confines(file))
            return refused(QStringLiteral("%1 is outside the workspace roots").arg(file));
        if (st.st_nlink > 1)
            return refused(QStringLiteral("%1 has other hard links").arg(file));
        // What cannot be read cannot be kept (a file of mode 000, or another user's).
        if (::access(QFile::encodeName(file).constData(), R_OK) != 0)
            return refused(QStringLiteral("%1 cannot be read, so no copy of it can be kept").arg(file));
        if (st.st_size > SnapshotStore::kMaxFileBytes)
            return refused(
                QStringLiteral("%1 is larger than %2 MiB").arg(file).arg(SnapshotStore::kMaxFileBytes >> 20));
        undo.bytes += st.st_size;
        if (undo.bytes > kMaxBytes)
            return refused(QStringLiteral("it deletes or overwrites more than %1 MiB").arg(kMaxBytes >> 20));
        undo.files.append(file);
    }
    return undo;
}

UndoPlan UndoPlan::ofRadius(const BlastRadius &radius, const Workspace *ws)
{
    if (!radius.deletesAll)
        return refused(QStringLiteral("what it deletes is not all known before it runs"));
    return ofFiles(radius.deletes, ws);
}

QString UndoPlan::sentence() const
{
    if (!why.isEmpty())
        return QStringLiteral("It cannot be undone: no copy is kept, as %1.").arg(why);
    if (files.isEmpty())
        return {};
    return QStringLiteral(
               "Countersign keeps a copy of %1 (%2) before it runs: Revert in the audit view, or "
               "countersign undo, brings %3 back as long as the undo store holds the copy (undoMegabytes "
               "and undoDays bound it; the oldest go first).")
        .arg(files.size() == 1 ? QStringLiteral("the file it deletes or overwrites")
                               : QStringLiteral("the %1 files it deletes or overwrites").arg(files.size()),
             QLocale::c().formattedDataSize(bytes, 1, QLocale::DataSizeTraditionalFormat),
             files.size() == 1 ? QStringLiteral("it") : QStringLiteral("them"));
}

nlohmann::json UndoPlan::toJson() const
{
    if (!why.isEmpty())
        return {{"refused", why.toStdString()}};
    return {{"files", files.size()}, {"bytes", bytes}};
}

QList<SnapshotStore::Kept> UndoPlan::keep(SnapshotStore &snapshots, const QStringList &files, QString *error)
{
    QList<SnapshotStore::Kept> kept;
    for (const QString &file : files) {
        auto one = snapshots.keep(file);
        if (!one) {
            if (error)
                *error = one.error();
            return {};
        }
        kept.append(one.value());
    }
    return kept;
}

} // namespace Countersign
