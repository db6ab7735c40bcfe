#include "ticketsealer.h"

#include "canonicaljson.h"

#include <nlohmann/json.hpp>
#include <sodium.h>

#include <QRegularExpression>

namespace Countersign {

namespace {

constexpr char kPrefix[] = "cs1";

QByteArray associatedData(const QString &kid)
{
    return QByteArray(kPrefix) + '.' + kid.toLatin1();
}

Error invalid()
{
    return failure(QStringLiteral("invalid or foreign requestState"));
}

} // namespace

TicketSealer::TicketSealer(QByteArray key, QString kid) : m_key(std::move(key)), m_kid(std::move(kid))
{
    static const QRegularExpression kidPattern(QStringLiteral("^[A-Za-z0-9_-]{1,32}$"));
    m_valid = sodium_init() >= 0 && m_key.size() == kKeyBytes && kidPattern.match(m_kid).hasMatch();
}

TicketSealer::~TicketSealer()
{
    sodium_memzero(m_key.data(), static_cast<size_t>(m_key.size()));
}

QByteArray TicketSealer::generateKey()
{
    QByteArray key(kKeyBytes, '\0');
    crypto_aead_xchacha20poly1305_ietf_keygen(reinterpret_cast<unsigned char *>(key.data()));
    return key;
}

QString TicketSealer::seal(Ticket ticket) const
{
    if (!m_valid)
        return {};
    ticket.kid = m_kid;
    const std::string plain = CanonicalJson::serialize(ticket.toJson());
    const QByteArray ad = associatedData(m_kid);
    QByteArray out(crypto_aead_xchacha20poly1305_ietf_NPUBBYTES + static_cast<qsizetype>(plain.size()) +
                       crypto_aead_xchacha20poly1305_ietf_ABYTES,
                   '\0');
    auto *nonce = reinterpret_cast<unsigned char *>(out.data());
    randombytes_buf(nonce, crypto_aead_xchacha20poly1305_ietf_NPUBBYTES);
    unsigned long long cipherLength = 0;
    crypto_aead_xchacha20poly1305_ietf_encrypt(
        nonce + crypto_aead_xchacha20poly1305_ietf_NPUBBYTES, &cipherLength,
        reinterpret_cast<const unsigned char *>(plain.data()), plain.size(),
        reinterpret_cast<const unsigned char *>(ad.constData()), static_cast<unsigned long long>(ad.size()),
        nullptr, nonce, reinterpret_cast<const unsigned char *>(m_key.constData()));
    return QString::fromLatin1(ad + '.' +
                               out.toBase64(QByteArray::Base64UrlEncoding | QByteArray::OmitTrailingEquals));
}

Result<Ticket> TicketSealer::open(const QString &sealed) const
{
    if (!m_valid || sealed.size() > kMaxSealedBytes)
        return invalid();
    const QByteArray bytes = sealed.toLatin1();
    const QByteArray ad = associatedData(m_kid);
    if (!bytes.startsWith(ad + '.'))
        return invalid();
    const auto decoded = QByteArray::fromBase64Encoding(
        bytes.mid(ad.size() + 1), QByteArray::Base64UrlEncoding | QByteArray::OmitTrailingEquals |
                                      QByteArray::AbortOnBase64DecodingErrors);
    const qsizetype overhead =
        crypto_aead_xchacha20poly1305_ietf_NPUBBYTES + crypto_aead_xchacha20poly1305_ietf_ABYTES;
    if (!decoded || decoded.decoded.size() <= overhead)
        return invalid();
    const auto *nonce = reinterpret_cast<const unsigned char *>(decoded.decoded.constData());
    const auto *cipher = nonce + crypto_aead_xchacha20poly1305_ietf_NPUBBYTES;
    const auto cipherLength = static_cast<unsigned long long>(decoded.decoded.size() -
                                                              crypto_aead_xchacha20poly1305_ietf_NPUBBYTES);
    QByteArray plain(static_cast<qsizetype>(cipherLength), '\0');
    unsigned long long plainLength = 0;
    if (crypto_aead_xchacha20poly1305_ietf_decrypt(
            reinterpret_cast<unsigned char *>(plain.data()), &plainLength, nullptr, cipher, cipherLength,
            reinterpret_cast<const unsigned char *>(ad.constData()),
            static_cast<unsigned long long>(ad.size()), nonce,
            reinterpret_cast<const unsigned char *>(m_key.constData())) != 0)
        return invalid();
    plain.resize(static_cast<qsizetype>(plainLength));
    const nlohmann::json value = nlohmann::json::parse(plain.toStdString(), nullptr, false);
    auto ticket = Ticket::fromJson(value);
    if (!ticket || ticket.value().kid != m_kid)
        return invalid();
    return ticket;
}

} // namespace Countersign
