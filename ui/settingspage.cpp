#include "settingspage.h"

#include "config.h"
#include "configfile.h"
#include "grantspanel.h"
#include "phonepanel.h"

#include <QComboBox>
#include <QDesktopServices>
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QFontDatabase>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QSpinBox>
#include <QUrl>
#include <QVBoxLayout>

namespace Countersign {

SettingsPage::SettingsPage(QWidget *parent) : QWidget(parent)
{
    const auto spin = [this](const char *name, int min, int max, const QString &suffix) {
        auto *s = new QSpinBox(this);
        s->setObjectName(QLatin1String(name));
        s->setRange(min, max);
        s->setSuffix(suffix);
        return s;
    };
    m_mode = new QComboBox(this);
    m_mode->setObjectName(QStringLiteral("settingMode"));
    m_mode->addItem(tr("Standard: ask when it matters (deletions, the network, secrets, installs...)"),
                    QStringLiteral("standard"));
    m_mode->addItem(tr("Strict: ask for everything that is not a read"), QStringLiteral("strict"));
    m_mode->setToolTip(
        tr("What the agents' own shell and edit tools may do with no card when no rule "
           "decides. Going back to Standard widens the policy: it waits for you to accept it."));
    m_ttl = spin("settingTtl", 1, 86400, tr(" s"));
    m_poll = spin("settingPollWindow", 1, 300, tr(" s"));
    m_port = spin("settingPort", 0, 65535, QString());
    m_phone = new QLineEdit(this);
    m_phone->setObjectName(QStringLiteral("settingPhone"));
    m_phone->setPlaceholderText(
        tr("off; to turn it on, this machine's address on your network, e.g. 192.168.1.20:8443"));
    m_phone->setToolTip(
        tr("Approve from my phone: an HTTPS listener on that address serves the phone page alone "
           "(never MCP). A phone must be paired here before it sees a card."));
    m_phonePanel = new PhonePanel(this);
    m_phonePanel->setObjectName(QStringLiteral("phonePanel"));
    m_grantsPanel = new GrantsPanel(this);
    m_grantsPanel->setObjectName(QStringLiteral("grantsPanel"));
    m_file = new QLineEdit(this);
    m_file->setObjectName(QStringLiteral("settingConfigFile"));
    m_file->setReadOnly(true);
    auto *save = new QPushButton(tr("Save to the configuration file"), this);
    save->setObjectName(QStringLiteral("saveSettings"));
    auto *open = new QPushButton(tr("Open the configuration file"), this);
    open->setObjectName(QStringLiteral("openConfigFile"));
    open->setToolTip(tr("Opens it in the editor your desktop uses for JSON; it is reloaded when saved."));
    connect(open, &QPushButton::clicked, this, &SettingsPage::openFile);
    m_message = new QLabel(this);
    m_message->setObjectName(QStringLiteral("settingsMessage"));
    m_message->setWordWrap(true);
    m_message->setTextFormat(Qt::PlainText);
    m_effective = new QPlainTextEdit(this);
    m_effective->setObjectName(QStringLiteral("effectiveSettings"));
    m_effective->setReadOnly(true);
    m_effective->setFont(QFontDatabase::systemFont(QFontDatabase::FixedFont));

    auto *form = new QFormLayout;
    form->addRow(tr("Agents' own tools"), m_mode);
    form->addRow(tr("Approval expires after (TTL)"), m_ttl);
    form->addRow(tr("Hold a retry for up to (poll window)"), m_poll);
    form->addRow(tr("Listen port on 127.0.0.1 (next start)"), m_port);
    form->addRow(tr("Approve from my phone at"), m_phone);
    form->addRow(QString(), m_phonePanel);
    form->addRow(tr("From now on"), m_grantsPanel);
    form->addRow(tr("Configuration file"), m_file);
    auto *layout = new QVBoxLayout(this);
    layout->addLayout(form);
    auto *buttons = new QHBoxLayout;
    buttons->addWidget(save);
    buttons->addWidget(open);
    buttons->addStretch(1);
    layout->addLayout(buttons);
    layout->addWidget(m_message);
    layout->addWidget(new QLabel(
        tr("Effective configuration and policy (actions and rules are edited in the file):"), this));
    layout->addWidget(m_effective, 1);
    connect(save, &QPushButton::clicked, this, &SettingsPage::save);
}

void SettingsPage::openFile()
{
    if (m_path.isEmpty())
        return;
    if (!QFileInfo::exists(m_path)) {
        // Nothing there yet (the defaults are in force): an empty object to start from.
        QDir().mkpath(QFileInfo(m_path).absolutePath());
        QFile file(m_path);
        if (!file.open(QIODevice::WriteOnly | QIODevice::NewOnly) || file.write("{\n}\n") < 0) {
            m_message->setText(tr("Cannot create %1: %2").arg(m_path, file.errorString()));
            return;
        }
        file.close();
        Q_EMIT fileWritten();
    }
    if (!QDesktopServices::openUrl(QUrl::fromLocalFile(m_path)))
        m_message->setText(tr("No application opened %1; open it in an editor yourself.").arg(m_path));
}

void SettingsPage::setConfig(const Config &config, const QString &configPath, const QString &effectiveText)
{
    m_path = configPath;
    m_modeInForce = gateModeName(config.mode());
    m_mode->setCurrentIndex(m_mode->findData(m_modeInForce));
    m_ttlInForce = config.ttlSeconds();
    m_pollInForce = config.pollWindowSeconds();
    m_portInForce = config.listenPort();
    m_phoneInForce = config.phoneHost().isEmpty()
                         ? QString()
                         : (config.phoneHost().contains(QLatin1Char(':')) ? QStringLiteral("[%1]:%2")
                                                                          : QStringLiteral("%1:%2"))
                               .arg(config.phoneHost())
                               .arg(config.phonePort());
    m_phone->setText(m_phoneInForce);
    m_ttl->setValue(config.ttlSeconds());
    m_poll->setValue(config.pollWindowSeconds());
    m_port->setValue(config.listenPort());
    m_file->setText(configPath);
    m_effective->setPlainText(effectiveText);
}

bool SettingsPage::save()
{
    // Only what the human changed is written: a key left alone keeps what the file says (or its
    // absence), whatever this instance was started with.
    nlohmann::json changes = nlohmann::json::object();
    if (m_ttl->value() != m_ttlInForce)
        changes["ttlSeconds"] = m_ttl->value();
    if (m_poll->value() != m_pollInForce)
        changes["pollWindowSeconds"] = m_poll->value();
    if (m_port->value() != m_portInForce)
        changes["listen"] = QStringLiteral("127.0.0.1:%1").arg(m_port->value()).toStdString();
    if (const QString phone = m_phone->text().trimmed(); phone != m_phoneInForce) {
        if (!phone.isEmpty()) {
            if (auto valid = Config::parsePhoneListen(phone); !valid) {
                m_message->setText(tr("Not saved: %1").arg(valid.error()));
                return false;
            }
        }
        changes["phone"] = phone.toStdString();
    }
    if (const QString mode = m_mode->currentData().toString(); mode != m_modeInForce)
        changes["mode"] = mode.toStdString();
    if (changes.empty()) {
        m_message->setText(tr("Nothing changed: nothing was written."));
        return true;
    }
    if (auto saved = ConfigFile::update(m_path, changes); !saved) {
        m_message->setText(tr("Not saved: %1").arg(saved.error()));
        return false;
    }
    Q_EMIT fileWritten();
    m_message->setText(
        tr("Saved to %1. The poll window, a shorter TTL and strict mode apply to new calls now; a longer "
           "TTL and standard mode once you accept them; the phone's address now; the port at the next start.")
            .arg(m_path));
    return true;
}

} // namespace Countersign
