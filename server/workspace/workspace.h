#pragma once

#include "result.h"

#include <QString>
#include <QStringList>

namespace Countersign {

// The folders the workspace tools may touch (the configuration's workspaceRoots). Every path an
// agent names is resolved and confined here before anything reads or writes it: NUL bytes and ".."
// components are refused, relative paths are taken from the first root, symbolic links are
// resolved and must stay inside a root, and only regular files and folders are accepted.
class Workspace final
{
public:
    explicit Workspace(const QStringList &roots);

    bool isEmpty() const { return m_roots.isEmpty(); }
    const QStringList &roots() const { return m_roots; }

    // Exist: the path must exist. MayBeNew: it may be new, its parent folder must exist.
    // MayBeNewWithFolders: it may be new, and so may folders above it (inside a root).
    enum class Must { Exist, MayBeNew, MayBeNewWithFolders };
    // The absolute, symlink-free path (its existing part resolved), or why it is refused.
    Result<QString> resolve(const QString &path, Must must) const;
    // The folders above a resolved path that do not exist yet, outermost first.
    static QStringList missingFolders(const QString &resolved);
    // True when an absolute path, whether or not it exists, would land inside a root once its
    // existing part is resolved (symbolic links followed). ".." components and NUL bytes never do.
    bool confines(const QString &absolutePath) const;
    // The root that holds an already resolved path.
    QString rootOf(const QString &resolved) const;
    // How the rules see a path an agent named (PathSpellings): resolved as resolve() does (it may
    // be new), relative to the first root when inside it ("." for the root itself), absolute, and
    // absolute under the root as configured when that is a link to it. A path resolve() refuses
    // (or any, with no roots) is spelled only as where it leads (canonicalOf), or not at all: an
    // allow rule then never matches it. ws may be null (no roots).
    QStringList spellings(const QString &path) const;
    static QStringList spellings(const Workspace *ws, const QString &path);
    // An absolute path with its existing part resolved (links followed) and the rest as written;
    // empty when nothing of it exists or it holds "..".
    static QString canonicalOf(const QString &absolutePath);

private:
    bool inside(const QString &canonical) const;

    QStringList m_roots;      // canonical
    QStringList m_configured; // as configured, one per canonical root
};

} // namespace Countersign
