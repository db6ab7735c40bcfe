#pragma once

#include "phonedevices.h"
#include "result.h"

#include <QByteArray>
#include <QHash>
#include <QList>
#include <QObject>
#include <QString>

namespace Countersign {

class Clock;

// Pairing a phone, on the desktop's side. The window shows a QR code holding the phone page's URL
// and a one-time secret (start()). The page makes its key and offers it with the secret (offer()):
// the secret is then used up, whatever comes of the offer. Both screens show a short code derived
// from the secret and the device's public key; only when the human confirms on the desktop that the
// codes match (confirm()) is the device paired. A secret someone else read (the first visit
// intercepted) gives them at most an offer whose code differs from the one on the human's phone.
//
// Limits: a secret lives kSecretLifetimeMs; an offer not confirmed within kConfirmWithinMs lapses.
// Wrong secrets burn nothing (128 random bits living two minutes are not guessed, and a burn would
// let anyone on the network stop every pairing): each is counted for the dialog (wrongOffer), and
// every refused offer hears the same answer, whether or not a pairing is open. A used secret
// offered again warns the desktop (secretReused) and the phone that offered it: someone else read
// the code first. Main thread.
class PhonePairing final : public QObject
{
    Q_OBJECT
public:
    static constexpr qint64 kSecretLifetimeMs = 120'000;
    static constexpr qint64 kConfirmWithinMs = 120'000;

    // bytes from the system's secure random source, base64url without padding: the pairing's secret
    // and offers here, the phone listener's challenges.
    static QString randomSecret(int bytes);

    struct Offer final
    {
        QString id;
        QString code; // "123 456"
        QString name;
        QByteArray publicKey;
        qint64 offeredMs = 0;
    };
    enum class State { Unknown, Waiting, Paired, Refused, Lapsed };

    PhonePairing(PhoneDevices &devices, const Clock &clock, QObject *parent = nullptr);
    Q_DISABLE_COPY_MOVE(PhonePairing)

    // A new secret (128 random bits, base64url), replacing any earlier one.
    QString start();
    // The QR code closed: the secret works no more, and offers waiting lapse.
    void stop();
    // The secret in force, or empty.
    QString secret() const;
    qint64 secretExpiresMs() const { return m_secretExpiresMs; }
    // How long the secret in force still works (0: none works).
    qint64 secretLeftMs() const;

    Result<Offer> offer(const QString &secret, const QString &name, const QByteArray &publicKey);
    Result<PhoneDevice> confirm(const QString &offerId);
    void refuse(const QString &offerId);
    // What became of an offer; deviceId is set once it is paired.
    State state(const QString &offerId, QString *deviceId = nullptr) const;
    QList<Offer> waiting() const;

    // What a refused offer hears: the same words whatever the reason, so that they tell a stranger
    // nothing of whether a pairing is open.
    static QString refusal();
    // What a phone offering a used secret hears.
    static QString reuseRefusal();

    // The short code both screens show: HMAC-SHA256 keyed with the secret's bytes over the public
    // key, its first four bytes as a number mod 1,000,000, in two groups of three digits.
    static QString code(const QString &secret, const QByteArray &publicKey);

Q_SIGNALS:
    void offered(const Countersign::PhonePairing::Offer &offer);
    void settled(const QString &offerId, bool paired);
    // Offers with a wrong secret since start() (count of them).
    void wrongOffer(int count);
    // The secret of the offer waiting was offered again, with another key.
    void secretReused();

private:
    void expire();

    PhoneDevices &m_devices;
    const Clock &m_clock;
    QString m_secret;
    qint64 m_secretExpiresMs = 0;
    int m_wrongOffers = 0;
    QString m_usedSecret; // the secret of the latest offer, until it would have expired
    qint64 m_usedExpiresMs = 0;
    QHash<QString, Offer> m_waiting;
    QHash<QString, QString> m_paired; // offer → device
    QHash<QString, State> m_ended;    // refused or lapsed
};

} // namespace Countersign
