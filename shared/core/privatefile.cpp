#include "privatefile.h"

#include <QDir>
#include <QFileInfo>
#include <QSaveFile>

namespace Countersign {

Status writePrivate(const QString &path, const QByteArray &bytes)
{
    if (!QDir().mkpath(QFileInfo(path).absolutePath()))
        return failure(QStringLiteral("cannot create the folder of %1").arg(path));
    QSaveFile file(path);
    if (!file.open(QIODevice::WriteOnly))
        return failure(QStringLiteral("cannot write %1: %2").arg(path, file.errorString()));
    file.setPermissions(QFileDevice::ReadOwner | QFileDevice::WriteOwner);
    file.write(bytes);
    if (!file.commit())
        return failure(QStringLiteral("cannot write %1: %2").arg(path, file.errorString()));
    return success();
}

} // namespace Countersign
