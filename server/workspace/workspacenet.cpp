#include "workspacenet.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QLoggingCategory>

#include <algorithm>
#include <functional>
#include <vector>

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

Q_LOGGING_CATEGORY(lcNet, "countersign.net")

namespace Countersign {

namespace {

qint64 nanosOf(const timespec &t)
{
    return qint64(t.tv_sec) * 1'000'000'000 + t.tv_nsec;
}

const QSet<QByteArray> &regeneratedNames()
{
    static const QSet<QByteArray> names = [] {
        QSet<QByteArray> set;
        for (const QString &name : WorkspaceNet::regenerated())
            set.insert(QFile::encodeName(name));
        return set;
    }();
    return names;
}

// Each regular file under root (links not followed, the regenerated folders and the excluded one
// left out) with its lstat, folder by folder; false when there are more than maxFiles.
bool walkFiles(const QString &root, const QByteArray &excluded, int maxFiles,
               const std::function<void(const QString &, const struct stat &)> &visit)
{
    std::vector<QByteArray> folders{QFile::encodeName(QDir::cleanPath(root))};
    int count = 0;
    while (!folders.empty()) {
        const QByteArray folder = folders.back();
        folders.pop_back();
        const int fd = ::open(folder.constData(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
        if (fd < 0)
            continue;
        DIR *dir = ::fdopendir(fd);
        if (!dir) {
            ::close(fd);
            continue;
        }
        while (const dirent *entry = ::readdir(dir)) {
            const QByteArray name(entry->d_name);
            if (name == "." || name == "..")
                continue;
            const QByteArray path = folder + '/' + name;
            if (entry->d_type == DT_DIR) {
                if (!regeneratedNames().contains(name) && path != excluded)
                    folders.push_back(path);
                continue;
            }
            if (entry->d_type != DT_REG && entry->d_type != DT_UNKNOWN)
                continue; // a link, a socket, a pipe: not recorded
            struct stat st;
            if (::fstatat(::dirfd(dir), entry->d_name, &st, AT_SYMLINK_NOFOLLOW) != 0)
                continue;
            if (S_ISDIR(st.st_mode)) {
                if (!regeneratedNames().contains(name) && path != excluded)
                    folders.push_back(path);
                continue;
            }
            if (!S_ISREG(st.st_mode))
                continue;
            if (++count > maxFiles) {
                ::closedir(dir);
                return false;
            }
            visit(QFile::decodeName(path), st);
        }
        ::closedir(dir);
    }
    return true;
}

bool sameStat(quint64 device, quint64 inode, qint64 size, qint64 mtimeNs, qint64 ctimeNs,
              const struct stat &st)
{
    return device == quint64(st.st_dev) && inode == quint64(st.st_ino) && size == qint64(st.st_size) &&
           mtimeNs == nanosOf(st.st_mtim) && ctimeNs == nanosOf(st.st_ctim);
}

bool insideRoot(const QString &path, const QString &root)
{
    return path.startsWith(root) && (path.size() == root.size() || path.at(root.size()) == QLatin1Char('/'));
}

} // namespace

const QStringList &WorkspaceNet::regenerated()
{
    static const QStringList names = {
        QStringLiteral(".git"),
        QStringLiteral("node_modules"),
        QStringLiteral("target"),
        QStringLiteral("build"),
        QStringLiteral("dist"),
        QStringLiteral(".venv"),
        QStringLiteral("venv"),
        QStringLiteral("__pycache__"),
        QStringLiteral(".tox"),
        QStringLiteral(".nox"),
        QStringLiteral(".mypy_cache"),
        QStringLiteral(".pytest_cache"),
        QStringLiteral(".ruff_cache"),
        QStringLiteral(".gradle"),
        QStringLiteral(".next"),
        QStringLiteral(".nuxt"),
        QStringLiteral(".svelte-kit"),
        QStringLiteral(".turbo"),
        QStringLiteral(".parcel-cache"),
        QStringLiteral(".cache"),
        QStringLiteral("bower_components"),
        QStringLiteral(".terraform"),
        QStringLiteral(".eggs"),
        QStringLiteral("_build"),
        QStringLiteral("cmake-build-debug"),
        QStringLiteral("cmake-build-release"),
    };
    return names;
}

WorkspaceNet::WorkspaceNet(QStringList roots, std::shared_ptr<SnapshotStore> store, Limits limits)
    : m_roots(std::move(roots)), m_store(std::move(store)), m_limits(limits)
{
}

void WorkspaceNet::configure(QStringList roots, std::shared_ptr<SnapshotStore> store)
{
    m_store = std::move(store);
    if (roots == m_roots)
        return;
    m_roots = std::move(roots);
    m_index.clear();
    m_inFlight.clear();
    m_skipped.clear();
    m_sharers = 0;
}

void WorkspaceNet::record()
{
    for (Entry &entry : m_index)
        entry.seen = false;
    qint64 newBytes = 0;
    // Countersign's own data folder, where a root holds it, is not the agents' work.
    const QByteArray excluded =
        m_store ? QFile::encodeName(QFileInfo(m_store->directory()).absolutePath()) : QByteArray();
    for (const QString &root : m_roots) {
        const bool whole =
            walkFiles(root, excluded, m_limits.maxFiles, [&](const QString &path, const struct stat &st) {
                const auto found = m_index.find(path);
                const bool copyable = qint64(st.st_size) <= SnapshotStore::kMaxFileBytes;
                if (found != m_index.end() &&
                    sameStat(found->device, found->inode, found->size, found->mtimeNs, found->ctimeNs, st) &&
                    ((!found->sha256.isEmpty() && m_store && m_store->has(found->sha256)) || !copyable)) {
                    // (a copy the store has since dropped is taken again)
                    found->seen = true;
                    return;
                }
                Entry entry;
                entry.device = quint64(st.st_dev);
                entry.inode = quint64(st.st_ino);
                entry.size = qint64(st.st_size);
                entry.mtimeNs = nanosOf(st.st_mtim);
                entry.ctimeNs = nanosOf(st.st_ctim);
                entry.mode = int(st.st_mode & 07777);
                entry.seen = true;
                if (m_store && copyable && newBytes + entry.size <= m_limits.maxNewBytes) {
                    auto kept = m_store->keep(path);
                    if (kept && kept.value().existed) {
                        entry.sha256 = kept.value().sha256;
                        newBytes += kept.value().bytes;
                    }
                }
                m_index.insert(path, std::move(entry));
            });
        if (whole) {
            m_skipped.remove(root);
        } else {
            if (!m_skipped.contains(root))
                qCWarning(lcNet) << "not recording" << root << ": more than" << m_limits.maxFiles << "files";
            m_skipped.insert(root);
        }
    }
    for (auto it = m_index.begin(); it != m_index.end();) {
        const bool skipped = std::any_of(m_skipped.cbegin(), m_skipped.cend(),
                                         [&](const QString &root) { return insideRoot(it.key(), root); });
        it = it->seen && !skipped ? std::next(it) : m_index.erase(it);
    }
}

void WorkspaceNet::arm(const QString &call, qint64 nowMs)
{
    if (m_inFlight.isEmpty()) {
        record();
        m_sharers = 0;
    }
    m_inFlight.insert(call, nowMs);
    ++m_sharers;
}

WorkspaceNet::Outcome WorkspaceNet::disarm(const QString &call)
{
    Outcome out;
    if (!m_inFlight.remove(call))
        return out;
    out.recorded = true;
    out.sharedWith = std::max(0, m_sharers - 1);
    QSet<QString> seen;
    const QByteArray excluded =
        m_store ? QFile::encodeName(QFileInfo(m_store->directory()).absolutePath()) : QByteArray();
    for (const QString &root : m_roots) {
        if (m_skipped.contains(root))
            continue;
        const bool whole =
            walkFiles(root, excluded, m_limits.maxFiles * 2, [&](const QString &path, const struct stat &st) {
                seen.insert(path);
                const auto found = m_index.constFind(path);
                if (found == m_index.cend()) {
                    out.kept.append(SnapshotStore::Kept{path, false, QString(), 0, -1}); // created
                    return;
                }
                if (sameStat(found->device, found->inode, found->size, found->mtimeNs, found->ctimeNs, st))
                    return;
                if (found->sha256.isEmpty()) {
                    out.unkept.append(path);
                    return;
                }
                const auto now = SnapshotStore::read(path);
                if (now && now.value().exists && now.value().sha256 == found->sha256 &&
                    int(st.st_mode & 07777) == found->mode)
                    return; // touched, not changed
                // Its copy must still be there (the store's bounds may have dropped an old one).
                if (!m_store || !m_store->has(found->sha256)) {
                    out.unkept.append(path);
                    return;
                }
                out.kept.append(SnapshotStore::Kept{path, true, found->sha256, found->size, found->mode});
            });
        if (!whole)
            out.incomplete = true;
    }
    for (auto it = m_index.cbegin(); it != m_index.cend(); ++it) {
        if (seen.contains(it.key()) || out.incomplete)
            continue;
        if (it->sha256.isEmpty() || !m_store || !m_store->has(it->sha256))
            out.unkept.append(it.key());
        else
            out.kept.append(SnapshotStore::Kept{it.key(), true, it->sha256, it->size, it->mode}); // deleted
    }
    std::sort(out.kept.begin(), out.kept.end(),
              [](const SnapshotStore::Kept &a, const SnapshotStore::Kept &b) { return a.path < b.path; });
    out.unkept.sort();
    return out;
}

void WorkspaceNet::forgetStale(qint64 olderThanMs)
{
    for (auto it = m_inFlight.begin(); it != m_inFlight.end();)
        it = it.value() < olderThanMs ? m_inFlight.erase(it) : std::next(it);
}

} // namespace Countersign
