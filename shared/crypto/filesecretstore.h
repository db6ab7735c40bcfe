#pragma once

#include "secretstore.h"

namespace Countersign {

// Secrets as files <directory>/<name>.key, readable by the owner only (0600). A file that others
// can read is refused rather than used: the key may have leaked.
class FileSecretStore final : public SecretStore
{
public:
    explicit FileSecretStore(QString directory) : m_directory(std::move(directory)) {}

    QString describe() const override;
    Result<std::optional<QByteArray>> read(const QString &name) override;
    Status write(const QString &name, const QByteArray &secret) override;

private:
    QString pathOf(const QString &name) const;

    QString m_directory;
};

} // namespace Countersign
