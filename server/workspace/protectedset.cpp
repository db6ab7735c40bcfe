#include "protectedset.h"

#include "git.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QHash>
#include <QRegularExpression>

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>

namespace Countersign {

namespace {

struct Named final
{
    const char *path;
    const char *what;
};

// Under the home folder.
constexpr Named kHomeFiles[] = {
    {".bashrc", "a shell start-up file"},
    {".bash_profile", "a shell start-up file"},
    {".bash_login", "a shell start-up file"},
    {".bash_logout", "a shell start-up file"},
    {".profile", "a shell start-up file"},
    {".zshrc", "a shell start-up file"},
    {".zshenv", "a shell start-up file"},
    {".zprofile", "a shell start-up file"},
    {".zlogin", "a shell start-up file"},
    {".config/fish/config.fish", "a shell start-up file"},
    {".gitconfig", "git's own configuration"},
    {".config/git/config", "git's own configuration"},
    {".npmrc", "npm's configuration (it can run scripts)"},
    {".claude/settings.json", "an agent's settings"},
    {".claude/settings.local.json", "an agent's settings"},
    {".claude/CLAUDE.md", "an agent's instructions"},
    {".codex/config.toml", "an agent's settings"},
    {".codex/hooks.json", "an agent's settings"},
    {".codex/AGENTS.md", "an agent's instructions"},
    {".gemini/settings.json", "an agent's settings"},
    {".gemini/GEMINI.md", "an agent's instructions"},
    {".qwen/settings.json", "an agent's settings"},
    {".copilot/config.json", "an agent's settings"},
    {".copilot/mcp-config.json", "an agent's settings"},
    {".cursor/mcp.json", "an agent's settings"},
    {".cursor/hooks.json", "an agent's settings"},
    {".config/opencode/opencode.json", "an agent's settings"},
    {".config/Code/User/settings.json", "an editor's settings"},
    {".config/Code/User/mcp.json", "an editor's settings"},
};

struct Folder final
{
    const char *path;
    const char *what;
    int depth;
    const char *names; // space-separated wildcards; empty: all
};

constexpr Folder kHomeFolders[] = {
    {".ssh", "a file of ~/.ssh", 1, "authorized_keys* config id_* *.pub *.pem *.key rc environment"},
    {".claude/hooks", "an agent's hook", 2, ""},
    {".claude/commands", "an agent's instructions", 2, ""},
    {".claude/agents", "an agent's instructions", 2, ""},
    {".copilot/hooks", "an agent's hook", 1, ""},
    {".config/opencode/plugin", "an agent's plugin", 1, ""},
    {".pi/agent", "an agent's settings", 1, "*.json *.md"},
    {".config/autostart", "a program started at login", 0, ""},
    {".config/systemd/user", "a service started at login", 1, ""},
};

// In each workspace root.
constexpr Named kRootFiles[] = {
    {".git/config", "the repository's git configuration"},
    {".gitlab-ci.yml", "a CI definition"},
    {".travis.yml", "a CI definition"},
    {"azure-pipelines.yml", "a CI definition"},
    {"Jenkinsfile", "a CI definition"},
    {"CLAUDE.md", "an agent's instructions"},
    {"CLAUDE.local.md", "an agent's instructions"},
    {"GEMINI.md", "an agent's instructions"},
    {"QWEN.md", "an agent's instructions"},
    {".cursorrules", "an agent's instructions"},
    {".clinerules", "an agent's instructions"},
    {".windsurfrules", "an agent's instructions"},
    {".github/copilot-instructions.md", "an agent's instructions"},
    {".mcp.json", "an agent's settings"},
    {".claude/settings.json", "an agent's settings"},
    {".claude/settings.local.json", "an agent's settings"},
    {".gemini/settings.json", "an agent's settings"},
    {".qwen/settings.json", "an agent's settings"},
    {".codex/config.toml", "an agent's settings"},
    {".cursor/mcp.json", "an agent's settings"},
    {".vscode/tasks.json", "an editor's tasks"},
    {".vscode/settings.json", "an editor's settings"},
    {".vscode/launch.json", "an editor's tasks"},
    {".vscode/mcp.json", "an editor's settings"},
    {"gradle/wrapper/gradle-wrapper.jar", "a wrapper that builds run"},
    {"gradle/wrapper/gradle-wrapper.properties", "a wrapper that builds run"},
    {".mvn/wrapper/maven-wrapper.jar", "a wrapper that builds run"},
    {".mvn/wrapper/maven-wrapper.properties", "a wrapper that builds run"},
};

constexpr Folder kRootFolders[] = {
    {"", "an agent's instructions, or a file that runs later", 0,
     "AGENTS*.md .env .env.* .envrc .envrc.* *.code-workspace"},
    {".git/hooks", "a git hook", 0, ""},
    {".github/workflows", "a CI definition", 2, ""},
    {".github/actions", "a CI definition", 3, ""},
    {".github/instructions", "an agent's instructions", 3, ""},
    {".github/prompts", "an agent's instructions", 3, ""},
    {".github/agents", "an agent's instructions", 3, ""},
    {".github/skills", "an agent's instructions", 3, ""},
    {".circleci", "a CI definition", 1, ""},
    {".buildkite", "a CI definition", 1, ""},
    {".claude/hooks", "an agent's hook", 2, ""},
    {".claude/commands", "an agent's instructions", 2, ""},
    {".claude/agents", "an agent's instructions", 2, ""},
    {".claude/skills", "an agent's instructions", 3, ""},
    {".cursor/rules", "an agent's instructions", 2, ""},
    {".clinerules", "an agent's instructions", 2, ""},
    {".husky", "a git hook", 1, ""},
    {".yarn/releases", "a vendored release script that builds run", 0, ""},
    {".venv/lib", "a virtual environment's start-up file", 2, "*.pth sitecustomize.py usercustomize.py"},
    {"venv/lib", "a virtual environment's start-up file", 2, "*.pth sitecustomize.py usercustomize.py"},
    {".venv/bin", "a virtual environment's activation script", 0, "activate*"},
    {"venv/bin", "a virtual environment's activation script", 0, "activate*"},
};

// The instruction files whose "@path" imports the agents read too.
constexpr const char *kImporters[] = {"CLAUDE.md", "CLAUDE.local.md", "AGENTS.md", "GEMINI.md"};

QString joined(const QString &base, const char *relative)
{
    return *relative ? QDir::cleanPath(base + QLatin1Char('/') + QLatin1String(relative)) : base;
}

// core.hooksPath in a git configuration file, as an absolute path (relative ones from root).
QString hooksPathIn(const QString &configFile, const QString &root, const QString &home)
{
    // Only a regular file is handed to libgit2 (a pipe in its place would block its read).
    struct stat st;
    if (::lstat(QFile::encodeName(configFile).constData(), &st) != 0 || !S_ISREG(st.st_mode))
        return {};
    QString path = Git::configValue(configFile, QStringLiteral("core.hookspath"));
    if (path.startsWith(QLatin1String("~/")))
        path = home + path.mid(1);
    if (path.isEmpty())
        return {};
    return QDir::cleanPath(QDir::isAbsolutePath(path) ? path : root + QLatin1Char('/') + path);
}

// The first bytes of a regular file, as text, read without blocking (a pipe planted in its place)
// and without following a link; empty otherwise.
QString leadingText(const QString &file, qint64 bytes)
{
    const int fd =
        ::open(QFile::encodeName(file).constData(), O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0)
        return {};
    struct stat st;
    QFile in;
    if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) ||
        !in.open(fd, QIODevice::ReadOnly, QFileDevice::AutoCloseHandle)) {
        ::close(fd);
        return {};
    }
    return QString::fromUtf8(in.read(bytes));
}

