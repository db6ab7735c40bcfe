// What CommandJudge lets run with no card although it looks like it could lose or run something
// (docs/threat-model.md, "What standard mode trusts"): a folder put on PATH, a new scratch file in
// the temporary folder, the agent session's own file deleted, an overwrite the net keeps, an rm of
// what git keeps, a script the agent wrote read for what it does, git in a folder git takes for a
// repository of its own. The rest of the judge is commandjudge.cpp.
#include "commandjudge.h"

#include "git.h"
#include "pathrules.h"
#include "pythoncode.h"
#include "snapshotstore.h"
#include "workspace.h"
#include "workspacenet.h"

#include <QDir>
#include <QDirIterator>
#include <QFile>
#include <QFileInfo>

#include <QRegularExpression>
#include <optional>

#include <algorithm>

#include <sys/stat.h>

namespace Countersign {

using Shell::Effect;

QStringList CommandJudge::temporaryFolders(bool memory)
{
    QStringList folders = {QDir::cleanPath(QDir::tempPath()), QStringLiteral("/tmp"),
                           QStringLiteral("/var/tmp")};
    if (memory)
        folders.append(QStringLiteral("/dev/shm"));
    folders.removeDuplicates();
    return folders;
}

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
    for (const QString &temp : temporaryFolders(true)) {
        if (PathRules::under(path, temp))
            return QStringLiteral("a temporary folder anyone may write");
    }
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
    const QString digest = SnapshotStore::digestOf(resolved, SnapshotStore::kMaxFileBytes);
    if (digest.isEmpty() || digest != *it)
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

std::optional<QStringList> CommandJudge::removedFiles(const Effect &e, int bound) const
{
    static const QStringList removers = {QStringLiteral("rm"), QStringLiteral("unlink"),
                                         QStringLiteral("rmdir")};
    if (e.argv.isEmpty() || !removers.contains(QFileInfo(e.argv.first()).fileName()) ||
        m_mode != Mode::Standard)
        return std::nullopt;
    // A link is what rm removes, whatever it leads to: not read through.
    if (QFileInfo(QDir::cleanPath(e.path)).isSymLink())
        return std::nullopt;
    const QString resolved = PathRules::resolved(e.path);
    if (!m_ws || !m_ws->confines(resolved) || isProtected(resolved) || m_ws->roots().contains(resolved))
        return std::nullopt;
    QStringList files;
    const QFileInfo info(resolved);
    if (info.isSymLink())
        return std::nullopt;
    if (info.isFile()) {
        files.append(resolved);
    } else if (info.isDir()) {
        QDirIterator it(resolved, QDir::AllEntries | QDir::NoDotAndDotDot | QDir::Hidden | QDir::System,
                        QDirIterator::Subdirectories);
        while (it.hasNext()) {
            const QFileInfo entry(it.next());
            if (entry.isSymLink() || (!entry.isDir() && !entry.isFile()))
                return std::nullopt;
            if (entry.isFile())
                files.append(entry.filePath());
            if (files.size() > bound)
                return std::nullopt; // a bound: more is a card whatever git keeps
        }
    } else {
        return std::nullopt;
    }
    if (files.isEmpty())
        return std::nullopt;
    return files;
}

bool CommandJudge::changedInLine(const Effect &deletion) const
{
    // mv notes.txt out/ && rm -rf out: the folder judged is not the folder deleted.
    const QString deleted = PathRules::resolved(deletion.path);
    for (const Effect &e : m_line ? *m_line : QList<Effect>()) {
        if (&e == &deletion || (e.kind == Effect::Kind::Deletes && e.path == deletion.path))
            continue;
        if (e.kind == Effect::Kind::Runs && e.code != Effect::Code::Read && e.code != Effect::Code::None)
            return true;
        if (e.kind != Effect::Kind::Writes && e.kind != Effect::Kind::Deletes)
            continue;
        if (!e.pathKnown || e.glob || e.path.isEmpty())
            return true;
        const QString p = PathRules::resolved(e.path);
        if (p == deleted || PathRules::under(p, deleted) || PathRules::under(deleted, p))
            return true;
    }
    return false;
}

bool CommandJudge::committedOnly(const Effect &e) const
{
    // rm, unlink, rmdir of files git holds as committed, unchanged: git checkout brings them back.
    const auto files = removedFiles(e, 20);
    if (!files || changedInLine(e))
        return false;
    const Git::LossReport report = Git::lossReport(*files);
    return report.inWorkTree && report.untracked.isEmpty() && report.uncommitted.isEmpty();
}

int CommandJudge::compilerOutputsOnly(const Effect &e) const
{
    // Objects and bytecode a compiler writes again from the sources (not libraries, which may be
    // prebuilt, nor logs, which may be the only record), each one ignored by git.
    static const QStringList outputs = {
        QStringLiteral("o"),   QStringLiteral("obj"), QStringLiteral("class"), QStringLiteral("pyc"),
        QStringLiteral("pyo"), QStringLiteral("lo"),  QStringLiteral("gcda"),  QStringLiteral("gcno")};
    const auto files = removedFiles(e, 2000);
    if (!files || changedInLine(e) || !std::all_of(files->cbegin(), files->cend(), [](const QString &f) {
            return outputs.contains(QFileInfo(f).suffix());
        }))
        return 0;
    const Git::LossReport report = Git::lossReport(*files);
    return report.inWorkTree && report.ignored.size() == files->size() && report.uncommitted.isEmpty()
               ? int(files->size())
               : 0;
}

int CommandJudge::compiledUnder(const Effect &e) const
{
    // find START -name '*.pyc' -delete, -name __pycache__ -exec rm -rf {} +: every match now must
    // be compiled output git ignores (none: nothing is deleted), no link among them, at most 2,000.
    static const QStringList outputs = {QStringLiteral("pyc"), QStringLiteral("pyo"), QStringLiteral("class"),
                                        QStringLiteral("o")};
    const QString start = PathRules::resolved(e.path);
    if (m_mode != Mode::Standard || e.definitions.size() != 1 || !m_ws || !m_ws->confines(start) ||
        changedInLine(e) || !QFileInfo(start).isDir() || QFileInfo(QDir::cleanPath(e.path)).isSymLink())
        return -1;
    const QString name = e.definitions.first();
    QStringList files;
    QDirIterator it(start, QDir::AllEntries | QDir::NoDotAndDotDot | QDir::Hidden | QDir::System,
                    QDirIterator::Subdirectories);
    const bool folders = name == QLatin1String("__pycache__");
    while (it.hasNext()) {
        const QFileInfo entry(it.next());
        const bool matches =
            folders ? entry.fileName() == name || entry.filePath().contains(QLatin1String("/__pycache__/"))
                    : entry.fileName().endsWith(name.mid(1));
        if (!matches)
            continue;
        if (entry.filePath().contains(QLatin1String("/.git/")) || entry.isSymLink())
            return -1;
        if (entry.isDir() && folders)
            continue; // its files are matched one by one
        if (!entry.isFile() || !outputs.contains(entry.suffix()))
            return -1;
        files.append(entry.filePath());
        if (files.size() > 2000)
            return -1;
    }
    if (files.isEmpty())
        return 0;
    const Git::LossReport report = Git::lossReport(files);
    return report.inWorkTree && report.ignored.size() == files.size() && report.uncommitted.isEmpty()
               ? int(files.size())
               : -1;
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
    for (const QString &root : temporaryFolders(false)) {
        if (resolved != root && PathRules::under(resolved, root))
            return true;
    }
    return false;
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
{ // A Python, shell or JavaScript file the agent wrote or changed: read for what it does, like python -c.
    const QString program = QFileInfo(e.argv.value(0)).fileName();
    const bool python =
        program.startsWith(QLatin1String("python")) ||
        (e.path.endsWith(QLatin1String(".py")) && !program.startsWith(QLatin1String("pypy")) &&
         (program.isEmpty() || program == QFileInfo(e.path).fileName()));
    // A shell script the agent wrote is read as the lines it holds.
    const bool shell = program == QLatin1String("sh") || program == QLatin1String("bash") ||
                       program == QLatin1String("dash") ||
                       (e.path.endsWith(QLatin1String(".sh")) && program == QFileInfo(e.path).fileName());
    // A CommonJS file node runs or loads (node check.js, require('./src') of a changed module).
    const bool javascript = (program == QLatin1String("node") || program == QLatin1String("nodejs")) &&
                            (e.path.endsWith(QLatin1String(".js")) || e.path.endsWith(QLatin1String(".cjs")));
    if (!e.pathKnown || !(python || shell || javascript) || m_scriptDepth >= 3)
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
    const Shell::CommandEffects::Context context{QDir::cleanPath(e.cwd), m_home};
    const QString name = QFileInfo(e.path).fileName(), folder = QFileInfo(e.path).absolutePath();
    const QList<Effect> effects = shell ? Shell::CommandEffects::ofLine(code, context)
                                  : javascript
                                      ? Shell::CommandEffects::ofJavaScript(code, name, context, folder)
                                      : Shell::CommandEffects::ofPython(code, name, context, folder);
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

} // namespace Countersign
