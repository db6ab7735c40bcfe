#include "commandjudge.h"

#include "filepath.h"
#include "git.h"
#include "pathrules.h"
#include "pythoncode.h"
#include "workspace.h"
#include "workspacenet.h"

#include <nlohmann/json.hpp>

#include <QCryptographicHash>
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

// Why a folder put before the system's programs asks: the agent writes inside the roots and in
// the temporary folder with no card. Any other folder is written only with a card (what a test
// run writes outside the roots is the tripwire's, docs/threat-model.md).
QString CommandJudge::programFolderRefusal(const QString &folder) const
{
    const QString path = PathRules::resolved(folder);
    if (m_ws && m_ws->confines(path))
        return QStringLiteral("a folder inside the workspace roots, which the agent writes without a card");
    if (!m_home.isEmpty() && PathRules::under(path, m_home))
        return {};
    for (const QString &temp :
         {QDir::tempPath(), QStringLiteral("/tmp"), QStringLiteral("/var/tmp"), QStringLiteral("/dev/shm")}) {
        if (PathRules::under(path, QDir::cleanPath(temp)))
            return QStringLiteral("a temporary folder anyone may write");
    }
    return {};
}

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

namespace {

const QHash<QString, QString> *&scratchFiles()
{
    thread_local const QHash<QString, QString> *files = nullptr;
    return files;
}

} // namespace

CommandJudge::Scratch::Scratch(QHash<QString, QString> files)
{
    scratchFiles() = new QHash<QString, QString>(std::move(files));
}

CommandJudge::Scratch::~Scratch()
{
    delete scratchFiles();
    scratchFiles() = nullptr;
}

bool CommandJudge::sessionScratch(const QString &path) const
{
    const QHash<QString, QString> *files = scratchFiles();
    if (!files || files->isEmpty())
        return false;
    const QString resolved = PathRules::resolved(path);
    const auto it = files->constFind(resolved);
    if (it == files->cend() || it->isEmpty() || isProtected(resolved) || !m_ws || !m_ws->confines(resolved))
        return false;
    const QFileInfo info(resolved);
    if (!info.isFile() || info.isSymLink() || info.size() > (16 << 20))
        return false;
    QFile file(resolved);
    if (!file.open(QIODevice::ReadOnly))
        return false;
    if (QString::fromLatin1(QCryptographicHash::hash(file.readAll(), QCryptographicHash::Sha256).toHex()) !=
        *it)
        return false;
    const Git::LossReport report = Git::lossReport({resolved});
    return report.uncommitted.isEmpty(); // untracked, or as committed: no one's work is in it
}

namespace {

bool &netUnder()
{
    thread_local bool under = false;
    return under;
}

} // namespace

CommandJudge::NetScope::NetScope()
{
    netUnder() = true;
}

CommandJudge::NetScope::~NetScope()
{
    netUnder() = false;
}

bool CommandJudge::netKept(const QString &resolved) const
{
    if (!netUnder() || !m_ws || !m_ws->confines(resolved) || isProtected(resolved))
        return false;
    // Where the net copies: not under a folder it skips (build, dist, .venv, ... below the root),
    // a regular file of one name only (a hard link's other name would keep what the call wrote).
    const QString root = m_ws->rootOf(resolved);
    const QStringList below = QDir(root).relativeFilePath(resolved).split(QLatin1Char('/'));
    if (std::any_of(below.cbegin(), below.cend() - 1,
                    [](const QString &part) { return WorkspaceNet::regenerated().contains(part); }))
        return false;
    struct stat st;
    if (::lstat(QFile::encodeName(resolved).constData(), &st) != 0 || !S_ISREG(st.st_mode) ||
        st.st_nlink != 1)
        return false;
    return st.st_size <= (16 << 20);
}

