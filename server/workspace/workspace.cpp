#include "workspace.h"

#include "filepath.h"

#include <QDir>
#include <QFileInfo>

#include <sys/stat.h>

namespace Countersign {

Workspace::Workspace(const QStringList &roots)
{
    for (const QString &root : roots) {
        const QString canonical = QFileInfo(root).canonicalFilePath();
        if (!canonical.isEmpty() && QFileInfo(canonical).isDir()) {
            m_roots.append(canonical);
            m_configured.append(QDir::cleanPath(QFileInfo(root).absoluteFilePath()));
        }
    }
}

bool Workspace::inside(const QString &canonical) const
{
    for (const QString &root : m_roots) {
        if (canonical == root || canonical.startsWith(root + QLatin1Char('/')))
            return true;
    }
    return false;
}

QString Workspace::rootOf(const QString &resolved) const
{
    for (const QString &root : m_roots) {
        if (resolved == root || resolved.startsWith(root + QLatin1Char('/')))
            return root;
    }
    return {};
}

QStringList Workspace::spellings(const Workspace *ws, const QString &path)
{
    return ws ? ws->spellings(path) : Workspace(QStringList()).spellings(path);
}

QStringList Workspace::spellings(const QString &path) const
{
    auto resolved = resolve(path, Must::MayBeNewWithFolders);
    if (!resolved) {
        const QString absolute = FilePath::isAbsolute(path) || m_roots.isEmpty()
                                     ? path
                                     : m_roots.first() + QLatin1Char('/') + path;
        const QString leadsTo = canonicalOf(absolute);
        return leadsTo.isEmpty() ? QStringList() : QStringList{leadsTo};
    }
    const QString &first = m_roots.first();
    const QString &absolute = resolved.value();
    QStringList forms;
    if (absolute == first)
        forms.append(QStringLiteral("."));
    else if (absolute.startsWith(first + QLatin1Char('/')))
        forms.append(absolute.mid(first.size() + 1));
    forms.append(absolute);
    const QString root = rootOf(absolute);
    if (const QString &configured = m_configured[m_roots.indexOf(root)]; configured != root)
        forms.append(configured + absolute.mid(root.size()));
    return forms;
}

QString Workspace::canonicalOf(const QString &absolutePath)
{
    if (!FilePath::isAbsolute(absolutePath) || absolutePath.contains(QChar(0)) ||
        absolutePath.split(QLatin1Char('/')).contains(QStringLiteral("..")))
        return {};
    QString existing = QDir::cleanPath(absolutePath);
    QString rest;
    while (!QFileInfo::exists(existing) && !QFileInfo(existing).isSymLink()) {
        const qsizetype slash = existing.lastIndexOf(QLatin1Char('/'));
        if (slash <= 0)
            return {};
        rest = existing.mid(slash) + rest;
        existing = existing.left(slash);
    }
    const QString canonical = QFileInfo(existing).canonicalFilePath();
    return canonical.isEmpty() ? QString() : canonical + rest;
}

bool Workspace::confines(const QString &absolutePath) const
{
    const QString canonical = canonicalOf(absolutePath);
    return !canonical.isEmpty() && inside(canonical);
}

QStringList Workspace::missingFolders(const QString &resolved)
{
    QStringList missing;
    for (QString folder = QFileInfo(resolved).absolutePath();
         !QFileInfo::exists(folder) && folder != QLatin1String("/");
         folder = QFileInfo(folder).absolutePath())
        missing.prepend(folder);
    return missing;
}

Result<QString> Workspace::resolve(const QString &path, Must must) const
{
    if (m_roots.isEmpty())
        return failure(QStringLiteral("no workspace roots are configured (set workspaceRoots)"));
    if (path.isEmpty())
        return failure(QStringLiteral("the path is empty"));
    if (path.contains(QChar(0)))
        return failure(QStringLiteral("the path contains a NUL byte"));
    if (path.split(QLatin1Char('/')).contains(QStringLiteral("..")))
        return failure(QStringLiteral("\"..\" is not allowed in paths"));
    const QString absolute =
        QDir::cleanPath(FilePath::isAbsolute(path) ? path : m_roots.first() + QLatin1Char('/') + path);
    const QFileInfo info(absolute);
    QString canonical;
    if (info.exists() || info.isSymLink()) {
        canonical = info.canonicalFilePath();
        if (canonical.isEmpty())
            return failure(QStringLiteral("%1 is a broken symbolic link").arg(path));
    } else {
        if (must == Must::Exist)
            return failure(QStringLiteral("%1 does not exist").arg(path));
        // The nearest folder that exists, resolved; what is below it is new (no "..", no links).
        QString existing = info.absolutePath();
        QStringList below{info.fileName()};
        while (!QFileInfo(existing).exists() && !QFileInfo(existing).isSymLink() &&
               must == Must::MayBeNewWithFolders && existing != QLatin1String("/")) {
            below.prepend(QFileInfo(existing).fileName());
            const QString up = QFileInfo(existing).absolutePath();
            if (up == existing)
                return failure(QStringLiteral("the folder of %1 does not exist").arg(path));
            existing = up;
        }
        const QString parent = QFileInfo(existing).canonicalFilePath();
        if (parent.isEmpty() || !QFileInfo(parent).isDir())
            return failure(QStringLiteral("the folder of %1 does not exist").arg(path));
        canonical = parent + QLatin1Char('/') + below.join(QLatin1Char('/'));
    }
    if (!inside(canonical))
        return failure(QStringLiteral("%1 is outside the workspace roots (%2)")
                           .arg(path, m_roots.join(QStringLiteral(", "))));
    struct stat st;
    if (::lstat(QFile::encodeName(canonical).constData(), &st) == 0 && !S_ISREG(st.st_mode) &&
        !S_ISDIR(st.st_mode))
        return failure(
            QStringLiteral("%1 is not a regular file or folder (devices, sockets and pipes are refused)")
                .arg(path));
    return canonical;
}

} // namespace Countersign
