#include "snapshotstore.h"

#include "canonicaljson.h"
#include "filepath.h"

#include <QCryptographicHash>
#include <QDateTime>
#include <QDir>
#include <QDirIterator>
#include <QFile>
#include <QFileInfo>
#include <QRandomGenerator>
#include <QRegularExpression>

#include <algorithm>
#include <vector>

#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

namespace Countersign {

namespace {

// An age is checked every this many keeps (and whenever the total goes over its bound).
constexpr int kPruneEvery = 256;

QString sha256Hex(const QByteArray &bytes)
{
    return QString::fromLatin1(CanonicalJson::sha256Hex(bytes));
}

bool isDigest(const QString &text)
{
    static const QRegularExpression hex(QStringLiteral("^[0-9a-f]{64}$"));
    return hex.match(text).hasMatch();
}

QString errnoText()
{
    return QString::fromLocal8Bit(std::strerror(errno));
}

bool makePrivateDir(const QString &path)
{
    const QByteArray name = QFile::encodeName(path);
    if (::mkdir(name.constData(), 0700) != 0 && errno != EEXIST)
        return false;
    struct stat st;
    return ::lstat(name.constData(), &st) == 0 && S_ISDIR(st.st_mode);
}

} // namespace

SnapshotStore::SnapshotStore(QString directory, Limits limits) : m_dir(std::move(directory)), m_limits(limits)
{
}

QString SnapshotStore::digestOf(const QString &path, qint64 maxBytes)
{
    const int fd =
        ::open(QFile::encodeName(path).constData(), O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0)
        return {};
    struct stat st;
    QFile file;
    if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || st.st_size > maxBytes ||
        !file.open(fd, QIODevice::ReadOnly, QFileDevice::AutoCloseHandle)) {
        ::close(fd);
        return {};
    }
    const QByteArray bytes = file.read(maxBytes + 1);
    return bytes.size() > maxBytes ? QString() : sha256Hex(bytes);
}

QString SnapshotStore::folderIn(const QString &dataDir)
{
    return QDir(dataDir).filePath(QStringLiteral("snapshots"));
}

QString SnapshotStore::blobPath(const QString &sha256) const
{
    return m_dir + QLatin1Char('/') + sha256.left(2) + QLatin1Char('/') + sha256;
}

