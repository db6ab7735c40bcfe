#pragma once

#include "result.h"

#include <QByteArray>
#include <QString>

namespace Countersign {

class SecretStore;

// The server's two secrets: the ticket sealing key (XChaCha20-Poly1305) and the receipt signing
// seed (Ed25519). Made on first start and kept in a SecretStore.
struct ServerKeys final
{
    static constexpr const char *kTicketKeyName = "ticket-key";
    static constexpr const char *kSigningSeedName = "receipt-signing-seed";

    QByteArray ticketKey;   // 32 bytes
    QString kid;            // names the ticket key in sealed tickets
    QByteArray signingSeed; // 32 bytes
    QString storedIn;       // SecretStore::describe() of where they live
    QString warning;        // set when the fallback store had to be used, for the window and the log
    QString warningDetail;  // the underlying error, for stderr (the window shows only warning)

    // Reads (or makes and stores) both keys in primary; when primary cannot answer, uses fallback
    // and says so in warning. Fails when neither store works or a stored key is malformed.
    static Result<ServerKeys> load(SecretStore &primary, SecretStore *fallback);
};

} // namespace Countersign