// The files an instruction file imports with "@path" (relative to its folder, or ~/): bounded
// to the first 256 KiB and 64 imports.
QStringList importsOf(const QString &file, const QString &home)
{
    const QString text = leadingText(file, 256 * 1024);
    static const QRegularExpression import(QStringLiteral(R"((?:^|\s)@((?:~/|\.{0,2}/)?[\w.\-/]+))"));
    QStringList found;
    auto it = import.globalMatch(text);
    while (it.hasNext() && found.size() < 64) {
        QString path = it.next().captured(1);
        if (path.startsWith(QLatin1String("~/")))
            path = home + path.mid(1);
        else if (!path.startsWith(QLatin1Char('/')))
            path = QFileInfo(file).absolutePath() + QLatin1Char('/') + path;
        found << QDir::cleanPath(path);
    }
    return found;
}

bool nameMatches(const ProtectedSet::Place &place, const QString &leaf)
{
    // Each wildcard made into an expression once (per thread): every call of every quiet call
    // matches the watched folders' names.
    thread_local QHash<QString, QRegularExpression> compiled;
    return place.names.isEmpty() ||
           std::any_of(place.names.cbegin(), place.names.cend(), [&](const QString &pattern) {
               auto it = compiled.constFind(pattern);
               if (it == compiled.cend())
                   it = compiled.insert(
                       pattern, QRegularExpression(QRegularExpression::wildcardToRegularExpression(pattern)));
               return it->match(leaf).hasMatch();
           });
}

