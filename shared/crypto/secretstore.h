#pragma once

#include "result.h"

#include <QByteArray>
#include <QString>

#include <optional>

namespace Countersign {

// Where the server's secret keys live (the ticket sealing key, the receipt signing seed). The OS
// keychain in the app, a 0600 file where no keychain answers, an in-memory fake in tests. Calls
// are synchronous; they happen once at start-up.
class SecretStore
{
public:
    virtual ~SecretStore() = default;
    // For messages: "the OS keychain", "key file /path".
    virtual QString describe() const = 0;
    // No value (nullopt) when nothing is stored under name; an Error when the store cannot answer.
    virtual Result<std::optional<QByteArray>> read(const QString &name) = 0;
    virtual Status write(const QString &name, const QByteArray &secret) = 0;
};

} // namespace Countersign
