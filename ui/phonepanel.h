#pragma once

#include "result.h"

#include <QWidget>

#include <functional>

class QLabel;
class QPushButton;
class QTableWidget;

namespace Countersign {

class PhoneDevices;
class PhonePairing;

// The Settings page's "Approve from my phone": whether the listener runs and where, Pair a phone
// (PhonePairDialog), and the paired phones with their last use and Revoke (which asks first).
class PhonePanel final : public QWidget
{
    Q_OBJECT
public:
    using Revoke = std::function<Status(const QString &deviceId)>;

    explicit PhonePanel(QWidget *parent = nullptr);
    Q_DISABLE_COPY_MOVE(PhonePanel)

    void setPhone(PhonePairing *pairing, PhoneDevices *devices, Revoke revoke);
    // The listener's URL (empty: off), its certificate's fingerprint, or why it is off.
    // renewal: the certificate was made again, in words (both fingerprints); empty when kept.
    void setListening(const QString &url, const QString &fingerprint, const QString &problem,
                      const QString &renewal = {});
    void refreshDevices();
    // Opens the pairing dialog (what Pair a phone does).
    void pair();

private:
    void revokeSelected();

    PhonePairing *m_pairing = nullptr;
    PhoneDevices *m_devices = nullptr;
    Revoke m_revoke;
    QString m_url;
    QString m_fingerprint;
    QLabel *m_status = nullptr;
    QPushButton *m_pair = nullptr;
    QPushButton *m_revokeButton = nullptr;
    QTableWidget *m_table = nullptr;
};

} // namespace Countersign
