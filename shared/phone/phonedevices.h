#pragma once

#include "result.h"

#include <QByteArray>
#include <QList>
#include <QObject>
#include <QString>

#include <optional>

namespace Countersign {

class AuditStore;
class Clock;

// A phone paired to approve from: its name, and the public half of the ECDSA P-256 key its browser
// made (WebCrypto, not extractable) and signs each request and decision with.
struct PhoneDevice final
{
    QString id;           // random, 16 hex characters
    QString name;         // as the person named it when pairing; shown as phone:<name>
    QByteArray publicKey; // the uncompressed point, 65 bytes (0x04 || x || y)
    qint64 pairedMs = 0;
    qint64 lastUsedMs = 0; // its last authenticated request (0: none yet)
    qint64 revokedMs = 0;  // 0 while it may act
    bool revoked() const { return revokedMs != 0; }
};

// The paired devices, kept in DATA/phone/devices.json (readable by the user alone), read once and
// written whole on each change. A file that cannot be read is refused, never taken as "no devices"
// (and never overwritten). Each pairing and revocation is also an event of the audit chain
// ("phone-paired", "phone-revoked", under "phone:<id>"), and a device may act only while the chain
// holds its pairing, with this key and name, and no revocation (vouched()): a device another process
// wrote into the file, or a revocation it took out of it, counts for nothing. Main thread.
class PhoneDevices final : public QObject
{
    Q_OBJECT
public:
    static constexpr int kMaxDevices = 32;
    static constexpr int kMaxNameLength = 40;

    PhoneDevices(QString path, const Clock &clock, AuditStore &chain, QObject *parent = nullptr);
    Q_DISABLE_COPY_MOVE(PhoneDevices)

    Status load();
    const QList<PhoneDevice> &all() const { return m_devices; }
    std::optional<PhoneDevice> find(const QString &id) const;
    // The name cleaned for display (control and invisible characters out, trimmed, at most
    // kMaxNameLength); refused when nothing is left, or when kMaxDevices are paired and not revoked.
    Result<PhoneDevice> add(const QString &name, const QByteArray &publicKey);
    Status revoke(const QString &id);
    // The chain holds a revocation this list did not know of (another process revoked the device):
    // kept in the list and the file too, so that neither shows it as one that may decide.
    void noteRevoked(const QString &id, qint64 revokedMs);
    // Notes a request of the device (written at most once a minute).
    void touch(const QString &id);
    // The device if it may act: in the file, not revoked there, and its pairing (this key, this
    // name) and no revocation in the audit chain.
    std::optional<PhoneDevice> vouched(const QString &id);

    // A name as kept and shown: spaces simplified, controls and invisible formatting removed, at
    // most kMaxNameLength.
    static QString cleanName(const QString &name);
    // Where a data folder keeps them: DATA/phone/devices.json.
    static QString pathIn(const QString &dataDir);
    // The name a phone offers when it pairs, stricter (names paired earlier keep the name their
    // pairing recorded): compatibility forms folded, then letters, spaces and . - ' only.
    static QString pairingName(const QString &offered);

Q_SIGNALS:
    // A device was added, revoked or used (its last use noted): for the Settings page.
    void changed();

private:
    Status save() const;

    QString m_path;
    const Clock &m_clock;
    AuditStore &m_chain;
    bool m_unreadable = false; // the file could not be read: it is never written over
    QList<PhoneDevice> m_devices;
};

} // namespace Countersign
