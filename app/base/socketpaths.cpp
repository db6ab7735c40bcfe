#include "socketpaths.h"

#include "canonicaljson.h"

#include <QDir>
#include <QFile>

#include <sys/stat.h>
#include <unistd.h>

namespace Countersign::SocketPaths {

namespace {

// A data folder's id in socket names.
QString folderId(const QString &dataDir)
{
    const QString absolute = QDir(dataDir).absolutePath();
    return QString::fromLatin1(CanonicalJson::sha256Hex(absolute.toUtf8()).left(16));
}

// A folder of this user that no one else can enter or write to.
bool isPrivateFolder(const QString &path)
{
    struct stat st = {};
    return !path.isEmpty() && ::lstat(QFile::encodeName(path).constData(), &st) == 0 && S_ISDIR(st.st_mode) &&
           st.st_uid == ::getuid() && (st.st_mode & 077) == 0;
}

// $XDG_RUNTIME_DIR when it is this user's and closed to others; else /tmp/countersign-<uid>, made
// 0700 (a socket path must stay under 108 bytes, which a data folder deep in a tree may not).
// Another user's or an open folder is never used: a listener there would receive the token.
QString socketFolder(const QString &)
{
    if (const QString runtime = qEnvironmentVariable("XDG_RUNTIME_DIR"); isPrivateFolder(runtime))
        return runtime;
    const QString own = QStringLiteral("/tmp/countersign-%1").arg(::getuid());
    ::mkdir(QFile::encodeName(own).constData(), 0700);
    return isPrivateFolder(own) ? own : QString();
}

} // namespace

QString console(const QString &dataDir)
{
    if (socketFolder(dataDir).isEmpty())
        return {};
    return QDir(socketFolder(dataDir)).filePath(QStringLiteral("countersign-%1.sock").arg(folderId(dataDir)));
}

QString bridge(const QString &dataDir)
{
    if (socketFolder(dataDir).isEmpty())
        return {};
    return QDir(socketFolder(dataDir))
        .filePath(QStringLiteral("countersign-%1-mcp.sock").arg(folderId(dataDir)));
}

} // namespace Countersign::SocketPaths
