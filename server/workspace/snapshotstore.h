#pragma once

#include "result.h"

#include <QByteArray>
#include <QSet>
#include <QString>

#include <functional>
#include <optional>

namespace Countersign {

// What a file held before an agent's write, edit or patch that ran with no card, kept so that the
// human can take the change back (FileUndo). Content-addressed: a blob named by its SHA-256 under
// DIR/ab/, mode 0600 in a folder of mode 0700, so the same content is kept once; a blob a crash cut
// short is written again by the next keep of its content. Bounded: blobs older than maxAgeMs go first, then
// the least recently kept, until the total is under maxBytes. A blob read back must still hash to its name.
// Files are read only through folders opened without following links (openFolderOf). Not
// thread-safe: one instance per thread (the server's keeps, the window's and the command
// line's read); they share the folder safely.
class SnapshotStore final
{
public:
    struct Limits final
    {
        qint64 maxBytes = 512LL << 20;
        qint64 maxAgeMs = 14LL * 24 * 3600 * 1000;
        // A copy younger than this is never dropped to make room: the store stays over maxBytes
        // (full()) rather than break the undo it promised (0: every copy may go).
        qint64 keepMs = 24LL * 3600 * 1000;
    };
    // The largest file kept: a write over a larger one asks instead (it could not be undone).
    static constexpr qint64 kMaxFileBytes = 16LL << 20;

    // A file's state before the change: its content's digest (kept in the store), or that it did
    // not exist.
    struct Kept final
    {
        QString path;
        bool existed = false;
        QString sha256; // empty when !existed
        qint64 bytes = 0;
        int mode = -1; // its permissions when existed (-1: not known)
    };

    SnapshotStore(QString directory, Limits limits);
    // The store's folder in a data folder: DATA/snapshots.
    static QString folderIn(const QString &dataDir);
    // The lower-case hex SHA-256 of the regular file at path (not followed through a link), read
    // whole when it holds at most maxBytes; empty when it is no such file.
    static QString digestOf(const QString &path, qint64 maxBytes);

    const QString &directory() const { return m_dir; }
    // Keeps the file's current content (a regular file, not followed through a link, never
    // blocking on a pipe or a device), or notes that it does not exist. Fails for anything else
    // (a folder, a device, a file over kMaxFileBytes, a store that cannot be written): the caller
    // must not let the change run without its undo.
    Result<Kept> keep(const QString &path);
    // The kept bytes with this digest; fails when they are gone (pruned) or damaged.
    Result<QByteArray> content(const QString &sha256) const;
    // Whether a copy with this digest is in the store (not read: content() checks it).
    bool has(const QString &sha256) const;
    // Drops what is past the limits, the oldest first, never a copy younger than keepMs to make
    // room; called by keep() when needed. Returns the bytes kept after.
    qint64 prune();
    qint64 totalBytes();
    // Over maxBytes with nothing it may drop: a change now could not be kept without breaking the
    // undo of a recent one.
    bool full();
    const Limits &limits() const { return m_limits; }
    // Told each time copies are dropped (how many, their bytes), as they go.
    void setDropped(std::function<void(int copies, qint64 bytes)> dropped) { m_dropped = std::move(dropped); }

    // A regular file's bytes and digest, read as keep() reads it; nothing when it does not exist.
    struct FileNow final
    {
        bool exists = false;
        QByteArray bytes;
        QString sha256;
        int mode = 0600;
        qint64 links = 1; // its hard links
    };
    // The file named leaf in an open folder, read without following a link: a regular file of at
    // most kMaxFileBytes (never blocking on a pipe or a device), or nothing when there is none.
    static Result<FileNow> readAt(int dir, const QByteArray &leaf);
    // Fails for a folder on the way that is a link, and for a file with other hard links.
    static Result<FileNow> read(const QString &path);
    // The folder that holds an absolute path, opened one component at a time from "/" without
    // following a link (O_DIRECTORY | O_NOFOLLOW each); leaf is the last component. -1 (errno set)
    // when a folder on the way is missing (unless Make makes it, as the umask allows: a revert of
    // a deletion), is a link or is not a folder. The caller closes it.
    enum class Folders { MustExist, Make };
    static int openFolderOf(const QString &path, QByteArray *leaf, Folders folders = Folders::MustExist);
    // Replaces leaf in the open folder dir with bytes and mode: a new file beside it (O_EXCL, never
    // through a link), then renamed over it, all relative to dir.
    static Status replaceAt(int dir, const QByteArray &leaf, const QByteArray &bytes, int mode);

private:
    QString blobPath(const QString &sha256) const;
    void scan();

    QString m_dir;
    Limits m_limits;
    std::optional<qint64> m_total; // bytes in the store, once scanned
    QSet<QString> m_madeDirs;      // the shard folders made (or found) by this instance
    int m_keptSincePrune = 0;
    std::function<void(int, qint64)> m_dropped;
    qint64 m_fullSinceMs = 0; // when prune() last found nothing it could drop
};

} // namespace Countersign
