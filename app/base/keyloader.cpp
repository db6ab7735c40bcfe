#include "keyloader.h"

#include "config.h"
#include "filesecretstore.h"
#include "keychainsecretstore.h"
#include "receipt.h"

#include <QDir>
#include <QFile>
#include <QSaveFile>

namespace Countersign {

QString receiptPublicKeyPath(const QString &dataDir)
{
    return QDir(dataDir).filePath(QStringLiteral("receipt-public-key"));
}

Result<ServerKeys> loadServerKeys(const Config &config, const QString &dataDir)
{
    FileSecretStore files(QDir(dataDir).filePath(QStringLiteral("keys")));
    // One keychain entry set per data folder, so two installations never share a key.
    KeychainSecretStore keychain(QStringLiteral("Countersign %1").arg(QDir(dataDir).absolutePath()));
    auto keys = config.keysInFile() ? ServerKeys::load(files, nullptr) : ServerKeys::load(keychain, &files);
    if (!keys)
        return keys;
    const ReceiptSigner signer(keys.value().signingSeed);
    const QByteArray published = signer.publicKey().toBase64() + '\n';
    if (QFile current(receiptPublicKeyPath(dataDir));
        current.open(QIODevice::ReadOnly) && current.readAll() == published)
        return keys;
    QSaveFile pub(receiptPublicKeyPath(dataDir));
    if (!pub.open(QIODevice::WriteOnly) || pub.write(published) < 0 || !pub.commit())
        return failure(
            QStringLiteral("cannot write %1: %2").arg(receiptPublicKeyPath(dataDir), pub.errorString()));
    return keys;
}

} // namespace Countersign
