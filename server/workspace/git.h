#pragma once

#include <QByteArray>
#include <QString>
#include <QStringList>

namespace Countersign::Git {

// A unified diff of two texts (libgit2's patch from buffers), with "a/" and "b/" labels. An empty
// old text shows the whole new file as added; an empty new text the whole old file as removed.
QString unifiedDiff(const QString &path, const QByteArray &before, const QByteArray &after);

// What git knows about files that would be lost: those untracked or with uncommitted changes
// (staged or not), from the work tree that holds each of them. Files outside any git work tree
// are in neither list.
struct LossReport final
{
    QStringList untracked;
    QStringList uncommitted;
    QStringList ignored; // the untracked ones that .gitignore names (also in untracked)
    bool inWorkTree = false;

    // Git cannot bring the files back: outside a work tree, or some untracked or uncommitted.
    bool unrecoverable() const { return !inWorkTree || !untracked.isEmpty() || !uncommitted.isEmpty(); }
};
LossReport lossReport(const QStringList &absoluteFiles);

// The repository a git command started in a folder would use, found the way git finds it but
// never above the ceiling folders; every repository-level configuration key outside a short list of
// harmless ones (layout, identity, remotes' URLs, tracking branches), since the others could make a
// read-only git command run a program, fetch or read outside the repository; and whether objects are
// borrowed from elsewhere (alternates). When found is false, no repository holds the folder; error
// is set when one may, but cannot be read.
struct RepositoryCheck final
{
    bool found = false;
    // Where git reads from: the git dir, the common dir, the work tree, and the object store, refs,
    // packed refs and HEAD (each of which may be a symbolic link).
    QStringList folders;
    QStringList riskyKeys;
    bool borrowsObjects = false; // objects/info/alternates or http-alternates
    QString error;
};
RepositoryCheck inspectRepository(const QString &folder, const QStringList &ceilings);

// The uncommitted changes of tracked files (staged or not) a "git reset --hard" or "git checkout
// -- PATHS" would discard, against HEAD, in the repository that holds folder: a unified diff (at
// most maxDiffBytes of it) and, per file, the lines added and removed. paths (relative to folder)
// narrow it; none means every file. error is set when no repository or HEAD can be read.
struct FileChange final
{
    QString path; // relative to the work tree
    int added = 0;
    int removed = 0;
};
struct Uncommitted final
{
    QString diff;
    QList<FileChange> files;
    QString workTree; // absolute, links resolved: what the files' paths are relative to
    bool truncated = false;
    QString error;
};
Uncommitted uncommitted(const QString &folder, const QStringList &paths = {},
                        qsizetype maxDiffBytes = 256 * 1024);

// The stashes of the repository that holds folder, newest first: each one's message and what it
// holds against its base (files, lines added and removed). error is set when none can be read.
struct Stash final
{
    int index = 0;
    QString message;
    int files = 0;
    int added = 0;
    int removed = 0;
};
struct Stashes final
{
    QList<Stash> stashes;
    QString error;
};
Stashes stashes(const QString &folder);

// The commits of a local branch that no other branch (local or remote-tracking) reaches: what
// "git branch -D" loses. At most max subjects are listed; count counts them all (up to 10000).
struct BranchLoss final
{
    int count = 0;
    QStringList subjects;
    QString error;
};
BranchLoss branchLoss(const QString &folder, const QString &branch, int max = 10);

// What a forced push (or one that deletes a branch) would take from the remote, as far as this
// repository knows it: the commits of the remote-tracking branch REMOTE/BRANCH that the pushed
// commit (source, a revision) does not hold, or for a deletion that no local branch holds; and when
// that tracking branch was last updated here (its reflog's newest entry, else FETCH_HEAD's time).
// known is false when there is no such tracking branch (never fetched): nothing can be said then.
struct RemoteLoss final
{
    bool known = false;
    int count = 0;
    QStringList subjects;
    qint64 fetchedMs = 0; // 0: not known
    QString error;
};
RemoteLoss remoteLoss(const QString &folder, const QString &remote, const QString &branch,
                      const QString &source, bool deleting, int max = 10);
// The branch HEAD is on (empty when detached) and the remote its upstream is on ("origin" when it
// has none), as a push with no remote or refspec would use them.
struct Current final
{
    QString branch;
    QString remote;
    QString error;
};
Current current(const QString &folder);

// True when the first 8000 bytes hold a NUL byte (git's own test for binary content).
bool looksBinary(const QByteArray &bytes);

// One value of one git configuration file (its includes not followed), as git reads it; empty when
// the file or the key is missing or unreadable.
QString configValue(const QString &configFile, const QString &key);

} // namespace Countersign::Git
