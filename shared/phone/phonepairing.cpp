#include "phonepairing.h"

#include "clock.h"

#include <QMessageAuthenticationCode>
#include <QRandomGenerator>

#include <sodium.h>

namespace Countersign {

namespace {

// Compares in time independent of where two strings differ, as the token store does.
bool sameSecret(const QString &a, const QString &b)
{
    const QByteArray x = a.toUtf8();
    const QByteArray y = b.toUtf8();
    return x.size() == y.size() &&
           sodium_memcmp(x.constData(), y.constData(), static_cast<size_t>(x.size())) == 0;
}

} // namespace

QString PhonePairing::randomSecret(int bytes)
{
    QByteArray raw(bytes, '\0');
    for (int i = 0; i < bytes; ++i)
        raw[i] = char(QRandomGenerator::system()->bounded(256));
    return QString::fromLatin1(raw.toBase64(QByteArray::Base64UrlEncoding | QByteArray::OmitTrailingEquals));
}

PhonePairing::PhonePairing(PhoneDevices &devices, const Clock &clock, QObject *parent)
    : QObject(parent), m_devices(devices), m_clock(clock)
{
}

QString PhonePairing::start()
{
    m_secret = randomSecret(16);
    m_secretExpiresMs = m_clock.nowMs() + kSecretLifetimeMs;
    m_wrongOffers = 0;
    m_usedSecret.clear();
    return m_secret;
}

void PhonePairing::stop()
{
    m_secret.clear();
    m_secretExpiresMs = 0;
    for (const QString &id : m_waiting.keys()) {
        m_ended.insert(id, State::Lapsed);
        Q_EMIT settled(id, false);
    }
    m_waiting.clear();
}

QString PhonePairing::secret() const
{
    return m_clock.nowMs() < m_secretExpiresMs ? m_secret : QString();
}

qint64 PhonePairing::secretLeftMs() const
{
    return secret().isEmpty() ? 0 : m_secretExpiresMs - m_clock.nowMs();
}

QString PhonePairing::refusal()
{
    return QStringLiteral(
        "this code opens no pairing on the desktop: it expired, was used, or is not the one "
        "it shows. Scan the code the desktop shows now");
}

QString PhonePairing::reuseRefusal()
{
    return QStringLiteral("another phone has already offered this code. If that was not this phone, "
                          "someone else read the code: tell the desktop to refuse, and pair again");
}

QString PhonePairing::code(const QString &secret, const QByteArray &publicKey)
{
    const QByteArray key = QByteArray::fromBase64(secret.toLatin1(), QByteArray::Base64UrlEncoding);
    const QByteArray mac = QMessageAuthenticationCode::hash(publicKey, key, QCryptographicHash::Sha256);
    const quint32 n = (quint32(quint8(mac[0])) << 24) | (quint32(quint8(mac[1])) << 16) |
                      (quint32(quint8(mac[2])) << 8) | quint32(quint8(mac[3]));
    const QString digits = QStringLiteral("%1").arg(n % 1'000'000, 6, 10, QLatin1Char('0'));
    return digits.left(3) + QLatin1Char(' ') + digits.mid(3);
}

void PhonePairing::expire()
{
    const qint64 now = m_clock.nowMs();
    if (now >= m_usedExpiresMs)
        m_usedSecret.clear();
    for (const QString &id : m_waiting.keys()) {
        if (now - m_waiting.value(id).offeredMs >= kConfirmWithinMs) {
            m_waiting.remove(id);
            m_ended.insert(id, State::Lapsed);
            Q_EMIT settled(id, false);
        }
    }
}

Result<PhonePairing::Offer> PhonePairing::offer(const QString &secret, const QString &name,
                                                const QByteArray &publicKey)
{
    expire();
    const QString current = this->secret();
    if (!m_usedSecret.isEmpty() && sameSecret(secret, m_usedSecret)) {
        Q_EMIT secretReused();
        return failure(reuseRefusal());
    }
    if (current.isEmpty() || !sameSecret(secret, current)) {
        Q_EMIT wrongOffer(++m_wrongOffers);
        return failure(refusal());
    }
    if (publicKey.size() != 65 || publicKey.at(0) != '\x04')
        return failure(QStringLiteral("the phone's key is not an uncompressed P-256 point"));
    if (PhoneDevices::pairingName(name).isEmpty())
        return failure(QStringLiteral("the phone needs a name"));
    // Used up: a second offer with it is refused, whatever comes of this one, and warned of.
    m_usedSecret = m_secret;
    m_usedExpiresMs = m_secretExpiresMs;
    m_secret.clear();
    m_secretExpiresMs = 0;
    Offer offer;
    offer.id = randomSecret(12);
    offer.code = code(secret, publicKey);
    offer.name = PhoneDevices::pairingName(name);
    offer.publicKey = publicKey;
    offer.offeredMs = m_clock.nowMs();
    m_waiting.insert(offer.id, offer);
    Q_EMIT offered(offer);
    return offer;
}

Result<PhoneDevice> PhonePairing::confirm(const QString &offerId)
{
    expire();
    if (!m_waiting.contains(offerId))
        return failure(
            QStringLiteral("this pairing is no longer waiting (refused, or not confirmed in time)"));
    const Offer offer = m_waiting.take(offerId);
    auto device = m_devices.add(offer.name, offer.publicKey);
    if (!device) {
        m_ended.insert(offerId, State::Refused);
        Q_EMIT settled(offerId, false);
        return device;
    }
    m_paired.insert(offerId, device.value().id);
    Q_EMIT settled(offerId, true);
    return device;
}

void PhonePairing::refuse(const QString &offerId)
{
    if (m_waiting.remove(offerId)) {
        m_ended.insert(offerId, State::Refused);
        Q_EMIT settled(offerId, false);
    }
}

PhonePairing::State PhonePairing::state(const QString &offerId, QString *deviceId) const
{
    const_cast<PhonePairing *>(this)->expire();
    if (m_paired.contains(offerId)) {
        if (deviceId)
            *deviceId = m_paired.value(offerId);
        return State::Paired;
    }
    if (m_waiting.contains(offerId))
        return State::Waiting;
    return m_ended.value(offerId, State::Unknown);
}

QList<PhonePairing::Offer> PhonePairing::waiting() const
{
    return m_waiting.values();
}

} // namespace Countersign
