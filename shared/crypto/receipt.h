#pragma once

#include "result.h"

#include <nlohmann/json.hpp>

#include <QByteArray>

namespace Countersign {

// Signed receipts (docs/design.md, step 8): a JSON object whose "signature" is an Ed25519 signature
// (base64) over the canonical JSON of every other member, "publicKey" (base64) included.
class ReceiptSigner final
{
public:
    // seed: the 32-byte Ed25519 seed from ServerKeys.
    explicit ReceiptSigner(const QByteArray &seed);
    ~ReceiptSigner();
    Q_DISABLE_COPY_MOVE(ReceiptSigner)

    // Where a complete tool result carries its receipt: result._meta[kResultMetaKey].
    static constexpr const char *kResultMetaKey = "dev.countersign/receipt";
    // The dispatcher's _meta key for the server's name and version on every result.
    static constexpr const char *kServerInfoMetaKey = "io.modelcontextprotocol/serverInfo";

    QByteArray publicKey() const { return m_publicKey; }
    // Adds "alg", "publicKey" and "signature" to body.
    nlohmann::json sign(nlohmann::json body) const;

    // Checks the signature against the receipt's own publicKey, and that key against trustedKey
    // (raw 32 bytes). Reports what is wrong in words.
    static Status verify(const nlohmann::json &receipt, const QByteArray &trustedKey);
    // The receipt's resultDigest of a tool result, as the tool produced it or as a client received
    // it: hex SHA-256 of the canonical JSON of the result less its receipt (_meta[kResultMetaKey]),
    // less the framing the dispatcher adds on the way out (resultType "complete",
    // _meta[kServerInfoMetaKey]), and less _meta when nothing else is in it. The gate signs it and
    // a verifier recomputes it from the whole result it was handed: one definition for both.
    static QString resultDigest(nlohmann::json result);

private:
    QByteArray m_publicKey;
    QByteArray m_secretKey;
};

} // namespace Countersign