bool CommandJudge::committedOnly(const Effect &e) const
{
    // rm, unlink, rmdir of files git holds as committed, unchanged: git checkout brings them back.
    static const QStringList removers = {QStringLiteral("rm"), QStringLiteral("unlink"),
                                         QStringLiteral("rmdir")};
    if (e.argv.isEmpty() || !removers.contains(QFileInfo(e.argv.first()).fileName()) ||
        m_mode != Mode::Standard)
        return false;
    // A link is what rm removes, whatever it leads to: not read through.
    if (QFileInfo(QDir::cleanPath(e.path)).isSymLink())
        return false;
    const QString resolved = PathRules::resolved(e.path);
    if (!m_ws || !m_ws->confines(resolved) || isProtected(resolved) || m_ws->roots().contains(resolved))
        return false;
    QStringList files;
    const QFileInfo info(resolved);
    if (info.isSymLink())
        return false;
    if (info.isFile()) {
        files.append(resolved);
    } else if (info.isDir()) {
        QDirIterator it(resolved, QDir::AllEntries | QDir::NoDotAndDotDot | QDir::Hidden | QDir::System,
                        QDirIterator::Subdirectories);
        while (it.hasNext()) {
            const QFileInfo entry(it.next());
            if (entry.isSymLink() || (!entry.isDir() && !entry.isFile()))
                return false;
            if (entry.isFile())
                files.append(entry.filePath());
            if (files.size() > 20)
                return false; // a bound: more is a card whatever git keeps
        }
    } else {
        return false;
    }
    if (files.isEmpty())
        return false;
    const Git::LossReport report = Git::lossReport(files);
    return report.inWorkTree && report.untracked.isEmpty() && report.uncommitted.isEmpty();
}