int SnapshotStore::openFolderOf(const QString &path, QByteArray *leaf, Folders folders)
{
    const QString clean = QDir::cleanPath(path);
    if (!FilePath::isAbsolute(clean) || clean == QLatin1String("/")) {
        errno = EINVAL;
        return -1;
    }
    const QList<QByteArray> parts = QFile::encodeName(clean).split('/');
    int dir = ::open("/", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    for (qsizetype i = 1; dir >= 0 && i + 1 < parts.size(); ++i) {
        if (parts[i].isEmpty() || parts[i] == "." || parts[i] == "..") {
            ::close(dir);
            errno = EINVAL;
            return -1;
        }
        int next = ::openat(dir, parts[i].constData(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
        if (next < 0 && errno == ENOENT && folders == Folders::Make &&
            (::mkdirat(dir, parts[i].constData(), 0777) == 0 || errno == EEXIST))
            next = ::openat(dir, parts[i].constData(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
        const int saved = errno;
        ::close(dir);
        errno = saved;
        dir = next;
    }
    if (dir >= 0)
        *leaf = parts.last();
    return dir;
}

Result<SnapshotStore::FileNow> SnapshotStore::readAt(int dir, const QByteArray &leaf)
{
    const int fd = ::openat(dir, leaf.constData(), O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0) {
        if (errno == ENOENT)
            return FileNow{};
        return failure(errnoText());
    }
    struct stat st;
    if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
        ::close(fd);
        return failure(QStringLiteral("it is not a regular file"));
    }
    if (st.st_size > kMaxFileBytes) {
        ::close(fd);
        return failure(QStringLiteral("it is larger than %1 MiB").arg(kMaxFileBytes >> 20));
    }
    QFile file;
    if (!file.open(fd, QIODevice::ReadOnly, QFileDevice::AutoCloseHandle)) {
        ::close(fd);
        return failure(QStringLiteral("it cannot be read"));
    }
    FileNow now;
    now.exists = true;
    now.mode = int(st.st_mode & 07777);
    now.links = qint64(st.st_nlink);
    // Sized from fstat (a buffer of the whole bound would cost more than the read), one byte over
    // to see a file that grew since.
    now.bytes = file.read(qint64(st.st_size) + 1);
    if (now.bytes.size() > kMaxFileBytes)
        return failure(QStringLiteral("it is larger than %1 MiB").arg(kMaxFileBytes >> 20));
    now.sha256 = sha256Hex(now.bytes);
    return now;
}

Result<SnapshotStore::FileNow> SnapshotStore::read(const QString &path)
{
    // Every folder on the way is opened without following a link, so a folder swapped for one
    // (after the judge saw the path) fails here rather than reading elsewhere.
    QByteArray leaf;
    const int dir = openFolderOf(path, &leaf);
    if (dir < 0) {
        if (errno == ENOENT)
            return FileNow{};
        return failure(
            QStringLiteral("%1 cannot be read: a folder on its way is a link or cannot be opened (%2)")
                .arg(path, errnoText()));
    }
    auto now = readAt(dir, leaf);
    ::close(dir);
    if (!now)
        return failure(QStringLiteral("%1: %2").arg(path, now.error()));
    // Another name for the same file (a hard link, perhaps to a secret elsewhere): not kept.
    if (now.value().links > 1)
        return failure(QStringLiteral("%1 has other hard links").arg(path));
    return now;
}

Status SnapshotStore::replaceAt(int dir, const QByteArray &leaf, const QByteArray &bytes, int mode)
{
    const QByteArray temporary = '.' + leaf.left(64) + ".countersign-revert-" +
                                 QByteArray::number(QRandomGenerator::system()->generate64(), 16);
    const int fd =
        ::openat(dir, temporary.constData(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
    if (fd < 0)
        return failure(QString::fromLocal8Bit(std::strerror(errno)));
    qint64 written = 0;
    bool ok = true;
    while (ok && written < bytes.size()) {
        const ssize_t n = ::write(fd, bytes.constData() + written, size_t(bytes.size() - written));
        if (n < 0 && errno == EINTR)
            continue;
        ok = n > 0;
        written += ok ? n : 0;
    }
    ok = ok && ::fchmod(fd, mode_t(mode)) == 0;
    const QString why = ok ? QString() : QString::fromLocal8Bit(std::strerror(errno));
    if (::close(fd) != 0 || !ok || ::renameat(dir, temporary.constData(), dir, leaf.constData()) != 0) {
        const QString reason = why.isEmpty() ? QString::fromLocal8Bit(std::strerror(errno)) : why;
        ::unlinkat(dir, temporary.constData(), 0);
        return failure(reason);
    }
    return Done{};
}

Result<SnapshotStore::Kept> SnapshotStore::keep(const QString &path)
{
    auto now = read(path);
    if (!now)
        return failure(now.error());
    Kept kept;
    kept.path = path;
    if (!now.value().exists)
        return kept;
    kept.existed = true;
    kept.sha256 = now.value().sha256;
    kept.bytes = now.value().bytes.size();
    kept.mode = now.value().mode;

    const QString blob = blobPath(kept.sha256);
    const QByteArray blobName = QFile::encodeName(blob);
    // Kept before (whole: a blob a crash cut short is written again): now the most recently kept.
    struct stat st;
    if (::lstat(blobName.constData(), &st) == 0) {
        if (S_ISREG(st.st_mode) && st.st_size == kept.bytes &&
            ::utimensat(AT_FDCWD, blobName.constData(), nullptr, AT_SYMLINK_NOFOLLOW) == 0)
            return kept;
        ::unlink(blobName.constData());
    }
    if (!m_total)
        scan(); // once: from then on the total is kept up to date
    const QString shard = QFileInfo(blob).absolutePath();
    if (!m_madeDirs.contains(shard) && (!makePrivateDir(m_dir) || !makePrivateDir(shard)))
        return failure(QStringLiteral("the undo folder %1 cannot be made (%2)").arg(m_dir, errnoText()));
    m_madeDirs.insert(shard);
    // Written in place, not renamed into it (a rename is a second journaled change on every keep):
    // a blob is named by its content, content() checks it, and a short one is written again above.
    const int flags = O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC;
    int fd = ::open(blobName.constData(), flags, 0600);
    if (fd < 0 && errno == ENOENT && makePrivateDir(m_dir) && makePrivateDir(shard)) // removed meanwhile
        fd = ::open(blobName.constData(), flags, 0600);
    if (fd < 0 && errno == EEXIST)
        return kept; // the same content, kept at this moment by another instance
    if (fd < 0)
        return failure(QStringLiteral("the undo folder %1 cannot be written (%2)").arg(m_dir, errnoText()));
    const QByteArray &bytes = now.value().bytes;
    qint64 written = 0;
    while (written < bytes.size()) {
        const ssize_t n = ::write(fd, bytes.constData() + written, size_t(bytes.size() - written));
        if (n <= 0) {
            if (n < 0 && errno == EINTR)
                continue;
            const QString why = errnoText();
            ::close(fd);
            ::unlink(blobName.constData());
            return failure(QStringLiteral("the previous content of %1 cannot be kept (%2)").arg(path, why));
        }
        written += n;
    }
    if (::close(fd) != 0) {
        const QString why = errnoText();
        ::unlink(blobName.constData());
        return failure(QStringLiteral("the previous content of %1 cannot be kept (%2)").arg(path, why));
    }
    *m_total += kept.bytes;
    // Over the bound: pruned, unless a prune found nothing it may drop within the last 30 s.
    const bool recentlyFull =
        m_fullSinceMs > 0 && QDateTime::currentMSecsSinceEpoch() - m_fullSinceMs < 30'000;
    if (++m_keptSincePrune >= kPruneEvery || (*m_total > m_limits.maxBytes && !recentlyFull)) {
        if (prune() > m_limits.maxBytes)
            m_fullSinceMs = QDateTime::currentMSecsSinceEpoch();
    }
    return kept;
}

bool SnapshotStore::has(const QString &sha256) const
{
    struct stat st;
    return isDigest(sha256) && ::lstat(QFile::encodeName(blobPath(sha256)).constData(), &st) == 0 &&
           S_ISREG(st.st_mode);
}

Result<QByteArray> SnapshotStore::content(const QString &sha256) const
{
    if (!isDigest(sha256))
        return failure(QStringLiteral("\"%1\" is not a SHA-256 digest").arg(sha256.left(80)));
    QFile file(blobPath(sha256));
    if (!file.open(QIODevice::ReadOnly))
        return failure(QStringLiteral("the kept copy %1 is gone (the undo store keeps %2 MiB for %3 days)")
                           .arg(sha256.left(12))
                           .arg(m_limits.maxBytes >> 20)
                           .arg(m_limits.maxAgeMs / (24 * 3600 * 1000)));
    QByteArray bytes = file.read(std::min(file.size(), kMaxFileBytes) + 1);
    if (sha256Hex(bytes) != sha256)
        return failure(QStringLiteral("the kept copy %1 is damaged: its content no longer matches its digest")
                           .arg(sha256.left(12)));
    return bytes;
}

void SnapshotStore::scan()
{
    qint64 total = 0;
    QDirIterator it(m_dir, QDir::Files | QDir::Hidden | QDir::NoSymLinks, QDirIterator::Subdirectories);
    while (it.hasNext()) {
        it.next();
        total += it.fileInfo().size();
    }
    m_total = total;
}

bool SnapshotStore::full()
{
    if (totalBytes() <= m_limits.maxBytes)
        return false;
    // Pruning reads the whole folder: once it found nothing it may drop, it is tried again at most
    // every 30 s (a call a minute does not walk the store each time).
    const qint64 now = QDateTime::currentMSecsSinceEpoch();
    if (m_fullSinceMs > 0 && now - m_fullSinceMs < 30'000)
        return true;
    const bool stillFull = prune() > m_limits.maxBytes;
    m_fullSinceMs = stillFull ? now : 0;
    return stillFull;
}

qint64 SnapshotStore::totalBytes()
{
    if (!m_total)
        scan();
    return *m_total;
}

qint64 SnapshotStore::prune()
{
    m_keptSincePrune = 0;
    struct Blob
    {
        QString path;
        qint64 bytes;
        qint64 keptMs;
    };
    std::vector<Blob> blobs;
    QDirIterator it(m_dir, QDir::Files | QDir::Hidden | QDir::NoSymLinks, QDirIterator::Subdirectories);
    while (it.hasNext()) {
        it.next();
        const QFileInfo info = it.fileInfo();
        blobs.push_back({info.filePath(), info.size(), info.lastModified().toMSecsSinceEpoch()});
    }
    const qint64 now = QDateTime::currentMSecsSinceEpoch();
    const qint64 oldest = now - m_limits.maxAgeMs;
    const qint64 youngest = now - m_limits.keepMs; // kept after this: promised
    std::sort(blobs.begin(), blobs.end(), [](const Blob &a, const Blob &b) { return a.keptMs < b.keptMs; });
    qint64 total = 0;
    for (const Blob &blob : blobs)
        total += blob.bytes;
    // Past the bound, down to nine tenths of it: the next prunes are then a tenth of the bound's
    // worth of keeps away, rather than one.
    const qint64 target = total > m_limits.maxBytes ? m_limits.maxBytes - m_limits.maxBytes / 10 : total;
    int dropped = 0;
    qint64 droppedBytes = 0;
    for (const Blob &blob : blobs) {
        const bool tooOld = blob.keptMs < oldest;
        if (!tooOld && (total <= target || blob.keptMs > youngest))
            break;
        if (QFile::remove(blob.path)) {
            total -= blob.bytes;
            ++dropped;
            droppedBytes += blob.bytes;
        }
    }
    m_total = total;
    if (dropped > 0 && m_dropped)
        m_dropped(dropped, droppedBytes);
    return total;
}

} // namespace Countersign
