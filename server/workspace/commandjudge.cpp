#include "commandjudge.h"

#include "filepath.h"
#include "git.h"
#include "pathrules.h"
#include "pythoncode.h"
#include "workspace.h"
#include "workspacenet.h"

#include <nlohmann/json.hpp>

#include <QDir>
#include <QDirIterator>
#include <QFile>
#include <QFileInfo>
#include <QRegularExpression>
#include <QScopeGuard>

#include <sys/stat.h>

namespace Countersign {

using Shell::Effect;
using json = nlohmann::json;

bool CommandJudge::isSecret(const QString &absolutePath) const
{
    return PathRules::isSecret(absolutePath, m_home);
}

bool CommandJudge::isProtected(const QString &absolutePath) const
{
    return PathRules::isProtected(absolutePath, m_home);
}

json CommandJudge::Judgement::toJson() const
{
    json asking = json::array();
    for (const QString &a : asks)
        asking.push_back(a.toStdString());
    json t = json::array();
    for (const QString &p : targets)
        t.push_back(p.toStdString());
    return {{"verdict", verdictName(verdict).toStdString()},
            {"why", why.toStdString()},
            {"asks", asking},
            {"targets", t},
            {"destructive", destructive}};
}

CommandJudge::CommandJudge(const Workspace *ws, Mode mode, QString home)
    : m_ws(ws), m_mode(mode), m_home(QDir::cleanPath(std::move(home)))
{
}

// Why reading path asks; empty when it runs.
QString CommandJudge::readRefusal(const QString &written) const
{
    // /proc and /dev/fd lead through links the judge cannot follow as the agent's shell would
    // (/proc/self is the console, not the shell): any ".." through them, and /proc itself, asks.
    if ((written.startsWith(QLatin1String("/proc/")) || written.startsWith(QLatin1String("/dev/"))) &&
        written.split(QLatin1Char('/')).contains(QStringLiteral("..")))
        return QStringLiteral("reads %1, through a link only the running shell can follow").arg(written);
    const QString path = PathRules::resolved(written);
    if (PathRules::isNetworkDevice(path))
        return QStringLiteral("opens a network connection (%1)").arg(path);
    if (isSecret(path))
        return QStringLiteral("reads a secret (%1)").arg(PathRules::shortPath(path, m_home));
    if (path.startsWith(QLatin1String("/proc/"))) {
        static const QStringList harmless = {QStringLiteral("/proc/cpuinfo"), QStringLiteral("/proc/meminfo"),
                                             QStringLiteral("/proc/version"), QStringLiteral("/proc/loadavg"),
                                             QStringLiteral("/proc/uptime"),  QStringLiteral("/proc/stat")};
        if (!harmless.contains(path))
            return QStringLiteral("reads %1 (another process's files, environment or folder)").arg(path);
    }
    const bool inRoots = m_ws && m_ws->confines(path);
    if (!inRoots && !m_home.isEmpty()) {
        const QString real = Workspace::canonicalOf(path).isEmpty() ? path : Workspace::canonicalOf(path);
        if (PathRules::under(real, m_home))
            return QStringLiteral("reads %1, in your home folder outside the workspace roots")
                .arg(PathRules::shortPath(path, m_home));
        if (PathRules::under(m_home, real) || real == QLatin1String("/"))
            return QStringLiteral("reads %1, which holds your home folder").arg(path);
    }
    return {};
}

namespace {

// Whether a build or a package manager makes the file at path again: under one of the folders they
// regenerate, or one of their outputs by its extension (objects, bytecode, logs).
// path is relative to its workspace root (the folders above it say nothing of what a build makes).
bool regenerable(const QString &path)
{
    static const QStringList outputs = {
        QStringLiteral("o"),   QStringLiteral("obj"), QStringLiteral("a"),   QStringLiteral("so"),
        QStringLiteral("d"),   QStringLiteral("pyc"), QStringLiteral("pyo"), QStringLiteral("class"),
        QStringLiteral("log"), QStringLiteral("tmp"), QStringLiteral("lo"),  QStringLiteral("gcda"),
        QStringLiteral("gcno")};
    if (outputs.contains(QFileInfo(path).suffix()))
        return true;
    const QStringList parts = path.split(QLatin1Char('/'), Qt::SkipEmptyParts);
    return std::any_of(parts.cbegin(), parts.cend() - 1, [](const QString &part) {
        return part != QLatin1String(".git") && WorkspaceNet::regenerated().contains(part);
    });
}

} // namespace

// Why replacing the content of the file at path asks: work that git cannot bring back is in it.
QString CommandJudge::replaceRefusal(const QString &path) const
{
    const QFileInfo info(path);
    if (!info.isFile())
        return {};
    const Git::LossReport report = Git::lossReport({info.canonicalFilePath()});
    if (!report.inWorkTree)
        return QStringLiteral("overwrites %1, which no git repository keeps")
            .arg(PathRules::shortPath(path, m_home));
    if (!report.uncommitted.isEmpty())
        return QStringLiteral("overwrites %1, which holds changes git has not committed")
            .arg(PathRules::shortPath(path, m_home));
    if (report.untracked.size() > report.ignored.size() || (!report.ignored.isEmpty() && isSecret(path)))
        return QStringLiteral("overwrites %1, which git does not keep")
            .arg(PathRules::shortPath(path, m_home));
    // An ignored file is free to lose only where a build makes it again: a Terraform state, a
    // database or local settings are work that git was told not to keep.
    const QString root = m_ws ? m_ws->rootOf(path) : QString();
    if (!report.ignored.isEmpty() &&
        !regenerable(root.isEmpty() ? QFileInfo(path).fileName() : QDir(root).relativeFilePath(path)))
        return QStringLiteral("overwrites %1, which git ignores: no copy of it is kept anywhere")
            .arg(PathRules::shortPath(path, m_home));
    return {};
}

QString CommandJudge::sameLineRefusal(const QList<Effect> &effects) const
{
    QStringList names;   // the definitions' file names
    QStringList folders; // where the project commands run
    QStringList scripts; // the scripts run
    QStringList patches; // files read for what the command writes (a patch)
    for (const Effect &e : effects) {
        if (e.kind == Effect::Kind::Reads && e.pathKnown && !e.definitions.isEmpty())
            patches.append(PathRules::resolved(e.path));
        if (e.kind != Effect::Kind::Runs)
            continue;
        if (e.code == Effect::Code::Project) {
            for (const QString &d : e.definitions)
                names.append(QFileInfo(d.startsWith(QLatin1Char('!')) ? d.mid(1) : d).fileName());
            folders.append(PathRules::resolved(e.cwd));
        } else if (e.code == Effect::Code::Script && e.pathKnown) {
            scripts.append(PathRules::resolved(e.path));
        }
    }
    for (const Effect &e : effects) {
        if (patches.isEmpty() || (e.kind != Effect::Kind::Writes && e.kind != Effect::Kind::Deletes))
            continue;
        if (!e.pathKnown || e.glob || patches.contains(PathRules::resolved(e.path)))
            return QStringLiteral("changes the patch it applies in the same line (%1)")
                .arg(PathRules::shortPath(patches.first(), m_home));
    }
    if (folders.isEmpty() && scripts.isEmpty())
        return {};
    for (const Effect &e : effects) {
        if (e.kind != Effect::Kind::Writes && e.kind != Effect::Kind::Deletes)
            continue;
        if (!e.pathKnown || e.glob)
            return QStringLiteral(
                "changes files it names only when it runs, and runs the project's code in the same line");
        const QString path = PathRules::resolved(e.path);
        if (path.contains(QLatin1String("/node_modules/")))
            return QStringLiteral("changes %1 and runs the project's tools in the same line")
                .arg(PathRules::shortPath(path, m_home));
        const bool folderOfIt =
            std::any_of(folders.cbegin(), folders.cend(),
                        [&path](const QString &f) { return PathRules::under(f, path); }) ||
            std::any_of(scripts.cbegin(), scripts.cend(),
                        [&path](const QString &s) { return PathRules::under(s, path); });
        if (names.contains(QFileInfo(path).fileName()) || folderOfIt)
            return QStringLiteral("changes %1 and runs what it defines in the same line")
                .arg(PathRules::shortPath(path, m_home));
    }
    return {};
}

// Why writing path asks; empty when it runs (inside the roots, not protected).
QString CommandJudge::writeRefusal(const QString &written) const
{
    if ((written.startsWith(QLatin1String("/proc/")) || written.startsWith(QLatin1String("/dev/"))) &&
        written.split(QLatin1Char('/')).contains(QStringLiteral("..")))
        return QStringLiteral("writes %1, through a link only the running shell can follow").arg(written);
    const QString path = PathRules::resolved(written);
    if (PathRules::isNetworkDevice(path))
        return QStringLiteral("opens a network connection (%1)").arg(path);
    if (PathRules::isDevice(path))
        return {};
    if (isProtected(path))
        return QStringLiteral(
                   "writes %1, which changes what runs later (a start-up file, an agent's settings, "
                   ".git or CI)")
            .arg(PathRules::shortPath(path, m_home));
    if ((!m_ws || !m_ws->confines(path)) && !newTemporaryFile(written, path))
        return QStringLiteral("writes %1, outside the workspace roots")
            .arg(PathRules::shortPath(path, m_home));
    return {};
}

QStringList CommandJudge::expand(const QString &pattern, bool *complete) const
{
    *complete = true;
    QStringList current = {QStringLiteral("/")};
    const QStringList parts = pattern.split(QLatin1Char('/'), Qt::SkipEmptyParts);
    static const QRegularExpression wild(QStringLiteral("[*?\\[{]"));
    for (const QString &part : parts) {
        QStringList next;
        for (const QString &base : current) {
            const QString prefix = base == QLatin1String("/") ? base : base + QLatin1Char('/');
            if (!wild.match(part).hasMatch()) {
                next.append(prefix + part);
                continue;
            }
            if (part.contains(QLatin1Char('{'))) { // brace expansion: judged by the folder it is in
                *complete = false;
                next.append(prefix + part);
                continue;
            }
            QDir::Filters filters = QDir::AllEntries | QDir::NoDotAndDotDot | QDir::System;
            if (part.startsWith(QLatin1Char('.')))
                filters |= QDir::Hidden;
            for (const QString &name : QDir(base).entryList({part}, filters)) {
                next.append(prefix + name);
                if (next.size() > kMaxGlobMatches) {
                    *complete = false;
                    return next;
                }
            }
        }
        current = next;
        if (current.isEmpty())
            return {};
    }
    return current;
}

QString CommandJudge::scriptRefusal(const QString &path) const
{
    if (path.isEmpty())
        return QStringLiteral("runs a file it names only when the line runs");
    if (!m_ws || !m_ws->confines(path))
        return QStringLiteral("runs %1, outside the workspace roots").arg(PathRules::shortPath(path, m_home));
    if (!QFileInfo(path).isFile())
        return QStringLiteral("runs %1, which is not a file yet").arg(PathRules::shortPath(path, m_home));
    const Git::LossReport report = Git::lossReport({Workspace::canonicalOf(path)});
    if (!report.inWorkTree)
        return QStringLiteral("runs %1, which no git repository keeps (the agent may have written it)")
            .arg(PathRules::shortPath(path, m_home));
    if (!report.untracked.isEmpty() || !report.uncommitted.isEmpty())
        return QStringLiteral("runs %1, changed since the last commit")
            .arg(PathRules::shortPath(path, m_home));
    return {};
}

// A path a project command or built code is given outside the roots (pytest --basetemp=~/x, cargo
// clean's target, java -cp out Main /etc/x): what it does there is not the project's.
QStringList CommandJudge::namedOutside(const Effect &e) const
{
    QStringList why;
    for (const QString &a : e.argv.mid(1)) {
        const QString value = a.contains(QLatin1Char('=')) ? a.section(QLatin1Char('='), 1) : a;
        if (!(value.startsWith(QLatin1Char('/')) || value.startsWith(QLatin1Char('~')) ||
              value.startsWith(QLatin1String(".."))))
            continue;
        const QString p =
            PathRules::resolved(value.startsWith(QLatin1Char('~')) ? m_home + value.mid(1)
                                : FilePath::isAbsolute(value)      ? value
                                                                   : e.cwd + QLatin1Char('/') + value);
        if (!PathRules::isDevice(p) && (!m_ws || !m_ws->confines(p)))
            why.append(QStringLiteral("%1 and names %2, outside the workspace roots")
                           .arg(e.what, PathRules::shortPath(p, m_home)));
    }
    return why;
}

CommandJudge::Judgement CommandJudge::judge(const QList<Effect> &effects) const
{
    // Paths two effects of the line write (cp -l FILE /tmp/x && echo > /tmp/x): what the second
    // writes may be another name of a file of the roots, so neither is new scratch work.
    QHash<QString, int> written;
    for (const Effect &e : effects) {
        if ((e.kind == Effect::Kind::Writes || e.kind == Effect::Kind::Deletes) && e.pathKnown)
            written[QDir::cleanPath(e.path)] += 1;
    }
    m_writtenTwice.clear();
    for (auto it = written.cbegin(); it != written.cend(); ++it) {
        if (it.value() > 1)
            m_writtenTwice.insert(it.key());
    }
    m_line = &effects;
    Judgement j;
    QStringList allowedBecause;
    QStringList gitFolders;
    for (const Effect &e : effects) {
        judgeEffect(e, j, allowedBecause);
        // git, and the code that runs git behind it (go build stamps git status, setuptools-scm,
        // pre-commit): judged as in the repository git would take the folder for.
        const bool git = !e.argv.isEmpty() && QFileInfo(e.argv.first()).fileName() == QLatin1String("git");
        if ((git || e.kind == Effect::Kind::Runs) && !e.cwd.isEmpty() && !gitFolders.contains(e.cwd))
            gitFolders.append(e.cwd);
    }
    // A word that is no program here runs nothing, unless the line changes where programs are found.
    const bool environment = std::any_of(effects.cbegin(), effects.cend(),
                                         [](const Effect &e) { return e.kind == Effect::Kind::Environment; });
    if (environment && std::any_of(effects.cbegin(), effects.cend(),
                                   [](const Effect &e) { return e.note == Effect::Note::NoProgram; }))
        j.asks.append(QStringLiteral(
            "runs a word that is no program here, in a line that changes where programs are found"));
    for (const QString &folder : gitFolders) {
        if (const QString why = repositoryRefusal(folder); !why.isEmpty() && !j.asks.contains(why))
            j.asks.append(why);
    }
    if (const QString why = sameLineRefusal(effects); !why.isEmpty())
        j.asks.append(why);
    if (!j.asks.isEmpty()) {
        j.verdict = Verdict::Ask;
        j.why = j.asks.first();
        if (j.asks.size() > 1)
            j.why += QStringLiteral(" (and %1 more reason%2 to ask)")
                         .arg(j.asks.size() - 1)
                         .arg(j.asks.size() > 2 ? QStringLiteral("s") : QString());
        return j;
    }
    j.verdict = Verdict::Allow;
    j.why =
        allowedBecause.isEmpty() ? QStringLiteral("reads only") : allowedBecause.join(QStringLiteral("; "));
    return j;
}

CommandJudge::Judgement CommandJudge::line(const QString &command, const QString &cwd) const
{
    return judge(Shell::CommandEffects::ofLine(command, {QDir::cleanPath(cwd), m_home}));
}

CommandJudge::Judgement CommandJudge::argv(const QStringList &words, const QString &cwd) const
{
    return judge(Shell::CommandEffects::ofArgv(words, {QDir::cleanPath(cwd), m_home}));
}

CommandJudge::Judgement CommandJudge::read(const QString &absolutePath) const
{
    Effect e;
    e.kind = Effect::Kind::Reads;
    e.path = QDir::cleanPath(absolutePath);
    e.pathKnown = FilePath::isAbsolute(absolutePath);
    e.what = QStringLiteral("reads %1").arg(PathRules::shortPath(e.path, m_home));
    return judge({e});
}

CommandJudge::Judgement CommandJudge::write(const QString &absolutePath) const
{
    Effect e;
    e.kind = Effect::Kind::Writes;
    e.path = QDir::cleanPath(absolutePath);
    e.pathKnown = FilePath::isAbsolute(absolutePath);
    e.what = QStringLiteral("writes %1").arg(PathRules::shortPath(e.path, m_home));
    return judge({e});
}

} // namespace Countersign