// A new file (or folder) in the system's temporary folder that replaces nothing and is reached
// through no link: scratch work that loses nothing (what is already there still asks).
bool CommandJudge::newTemporaryFile(const QString &written, const QString &resolved) const
{
    const QString cleaned = QDir::cleanPath(written);
    if (cleaned != resolved || QFileInfo::exists(resolved) || QFileInfo(resolved).isSymLink() ||
        m_writtenTwice.contains(cleaned))
        return false;
    if (!m_home.isEmpty() && PathRules::under(resolved, m_home))
        return false;
    for (const QString &temp : {QDir::tempPath(), QStringLiteral("/tmp"), QStringLiteral("/var/tmp")}) {
        const QString root = QDir::cleanPath(temp);
        if (resolved != root && PathRules::under(resolved, root))
            return true;
    }
    return false;
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

void CommandJudge::judgeEffect(const Effect &e, Judgement &j, QStringList &allowedBecause) const
{
    const auto ask = [&j](const QString &why) {
        if (!j.asks.contains(why))
            j.asks.append(why);
    };
    const auto target = [&j](const QString &path) {
        if (!path.isEmpty() && !j.targets.contains(path))
            j.targets.append(path);
    };
    switch (e.kind) {
    case Effect::Kind::Reads: {
        if (e.note == Effect::Note::Names)
            return; // a listing: names, not what the files hold, wherever it is
        if (e.path.isEmpty() && e.pathKnown)
            return; // prints; reads nothing named
        if (!e.pathKnown) {
            ask(QStringLiteral("%1: a path not known before the line runs").arg(e.what));
            return;
        }
        QStringList paths = {e.path};
        if (e.glob) {
            bool complete = true;
            paths = expand(e.path, &complete);
            if (!complete && (!m_ws || !m_ws->confines(QFileInfo(e.path).absolutePath())))
                ask(QStringLiteral("%1: a pattern outside the workspace roots").arg(e.what));
        }
        for (const QString &p : paths) {
            if (const QString why = readRefusal(p); !why.isEmpty())
                ask(why);
        }
        return;
    }
    case Effect::Kind::Writes: {
        if (m_mode == Mode::Strict)
            ask(QStringLiteral("%1 (strict mode asks for every change)").arg(e.what));
        if (!e.pathKnown || e.path.isEmpty()) {
            ask(QStringLiteral("%1: where it writes is not known before the line runs").arg(e.what));
            return;
        }
        QStringList paths = {e.path};
        if (e.glob) { // what it matches now, and the folder the pattern stays in
            bool complete = true;
            paths = expand(e.path, &complete);
            static const QRegularExpression wild(QStringLiteral("[*?\\[{]"));
            QString folder = e.path.left(e.path.indexOf(wild));
            paths.append(folder.left(folder.lastIndexOf(QLatin1Char('/'))));
            if (!complete)
                ask(QStringLiteral("%1: a pattern that matches more than Countersign reads").arg(e.what));
        }
        for (const QString &path : paths) {
            if (const QString why = writeRefusal(path); !why.isEmpty()) {
                ask(why);
                target(path);
            } else if (e.replaces && m_mode == Mode::Standard) {
                const QString resolved = PathRules::resolved(path);
                if (const QString lost = replaceRefusal(resolved); !lost.isEmpty()) {
                    // Under the net, what the file held is kept before the call runs (the Edit
                    // tool's undo, for the shell): work git does not keep is not lost. An ignored
                    // file that is work (a state, a database) still asks.
                    // (ln over a file leaves a link, which the net names with no undo.)
                    const bool linking =
                        !e.argv.isEmpty() && QFileInfo(e.argv.first()).fileName() == QLatin1String("ln");
                    if (netKept(resolved) && !linking && !lost.contains(QLatin1String("git ignores"))) {
                        allowedBecause.append(QStringLiteral("overwrites %1, and the net keeps what it held")
                                                  .arg(PathRules::shortPath(resolved, m_home)));
                        continue;
                    }
                    j.destructive = true;
                    ask(lost);
                    target(path);
                }
            }
        }
        if (!allowedBecause.contains(QStringLiteral("writes inside the workspace roots")))
            allowedBecause.append(QStringLiteral("writes inside the workspace roots"));
        return;
    }
    case Effect::Kind::Deletes:
        if (e.pathKnown && !e.glob && committedOnly(e)) {
            allowedBecause.append(QStringLiteral("%1, which git keeps as committed").arg(e.what));
            return;
        }
        if (e.pathKnown && !e.glob && sessionScratch(e.path)) {
            allowedBecause.append(
                QStringLiteral("%1, a file this agent session made and nobody changed since")
                    .arg(e.what.isEmpty() ? QStringLiteral("deletes") : e.what));
            return;
        }
        j.destructive = true;
        ask(e.what.isEmpty() ? QStringLiteral("deletes files") : e.what);
        target(e.path);
        return;
    case Effect::Kind::History:
        j.destructive = true;
        ask(e.what);
        target(e.path);
        return;
    case Effect::Kind::Environment:
        // A folder put before the system's programs (PATH, JAVA_HOME): one the agent may have
        // filled with no card shadows them; the system's own and the home folder's do not.
        if (!e.path.isEmpty()) {
            const bool modules = e.definitions.contains(QStringLiteral("PYTHONPATH")) ||
                                 e.definitions.contains(QStringLiteral("NODE_PATH"));
            const bool project = modules && m_ws && m_ws->confines(PathRules::resolved(e.path));
            if (const QString why = project ? QString() : programFolderRefusal(e.path); !why.isEmpty())
                ask(QStringLiteral("%1: %2").arg(e.what, why));
            return;
        }
        ask(e.what);
        return;
    case Effect::Kind::Network:
    case Effect::Kind::Installs:
    case Effect::Kind::Secret:
    case Effect::Kind::Privilege:
    case Effect::Kind::Unknown:
        ask(e.what);
        return;
    case Effect::Kind::Runs:
        if (m_mode == Mode::Strict) {
            ask(QStringLiteral("%1 (strict mode asks for everything that is not a read)").arg(e.what));
            return;
        }
        switch (e.code) {
        case Effect::Code::Project: {
            // A path it is given outside the roots (pytest --basetemp=~/x, cargo clean's target):
            // what it does there is not the project's.
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
                    ask(QStringLiteral("%1 and names %2, outside the workspace roots")
                            .arg(e.what, PathRules::shortPath(p, m_home)));
            }
            QString unchanged;
            if (const QString why = projectRefusal(e, &unchanged); !why.isEmpty())
                ask(why);
            else
                allowedBecause.append(QStringLiteral("%1; %2").arg(e.what, unchanged));
            return;
        }
        case Effect::Code::Script:
            if (const QString why = scriptRefusal(e.pathKnown ? e.path : QString()); why.isEmpty())
                allowedBecause.append(QStringLiteral("%1, unchanged since the last commit").arg(e.what));
            else if (!readScript(e, j, allowedBecause))
                ask(why);
            return;
        case Effect::Code::Read:
            allowedBecause.append(e.what);
            return;
        case Effect::Code::Inline:
        case Effect::Code::Stdin:
        case Effect::Code::None:
            ask(e.what);
            return;
        }
        return;
    }
}

