#include "filesecretstore.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QSaveFile>

namespace Countersign {

namespace {
constexpr auto kOwnerOnly = QFileDevice::ReadOwner | QFileDevice::WriteOwner;
constexpr auto kOthers = QFileDevice::ReadGroup | QFileDevice::WriteGroup | QFileDevice::ExeGroup |
                         QFileDevice::ReadOther | QFileDevice::WriteOther | QFileDevice::ExeOther;
} // namespace

QString FileSecretStore::describe() const
{
    return QStringLiteral("key files in %1").arg(QDir::toNativeSeparators(m_directory));
}

QString FileSecretStore::pathOf(const QString &name) const
{
    return QDir(m_directory).filePath(name + QStringLiteral(".key"));
}

Result<std::optional<QByteArray>> FileSecretStore::read(const QString &name)
{
    const QString path = pathOf(name);
    QFile file(path);
    if (!file.exists())
        return std::optional<QByteArray>();
    if (file.permissions() & kOthers)
        return failure(
            QStringLiteral("%1 can be read by other users; refusing to use it (chmod 600 it, or delete it "
                           "to make a new key)")
                .arg(path));
    if (!file.open(QIODevice::ReadOnly))
        return failure(QStringLiteral("cannot read %1: %2").arg(path, file.errorString()));
    const QByteArray decoded =
        QByteArray::fromBase64(file.readAll().trimmed(), QByteArray::AbortOnBase64DecodingErrors);
    if (decoded.isEmpty())
        return failure(QStringLiteral("%1 is not a key file (expected one base64 line)").arg(path));
    return std::optional<QByteArray>(decoded);
}

Status FileSecretStore::write(const QString &name, const QByteArray &secret)
{
    if (!QDir().mkpath(m_directory))
        return failure(QStringLiteral("cannot create %1").arg(m_directory));
    QFile::setPermissions(m_directory,
                          QFileDevice::ReadOwner | QFileDevice::WriteOwner | QFileDevice::ExeOwner);
    const QString path = pathOf(name);
    QSaveFile file(path);
    if (!file.open(QIODevice::WriteOnly))
        return failure(QStringLiteral("cannot write %1: %2").arg(path, file.errorString()));
    // The temporary file is made owner-only before the secret is written into it.
    if (!file.setPermissions(kOwnerOnly))
        return failure(QStringLiteral("cannot restrict the permissions of %1").arg(path));
    file.write(secret.toBase64() + '\n');
    if (!file.commit())
        return failure(QStringLiteral("cannot write %1: %2").arg(path, file.errorString()));
    return success();
}

} // namespace Countersign
