#include "serverkeys.h"

#include "canonicaljson.h"
#include "secretstore.h"
#include "ticketsealer.h"

#include <sodium.h>

namespace Countersign {

namespace {

Result<QByteArray> readOrCreate(SecretStore &store, const char *name, int size)
{
    auto stored = store.read(QLatin1String(name));
    if (!stored)
        return failure(stored.error());
    if (stored.value()) {
        if (stored.value()->size() != size)
            return failure(QStringLiteral("the %1 in %2 has the wrong length")
                               .arg(QLatin1String(name), store.describe()));
        return *stored.value();
    }
    QByteArray fresh(size, '\0');
    randombytes_buf(fresh.data(), static_cast<size_t>(size));
    if (auto written = store.write(QLatin1String(name), fresh); !written)
        return failure(written.error());
    return fresh;
}

Result<ServerKeys> loadFrom(SecretStore &store)
{
    auto ticketKey = readOrCreate(store, ServerKeys::kTicketKeyName, TicketSealer::kKeyBytes);
    if (!ticketKey)
        return failure(ticketKey.error());
    auto seed = readOrCreate(store, ServerKeys::kSigningSeedName, crypto_sign_SEEDBYTES);
    if (!seed)
        return failure(seed.error());
    ServerKeys keys;
    keys.ticketKey = ticketKey.value();
    keys.signingSeed = seed.value();
    // The kid names the key without revealing it: a prefix of its hash.
    keys.kid = QString::fromLatin1(CanonicalJson::sha256Hex(keys.ticketKey).left(12));
    keys.storedIn = store.describe();
    return keys;
}

} // namespace

Result<ServerKeys> ServerKeys::load(SecretStore &primary, SecretStore *fallback)
{
    if (sodium_init() < 0)
        return failure(QStringLiteral("libsodium failed to initialise"));
    // Keys once made in the fallback stay there, so tickets and receipts keep one key across runs.
    if (fallback) {
        if (auto existing = fallback->read(QLatin1String(kTicketKeyName)); existing && existing.value()) {
            auto kept = loadFrom(*fallback);
            if (kept)
                kept.value().warning = QStringLiteral("Keys are kept in %1, readable only by you, not in %2.")
                                           .arg(fallback->describe(), primary.describe());
            return kept;
        }
    }
    auto keys = loadFrom(primary);
    if (keys || !fallback)
        return keys;
    auto second = loadFrom(*fallback);
    if (!second)
        return failure(QStringLiteral("%1; and %2").arg(keys.error(), second.error()));
    second.value().warning =
        QStringLiteral(
            "No keychain answered in this session, so the keys are kept in %1, readable only by you.")
            .arg(fallback->describe());
    second.value().warningDetail = QStringLiteral("%1: %2").arg(primary.describe(), keys.error());
    return second;
}

} // namespace Countersign
