#pragma once

#include <QWidget>

class QLabel;
class QLineEdit;
class QPlainTextEdit;
class QComboBox;
class QSpinBox;

namespace Countersign {

class Config;
class GrantsPanel;
class PhonePanel;

// TTL, poll window and listen port, saved into the configuration file (its comments kept; the
// file is reloaded on save, the port takes effect at the next start), a button that opens the file,
// and the effective configuration and policy, read-only.
class SettingsPage final : public QWidget
{
    Q_OBJECT
public:
    explicit SettingsPage(QWidget *parent = nullptr);
    Q_DISABLE_COPY_MOVE(SettingsPage)

    void setConfig(const Config &config, const QString &configPath, const QString &effectiveText);
    // Writes the fields into the configuration file; false (and the reason shown) when refused.
    bool save();
    // Opens the configuration file with the desktop's application for it (made first, as an empty
    // object, when it does not exist yet).
    void openFile();
    // Approve from my phone: pairing and the paired phones (the address is a field of this page).
    PhonePanel *phonePanel() const { return m_phonePanel; }
    // From now on: the grants made from cards, each revocable.
    GrantsPanel *grantsPanel() const { return m_grantsPanel; }

Q_SIGNALS:
    // The page wrote the configuration file (saved, or made to open): read it now, through the guard.
    void fileWritten();

private:
    QString m_path;
    QComboBox *m_mode = nullptr;
    QString m_modeInForce; // written only when the human changes it
    int m_ttlInForce = 0;  // each key is written only when the human changed it
    int m_pollInForce = 0;
    int m_portInForce = 0;
    QString m_phoneInForce;
    QSpinBox *m_ttl = nullptr;
    QSpinBox *m_poll = nullptr;
    QSpinBox *m_port = nullptr;
    QLineEdit *m_phone = nullptr;
    PhonePanel *m_phonePanel = nullptr;
    GrantsPanel *m_grantsPanel = nullptr;
    QLineEdit *m_file = nullptr;
    QLabel *m_message = nullptr;
    QPlainTextEdit *m_effective = nullptr;
};

} // namespace Countersign