QString CommandJudge::repositoryRefusal(const QString &folder) const
{
    const QString real = Workspace::canonicalOf(folder);
    // Outside the roots a repository's configuration is not the agent's to write without a card.
    if (real.isEmpty() || !m_ws || !m_ws->confines(real))
        return {};
    QStringList ceilings;
    for (const QString &root : m_ws->roots())
        ceilings.append(QFileInfo(root).absolutePath());
    const Git::RepositoryCheck repo = Git::inspectRepository(real, ceilings);
    if (!repo.found)
        return {};
    if (!repo.error.isEmpty())
        return QStringLiteral("runs git in %1, whose repository Countersign cannot read (%2)")
            .arg(PathRules::shortPath(folder, m_home), repo.error);
    // The git folder and the common one (folders' first two): where git reads its configuration.
    for (const QString &gitDir : repo.folders.mid(0, 2)) {
        if (!isProtected(QDir(gitDir).filePath(QStringLiteral("config"))))
            return QStringLiteral("runs git in %1, which git takes for a repository kept in %2: nothing "
                                  "protects its configuration, which can make git run a program")
                .arg(PathRules::shortPath(folder, m_home),
                     PathRules::shortPath(QDir::cleanPath(gitDir), m_home));
    }
    // A file the configuration includes is read as part of it, and nothing protects it.
    for (const QString &key : repo.riskyKeys) {
        if (key.startsWith(QLatin1String("include."), Qt::CaseInsensitive) ||
            key.startsWith(QLatin1String("includeif."), Qt::CaseInsensitive))
            return QStringLiteral(
                       "runs git in %1, whose configuration includes another file (%2), which nothing "
                       "protects")
                .arg(PathRules::shortPath(folder, m_home), key);
    }
    return {};
}

bool CommandJudge::readScript(const Effect &e, Judgement &j, QStringList &allowedBecause) const
{ // A Python or shell script the agent wrote or changed: read for what it does, like python -c.
    const QString program = QFileInfo(e.argv.value(0)).fileName();
    const bool python =
        program.startsWith(QLatin1String("python")) ||
        (e.path.endsWith(QLatin1String(".py")) && !program.startsWith(QLatin1String("pypy")) &&
         (program.isEmpty() || program == QFileInfo(e.path).fileName()));
    // A shell script the agent wrote is read as the lines it holds.
    const bool shell = program == QLatin1String("sh") || program == QLatin1String("bash") ||
                       program == QLatin1String("dash") ||
                       (e.path.endsWith(QLatin1String(".sh")) && program == QFileInfo(e.path).fileName());
    if (!e.pathKnown || !(python || shell) || m_scriptDepth >= 3)
        return false;
    if (const QString why = readRefusal(e.path); !why.isEmpty()) {
        j.asks.append(why); // a key run as a script prints itself in the error
        return true;
    }
    QFile file(e.path);
    if (!QFileInfo(e.path).isFile() || QFileInfo(e.path).size() > Shell::PythonCode::kMaxCodeChars ||
        !file.open(QIODevice::ReadOnly))
        return false;
    const QString code = QString::fromUtf8(file.readAll());
    // Run directly, the kernel runs what the first line names: only a plain shell or Python is read.
    if (program == QFileInfo(e.path).fileName() && code.startsWith(QLatin1String("#!"))) {
        static const QRegularExpression plain(
            QStringLiteral("^#!\\s*(/usr/bin/env\\s+)?(/bin/|/usr/bin/)?(sh|bash|dash|python3?)\\s*$"));
        if (!plain.match(code.section(QLatin1Char('\n'), 0, 0)).hasMatch())
            return false;
    }
    ++m_scriptDepth;
    const QList<Effect> effects = shell
                                      ? Shell::CommandEffects::ofLine(code, {QDir::cleanPath(e.cwd), m_home})
                                      : Shell::CommandEffects::ofPython(code, QFileInfo(e.path).fileName(),
                                                                        {QDir::cleanPath(e.cwd), m_home},
                                                                        QFileInfo(e.path).absolutePath());
    for (const Effect &inner : effects) {
        // A script that changes itself as it runs (bash reads it as it goes) is not what was read.
        if ((inner.kind == Effect::Kind::Writes || inner.kind == Effect::Kind::Deletes) &&
            (!inner.pathKnown || PathRules::resolved(inner.path) == PathRules::resolved(e.path)))
            j.asks.append(QStringLiteral("%1, which may change itself as it runs").arg(e.what));
        judgeEffect(inner, j, allowedBecause);
    }
    --m_scriptDepth;
    allowedBecause.append(QStringLiteral("%1, which Countersign read").arg(e.what));
    return true;
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
