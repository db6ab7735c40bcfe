#include "keychainsecretstore.h"

#include <qt6keychain/keychain.h>

#include <QEventLoop>
#include <QTimer>

namespace Countersign {

namespace {

// Runs a job to its finished() signal, or gives up after timeoutMs (a keychain that shows an
// unlock prompt nobody answers must not hang the start-up forever).
bool runJob(QKeychain::Job &job, int timeoutMs)
{
    QEventLoop loop;
    bool finished = false;
    QObject::connect(&job, &QKeychain::Job::finished, &loop, [&] {
        finished = true;
        loop.quit();
    });
    QTimer::singleShot(timeoutMs, &loop, &QEventLoop::quit);
    job.setAutoDelete(false);
    job.start();
    if (!finished)
        loop.exec();
    return finished;
}

} // namespace

QString KeychainSecretStore::describe() const
{
    return QStringLiteral("the OS keychain");
}

Result<std::optional<QByteArray>> KeychainSecretStore::read(const QString &name)
{
    QKeychain::ReadPasswordJob job(m_service);
    job.setKey(name);
    if (!runJob(job, m_timeoutMs))
        return failure(QStringLiteral("the keychain did not answer within %1 s").arg(m_timeoutMs / 1000));
    if (job.error() == QKeychain::EntryNotFound)
        return std::optional<QByteArray>();
    if (job.error() != QKeychain::NoError)
        return failure(QStringLiteral("keychain error %1: %2").arg(job.error()).arg(job.errorString()));
    return std::optional<QByteArray>(job.binaryData());
}

Status KeychainSecretStore::write(const QString &name, const QByteArray &secret)
{
    QKeychain::WritePasswordJob job(m_service);
    job.setKey(name);
    job.setBinaryData(secret);
    if (!runJob(job, m_timeoutMs))
        return failure(QStringLiteral("the keychain did not answer within %1 s").arg(m_timeoutMs / 1000));
    if (job.error() != QKeychain::NoError)
        return failure(QStringLiteral("keychain error %1: %2").arg(job.error()).arg(job.errorString()));
    return success();
}

} // namespace Countersign
