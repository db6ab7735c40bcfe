#pragma once

#include "result.h"

#include <QObject>
#include <QString>

#include <memory>

namespace Countersign {

class ApprovalQueue;
class CardNotifier;
class CardSightings;
class Grants;
class AuditStore;
class Clock;
class Config;
class PhoneDevices;
class PhonePairing;
class PhoneServer;

// "Approve from my phone", as the console runs it: the paired devices, the pairing, and the phone
// listener (PhoneServer), started when the configuration names an address (key "phone") and
// stopped or moved when it changes. The window reads devices() and pairing(); a device it revokes
// loses its open streams at once (revoked()). Main thread.
class PhoneApprovals final : public QObject
{
    Q_OBJECT
public:
    PhoneApprovals(ApprovalQueue &queue, AuditStore &audit, const Clock &clock, const QString &dataDir,
                   QObject *parent = nullptr);
    ~PhoneApprovals() override;
    Q_DISABLE_COPY_MOVE(PhoneApprovals)

    // Follows the configuration: off, on, or on another address. A failure (the address is not
    // this machine's, the port is taken) leaves the listener off and says why.
    Status apply(const Config &config);
    // https://HOST:PORT/ while listening, else empty.
    QString url() const;
    QString fingerprint() const { return m_fingerprint; }
    // The certificate was made again at this start (another address, or expired): both
    // fingerprints, in words; empty when it was kept.
    QString renewal() const { return m_renewal; }
    // Why the listener is off although the configuration names an address (empty otherwise).
    QString problem() const { return m_problem; }
    PhoneDevices &devices() { return *m_devices; }
    // Where the phone's page notes the cards it shows while visible (PhoneServer::setSightings);
    // a card unseen a while is also told to the configuration's notifyUrl (CardNotifier), with
    // this page's address.
    void setSightings(CardSightings *sightings);
    // The grants the phone lists and may revoke (PhoneServer::setGrants).
    void setGrants(Grants *grants);
    PhonePairing &pairing() { return *m_pairing; }
    // Revokes a device and ends what it has open.
    Status revoke(const QString &deviceId);

Q_SIGNALS:
    // The listener started, stopped or failed (problem set).
    void changed(const QString &url, const QString &problem);

private:
    ApprovalQueue &m_queue;
    AuditStore &m_audit;
    const Clock &m_clock;
    QString m_folder;
    std::unique_ptr<PhoneDevices> m_devices;
    std::unique_ptr<PhonePairing> m_pairing;
    std::unique_ptr<PhoneServer> m_server;
    CardSightings *m_sightings = nullptr;
    CardNotifier *m_notifier = nullptr;
    Grants *m_grants = nullptr;
    QString m_listening; // HOST:PORT in force
    QString m_fingerprint;
    QString m_renewal;
    QString m_problem;
    qint64 m_cardMinimumMs = 0; // the configuration's cardMinimumSeconds
};

} // namespace Countersign
