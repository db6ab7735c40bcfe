#pragma once

#include <QDialog>

class QLabel;
class QLineEdit;
class QPushButton;
class QTimer;

namespace Countersign {

class PhonePairing;

// Pairing a phone, on the desktop: a QR code with the phone page's URL and a one-time secret, the
// listener's certificate fingerprint (what the phone's browser warns about at the first visit), and
// how long the code lives. When a phone offers its key, the person types the six digits its page
// shows; Pair is possible only when they are this offer's (a leaked secret's offer carries another
// key, so other digits). Closing the dialog ends the pairing (the secret works no more).
class PhonePairDialog final : public QDialog
{
    Q_OBJECT
public:
    PhonePairDialog(PhonePairing &pairing, const QString &url, const QString &fingerprint,
                    QWidget *parent = nullptr);
    ~PhonePairDialog() override;
    Q_DISABLE_COPY_MOVE(PhonePairDialog)

Q_SIGNALS:
    void paired(const QString &deviceId);

private:
    void startOver();
    void tick();
    void showAlert();

    PhonePairing &m_pairing;
    QString m_url;
    QString m_offer;
    QString m_expected; // the offer's code, digits only
    QLineEdit *m_code = nullptr;
    QLabel *m_qr = nullptr;
    QLabel *m_link = nullptr;
    QLabel *m_left = nullptr;
    QLabel *m_question = nullptr;
    QLabel *m_alert = nullptr; // wrong codes offered, a code offered twice
    int m_wrong = 0;
    bool m_reused = false;
    QPushButton *m_confirm = nullptr;
    QPushButton *m_refuse = nullptr;
    QTimer *m_timer = nullptr;
};

} // namespace Countersign