void addFolder(QMap<QString, QString> &out, const QString &folder, const ProtectedSet::Place &place,
               int depth, int &budget)
{
    const QByteArray name = QFile::encodeName(folder);
    DIR *dir = ::opendir(name.constData());
    if (!dir)
        return;
    // Only what is watched counts against the bound (a folder flooded with other names hides
    // nothing); past it, the folder itself is watched, as one that can no longer be read whole.
    std::vector<std::pair<QByteArray, bool>> entries; // a name, and whether its type is still to tell
    bool overflowed = false;
    while (const dirent *entry = ::readdir(dir)) {
        const QByteArray leaf(entry->d_name);
        if (leaf == "." || leaf == "..")
            continue;
        // A folder counts only where it is gone into; a file (or what readdir cannot tell) only when
        // its name is watched: matched here, once.
        const bool folderEntry = entry->d_type == DT_DIR;
        const bool unknown = entry->d_type == DT_UNKNOWN; // told by lstat below
        if ((folderEntry && depth == 0) ||
            (!folderEntry && !unknown && !nameMatches(place, QFile::decodeName(leaf))))
            continue;
        entries.push_back({leaf, unknown});
        if (entries.size() > size_t(ProtectedSet::kMaxFilesPerFolder)) {
            overflowed = true;
            break;
        }
    }
    ::closedir(dir);
    if (overflowed) {
        out.insert(folder, QStringLiteral("a watched folder of more than %1 entries (what it holds can no "
                                          "longer be watched one by one)")
                               .arg(ProtectedSet::kMaxFilesPerFolder));
        --budget;
        return;
    }
    std::sort(entries.begin(), entries.end());
    for (const auto &[leaf, untold] : entries) {
        if (budget <= 0)
            return;
        const QString path = folder + QLatin1Char('/') + QFile::decodeName(leaf);
        struct stat st;
        if (::lstat(QFile::encodeName(path).constData(), &st) != 0)
            continue;
        if (S_ISDIR(st.st_mode)) {
            if (depth > 0)
                addFolder(out, path, place, depth - 1, budget);
            continue;
        }
        if (!S_ISREG(st.st_mode) && !S_ISLNK(st.st_mode))
            continue; // a socket (ssh's ControlMaster), a pipe: nothing that runs or steers later
        if (untold && !nameMatches(place, QFile::decodeName(leaf)))
            continue;
        out.insert(path, place.what);
        --budget;
    }
}

// Where a root's git folder is when .git is a file (a worktree, a submodule): its own folder and the
// common one (config, hooks); none when .git is a folder or missing.
QStringList linkedGitFolders(const QString &root)
{
    const QString pointer = leadingText(root + QStringLiteral("/.git"), 4096);
    if (!pointer.startsWith(QLatin1String("gitdir:")))
        return {};
    QString own = pointer.mid(7).section(QLatin1Char('\n'), 0, 0).trimmed();
    own = QDir::cleanPath(QDir::isAbsolutePath(own) ? own : root + QLatin1Char('/') + own);
    QStringList folders{own};
    const QString common =
        leadingText(own + QStringLiteral("/commondir"), 4096).section(QLatin1Char('\n'), 0, 0).trimmed();
    if (!common.isEmpty())
        folders << QDir::cleanPath(QDir::isAbsolutePath(common) ? common : own + QLatin1Char('/') + common);
    return folders;
}

} // namespace

