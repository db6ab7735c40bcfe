#pragma once

#include "secretstore.h"

namespace Countersign {

// The OS keychain through QtKeychain (Secret Service on Linux). Each call runs one keychain job
// and waits for it in a local event loop, so it must not be used from a thread without one running
// freely (it is used once, at start-up). With no session bus the jobs fail at once, which is the
// caller's cue to fall back to a FileSecretStore.
class KeychainSecretStore final : public SecretStore
{
public:
    explicit KeychainSecretStore(QString service, int timeoutMs = 10'000)
        : m_service(std::move(service)), m_timeoutMs(timeoutMs)
    {
    }

    QString describe() const override;
    Result<std::optional<QByteArray>> read(const QString &name) override;
    Status write(const QString &name, const QByteArray &secret) override;

private:
    QString m_service;
    int m_timeoutMs;
};

} // namespace Countersign
