// Whether the project's own command (a build, its tests, an install from its pins) runs what is
// committed: the files that define what it runs, found from its folder up to its root, with what
// a make file includes, as git keeps them. Part of CommandJudge (commandjudge.h).
#include "commandjudge.h"

#include "filepath.h"
#include "git.h"
#include "pathrules.h"
#include "workspace.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QRegularExpression>
#include <QScopeGuard>

namespace Countersign {

using Shell::Effect;

namespace {

// The files the makefiles among definitions include by a literal name (include, -include,
// sinclude), found from cwd as make finds them, and what those include in turn: what runs is
// defined by them too. A name that expands ($(DEPS)) is make's own generated list and not followed.
QStringList makeIncludes(const QStringList &definitions, const QString &cwd, bool *complete)
{
    static const QRegularExpression include(QStringLiteral("^[ \\t]*-?s?include[ \\t]+(.+)$"),
                                            QRegularExpression::MultilineOption);
    QStringList pending = definitions, out;
    *complete = true;
    for (int read = 0; !pending.isEmpty(); ++read) {
        if (read >= 64) {
            *complete = false;
            break;
        }
        QFile file(pending.takeFirst());
        if (!file.open(QIODevice::ReadOnly))
            continue;
        const QString text =
            QString::fromUtf8(file.read(256 * 1024)).replace(QLatin1String("\\\n"), QLatin1String(" "));
        for (auto it = include.globalMatch(text); it.hasNext();) {
            for (const QString &name : it.next().captured(1).split(QRegularExpression(QStringLiteral("\\s+")),
                                                                   Qt::SkipEmptyParts)) {
                if (name.contains(QLatin1Char('$')) || name.startsWith(QLatin1Char('#')))
                    break;
                const QString path =
                    QDir::cleanPath(FilePath::isAbsolute(name) ? name : cwd + QLatin1Char('/') + name);
                if (QFileInfo(path).isFile() && !out.contains(path) && !definitions.contains(path)) {
                    out.append(path);
                    pending.append(path);
                }
            }
        }
    }
    return out;
}

} // namespace

QString CommandJudge::projectRefusal(const Effect &e, QString *unchanged) const
{
    if (e.cwd.isEmpty())
        return QStringLiteral("%1 in a folder not known before the line runs").arg(e.what);
    const QString cwd = Workspace::canonicalOf(e.cwd);
    if (cwd.isEmpty() || !m_ws || !m_ws->confines(cwd))
        return QStringLiteral("%1 outside the workspace roots").arg(e.what);
    // The files that define what runs, from the folder up to its root.
    QStringList found;
    const QString root = m_ws->rootOf(
        cwd); // "!name": one of the files that pin what it installs (a lock file, the requirements named);
    // with none of them here it asks.
    bool required = false, requiredFound = false;
    for (QString name : e.definitions) {
        const bool pins = name.startsWith(QLatin1Char('!'));
        if (pins) {
            name.remove(0, 1);
            required = true;
        }
        const qsizetype before = found.size();
        const auto done =
            qScopeGuard([&] { requiredFound = requiredFound || (pins && found.size() > before); });
        if (name.contains(QLatin1Char('/'))) { // named by an option (make -f sub/x.mk): where it says
            const QString path = FilePath::isAbsolute(name) ? name : cwd + QLatin1Char('/') + name;
            if (QFileInfo(path).isFile())
                found.append(QDir::cleanPath(path));
            continue;
        }
        for (QString dir = cwd;;) {
            const QString candidate = dir + QLatin1Char('/') + name;
            if (QFileInfo(candidate).isFile()) {
                found.append(candidate);
                break;
            }
            if (dir == root || dir.size() <= root.size())
                break;
            dir = QFileInfo(dir).absolutePath();
        }
    }
    if (required && !requiredFound)
        return QStringLiteral("%1, and none of the files that would pin what it installs is here")
            .arg(e.what);
    if (found.isEmpty()) {
        *unchanged = QStringLiteral("no file defines it here");
        return {};
    }
    // make reads what its makefiles include (the file -f names, whatever it is called, too).
    const QString program = QFileInfo(e.argv.value(0)).fileName();
    if (program == QLatin1String("make") || program == QLatin1String("gmake")) {
        bool complete = true;
        for (const QString &included : makeIncludes(found, cwd, &complete)) {
            if (!found.contains(included) && m_ws->confines(included))
                found.append(included);
        }
        if (!complete)
            return QStringLiteral("%1, whose makefiles include more files than Countersign reads")
                .arg(e.what);
    }
    const Git::LossReport report = Git::lossReport(found);
    if (!report.inWorkTree)
        return QStringLiteral("%1, and no git repository keeps %2: the agent may have written what it runs")
            .arg(e.what, QFileInfo(found.first()).fileName());
    QStringList changed;
    for (const QString &f : report.untracked + report.uncommitted)
        changed.append(QDir(cwd).relativeFilePath(f));
    if (!changed.isEmpty())
        return QStringLiteral("%1 after %2 changed since the last commit")
            .arg(e.what, changed.join(QStringLiteral(", ")));
    QStringList names;
    for (const QString &f : found)
        names.append(QDir(cwd).relativeFilePath(f));
    *unchanged = QStringLiteral("%1 unchanged since the last commit").arg(names.join(QStringLiteral(", ")));
    return {};
}

} // namespace Countersign
