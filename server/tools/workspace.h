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

    enum class Must { Exist, MayBeNew };
    // The absolute, symlink-free path, or why it is refused. A new path's parent folder must exist.
    Result<QString> resolve(const QString &path, Must must) const;
    // True when an absolute path, whether or not it exists, would land inside a root once its
    // existing part is resolved (symbolic links followed). ".." components and NUL bytes never do.
    bool confines(const QString &absolutePath) const;
    // The root that holds an already resolved path.
    QString rootOf(const QString &resolved) const;

private:
    bool inside(const QString &canonical) const;

    QStringList m_roots; // canonical
};

} // namespace Countersign