ProtectedSet ProtectedSet::standard(const QString &givenHome, const QStringList &givenRoots,
                                    const QStringList &files)
{
    // Where they lead: a home or a root reached through a link is restored through its real folders
    // (the restore opens no link on the way).
    const auto real = [](const QString &path) {
        const QString canonical = QDir(path).canonicalPath();
        return canonical.isEmpty() ? path : canonical;
    };
    const QString home = givenHome.isEmpty() ? QString() : real(givenHome);
    QStringList roots;
    for (const QString &root : givenRoots)
        roots << real(root);
    ProtectedSet set;
    if (!home.isEmpty()) {
        for (const Named &f : kHomeFiles)
            set.add({joined(home, f.path), QString::fromLatin1(f.what), -1, {}});
        for (const Folder &f : kHomeFolders)
            set.add({joined(home, f.path), QString::fromLatin1(f.what), f.depth,
                     QString::fromLatin1(f.names).split(QLatin1Char(' '), Qt::SkipEmptyParts)});
    }
    for (const QString &root : roots) {
        for (const Named &f : kRootFiles)
            set.add({joined(root, f.path), QString::fromLatin1(f.what), -1, {}});
        for (const Folder &f : kRootFolders)
            set.add({joined(root, f.path), QString::fromLatin1(f.what), f.depth,
                     QString::fromLatin1(f.names).split(QLatin1Char(' '), Qt::SkipEmptyParts)});
    }
    for (const QString &file : files) {
        const QFileInfo info(file);
        const QString path = QDir::cleanPath(
            info.exists() ? real(info.absolutePath()) + QLatin1Char('/') + info.fileName() : file);
        if (info.isDir())
            set.add({path, QStringLiteral("Countersign's own keys or settings"), 0, {}});
        else
            set.add({path, QStringLiteral("Countersign's or an agent's own settings"), -1, {}});
    }
    // Read when the files are listed (they may change): core.hooksPath and the imports.
    for (const QString &root : roots)
        set.m_roots.append(root);
    set.m_home = home;
    return set;
}

QMap<QString, QString> ProtectedSet::files() const
{
    QMap<QString, QString> out;
    int budget = kMaxFiles;
    for (const Place &place : m_places) {
        if (budget <= 0)
            break;
        if (place.depth < 0) {
            if (!out.contains(place.path)) // the first place that names a file says what it is
                out.insert(place.path, place.what);
            --budget;
        } else {
            addFolder(out, place.path, place, place.depth, budget);
        }
    }
    QStringList hookFolders;
    if (!m_home.isEmpty())
        hookFolders << hooksPathIn(m_home + QStringLiteral("/.gitconfig"), m_home, m_home);
    for (const QString &root : m_roots) {
        hookFolders << hooksPathIn(root + QStringLiteral("/.git/config"), root, m_home);
        // A worktree's or a submodule's git folder is elsewhere: its configuration and hooks too.
        for (const QString &gitFolder : linkedGitFolders(root)) {
            for (const QString &config : {QStringLiteral("/config"), QStringLiteral("/config.worktree")}) {
                if (budget-- > 0 && !out.contains(gitFolder + config))
                    out.insert(gitFolder + config, QStringLiteral("the repository's git configuration"));
            }
            addFolder(out, gitFolder + QStringLiteral("/hooks"),
                      Place{gitFolder, QStringLiteral("a git hook"), 0, {}}, 0, budget);
            hookFolders << hooksPathIn(gitFolder + QStringLiteral("/config"), root, m_home);
        }
        for (const char *importer : kImporters) {
            const QString file = root + QLatin1Char('/') + QLatin1String(importer);
            for (const QString &imported : importsOf(file, m_home)) {
                if (budget-- > 0 && !out.contains(imported))
                    out.insert(imported, QStringLiteral("a file an agent's instructions import"));
            }
        }
    }
    for (const QString &folder : hookFolders) {
        if (!folder.isEmpty())
            addFolder(out, folder, Place{folder, QStringLiteral("a git hook (core.hooksPath)"), 1, {}}, 1,
                      budget);
    }
    return out;
}

} // namespace Countersign
