#pragma once

#include "result.h"
#include "ticket.h"

#include <QByteArray>
#include <QString>

namespace Countersign {

// Seals tickets with XChaCha20-Poly1305 (libsodium, IETF construction) under one 32-byte key.
// The sealed form is "cs1.<kid>.<base64url(nonce || ciphertext)>"; the prefix and kid are bound as
// associated data, so neither can be swapped. open() refuses anything that does not authenticate,
// without saying why beyond "invalid", and never returns a partly trusted ticket.
class TicketSealer final
{
public:
    static constexpr int kKeyBytes = 32;
    static constexpr qsizetype kMaxSealedBytes = 4096;

    // key must be kKeyBytes long; kid names it (letters, digits, '-', '_'; 1-32 chars).
    TicketSealer(QByteArray key, QString kid);
    ~TicketSealer();
    Q_DISABLE_COPY_MOVE(TicketSealer)

    bool isValid() const { return m_valid; }
    QString kid() const { return m_kid; }

    // Stamps kid into the ticket and seals it.
    QString seal(Ticket ticket) const;
    Result<Ticket> open(const QString &sealed) const;

    static QByteArray generateKey();

private:
    QByteArray m_key;
    QString m_kid;
    bool m_valid = false;
};

} // namespace Countersign
