#include "receipt.h"

#include "canonicaljson.h"

#include <sodium.h>

namespace Countersign {

namespace {
using json = nlohmann::json;
constexpr const char *kAlg = "Ed25519";
} // namespace

ReceiptSigner::ReceiptSigner(const QByteArray &seed)
{
    m_publicKey.resize(crypto_sign_PUBLICKEYBYTES);
    m_secretKey.resize(crypto_sign_SECRETKEYBYTES);
    if (sodium_init() < 0 || seed.size() != crypto_sign_SEEDBYTES)
        qFatal("ReceiptSigner: libsodium unavailable or seed of the wrong size");
    crypto_sign_seed_keypair(reinterpret_cast<unsigned char *>(m_publicKey.data()),
                             reinterpret_cast<unsigned char *>(m_secretKey.data()),
                             reinterpret_cast<const unsigned char *>(seed.constData()));
}

ReceiptSigner::~ReceiptSigner()
{
    sodium_memzero(m_secretKey.data(), static_cast<size_t>(m_secretKey.size()));
}

json ReceiptSigner::sign(json body) const
{
    body.erase("signature");
    body["alg"] = kAlg;
    body["publicKey"] = m_publicKey.toBase64().toStdString();
    const std::string message = CanonicalJson::serialize(body);
    unsigned char signature[crypto_sign_BYTES];
    crypto_sign_detached(signature, nullptr, reinterpret_cast<const unsigned char *>(message.data()),
                         message.size(), reinterpret_cast<const unsigned char *>(m_secretKey.constData()));
    body["signature"] =
        QByteArray(reinterpret_cast<const char *>(signature), crypto_sign_BYTES).toBase64().toStdString();
    return body;
}

Status ReceiptSigner::verify(const json &receipt, const QByteArray &trustedKey)
{
    if (sodium_init() < 0)
        return failure(QStringLiteral("libsodium failed to initialise"));
    if (!receipt.is_object())
        return failure(QStringLiteral("not a receipt: expected a JSON object"));
    const auto field = [&](const char *key) -> std::optional<QByteArray> {
        const auto it = receipt.find(key);
        if (it == receipt.end() || !it->is_string())
            return std::nullopt;
        return QByteArray::fromStdString(it->get<std::string>());
    };
    if (field("alg") != QByteArray(kAlg))
        return failure(QStringLiteral("not a receipt: alg must be Ed25519"));
    const auto key = field("publicKey");
    const auto sig = field("signature");
    if (!key || !sig)
        return failure(QStringLiteral("not a receipt: publicKey and signature are required"));
    const QByteArray publicKey = QByteArray::fromBase64(*key, QByteArray::AbortOnBase64DecodingErrors);
    const QByteArray signature = QByteArray::fromBase64(*sig, QByteArray::AbortOnBase64DecodingErrors);
    if (publicKey.size() != crypto_sign_PUBLICKEYBYTES || signature.size() != crypto_sign_BYTES)
        return failure(QStringLiteral("not a receipt: malformed publicKey or signature"));
    json body = receipt;
    body.erase("signature");
    const std::string message = CanonicalJson::serialize(body);
    if (crypto_sign_verify_detached(reinterpret_cast<const unsigned char *>(signature.constData()),
                                    reinterpret_cast<const unsigned char *>(message.data()), message.size(),
                                    reinterpret_cast<const unsigned char *>(publicKey.constData())) != 0)
        return failure(
            QStringLiteral("the signature does not match: the receipt was altered or not signed by its key"));
    if (trustedKey.size() != crypto_sign_PUBLICKEYBYTES ||
        sodium_memcmp(trustedKey.constData(), publicKey.constData(), crypto_sign_PUBLICKEYBYTES) != 0)
        return failure(
            QStringLiteral("the signature is valid, but the receipt was signed by key %1, which is not the "
                           "trusted key")
                .arg(QString::fromLatin1(*key)));
    return success();
}

QString ReceiptSigner::resultDigest(nlohmann::json result)
{
    if (result.is_object()) {
        if (const auto type = result.find("resultType"); type != result.end() && *type == "complete")
            result.erase(type);
        const auto meta = result.find("_meta");
        if (meta != result.end() && meta->is_object()) {
            meta->erase(kResultMetaKey);
            meta->erase(kServerInfoMetaKey);
            if (meta->empty())
                result.erase("_meta");
        }
    }
    return QString::fromLatin1(CanonicalJson::digest(result));
}

} // namespace Countersign
