#include "phonepanel.h"

#include "phonedevices.h"
#include "phonepairdialog.h"
#include "visibletext.h"

#include <QDateTime>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QMessageBox>
#include <QPushButton>
#include <QTableWidget>
#include <QVBoxLayout>

namespace Countersign {

namespace {

QString localTime(qint64 ms)
{
    return ms ? QDateTime::fromMSecsSinceEpoch(ms).toString(QStringLiteral("yyyy-MM-dd HH:mm")) : QString();
}

} // namespace

PhonePanel::PhonePanel(QWidget *parent) : QWidget(parent)
{
    m_status = new QLabel(this);
    m_status->setObjectName(QStringLiteral("phoneStatus"));
    m_status->setTextFormat(Qt::PlainText);
    m_status->setWordWrap(true);
    m_status->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_pair = new QPushButton(tr("Pa&ir a phone…"), this);
    m_pair->setObjectName(QStringLiteral("pairPhone"));
    m_revokeButton = new QPushButton(tr("Re&voke"), this);
    m_revokeButton->setObjectName(QStringLiteral("revokePhone"));
    m_table = new QTableWidget(0, 4, this);
    m_table->setObjectName(QStringLiteral("phoneDevices"));
    m_table->setHorizontalHeaderLabels({tr("Phone"), tr("Paired"), tr("Last used"), tr("State")});
    m_table->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_table->setSelectionMode(QAbstractItemView::SingleSelection);
    m_table->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_table->horizontalHeader()->setStretchLastSection(true);
    m_table->verticalHeader()->hide();
    auto *buttons = new QHBoxLayout;
    buttons->addWidget(m_pair);
    buttons->addWidget(m_revokeButton);
    buttons->addStretch(1);
    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(m_status);
    layout->addLayout(buttons);
    layout->addWidget(m_table);
    connect(m_pair, &QPushButton::clicked, this, &PhonePanel::pair);
    connect(m_revokeButton, &QPushButton::clicked, this, &PhonePanel::revokeSelected);
    setListening({}, {}, {});
}

void PhonePanel::setPhone(PhonePairing *pairing, PhoneDevices *devices, Revoke revoke)
{
    m_pairing = pairing;
    m_devices = devices;
    m_revoke = std::move(revoke);
    if (m_devices) // "Last used" follows the phone's requests
        connect(m_devices, &PhoneDevices::changed, this, &PhonePanel::refreshDevices, Qt::UniqueConnection);
    refreshDevices();
}

void PhonePanel::setListening(const QString &url, const QString &fingerprint, const QString &problem,
                              const QString &renewal)
{
    m_url = url;
    m_fingerprint = fingerprint;
    m_status->setText(!problem.isEmpty() ? problem
                      : url.isEmpty()
                          ? tr("Off. Give this machine's address on your network below (HOST:PORT) "
                               "and save to turn it on.")
                          : tr("On at %1 (certificate SHA-256 %2).").arg(url, fingerprint) +
                                (renewal.isEmpty() ? QString() : QLatin1Char('\n') + renewal));
    m_pair->setEnabled(!url.isEmpty() && m_pairing);
}

void PhonePanel::refreshDevices()
{
    // The device selected stays selected (a phone's use refreshes the table while a person picks).
    const QList<QTableWidgetItem *> selected = m_table->selectedItems();
    const QString selectedId = selected.isEmpty()
                                   ? QString()
                                   : m_table->item(selected.first()->row(), 0)->data(Qt::UserRole).toString();
    m_table->setRowCount(0);
    if (!m_devices)
        return;
    for (const PhoneDevice &d : m_devices->all()) {
        const int row = m_table->rowCount();
        m_table->insertRow(row);
        auto *name = new QTableWidgetItem(visibleText(d.name));
        name->setData(Qt::UserRole, d.id);
        m_table->setItem(row, 0, name);
        m_table->setItem(row, 1, new QTableWidgetItem(localTime(d.pairedMs)));
        m_table->setItem(row, 2, new QTableWidgetItem(d.lastUsedMs ? localTime(d.lastUsedMs) : tr("never")));
        m_table->setItem(row, 3,
                         new QTableWidgetItem(d.revoked() ? tr("revoked %1").arg(localTime(d.revokedMs))
                                                          : tr("may decide")));
        if (!selectedId.isEmpty() && d.id == selectedId)
            m_table->selectRow(row);
    }
    m_revokeButton->setEnabled(m_table->rowCount() > 0);
}

void PhonePanel::pair()
{
    if (!m_pairing || m_url.isEmpty())
        return;
    auto *dialog = new PhonePairDialog(*m_pairing, m_url, m_fingerprint, this);
    dialog->setAttribute(Qt::WA_DeleteOnClose);
    connect(dialog, &PhonePairDialog::paired, this, &PhonePanel::refreshDevices);
    dialog->open();
}

void PhonePanel::revokeSelected()
{
    const QList<QTableWidgetItem *> selected = m_table->selectedItems();
    if (selected.isEmpty() || !m_revoke)
        return;
    const QTableWidgetItem *name = m_table->item(selected.first()->row(), 0);
    const QString id = name->data(Qt::UserRole).toString();
    if (QMessageBox::question(this, tr("Revoke a phone"),
                              tr("Revoke %1? It can no longer see or decide cards; pairing it again makes a "
                                 "new key.")
                                  .arg(name->text())) != QMessageBox::Yes)
        return;
    if (auto revoked = m_revoke(id); !revoked)
        m_status->setText(tr("Not revoked: %1").arg(revoked.error()));
    refreshDevices();
}

} // namespace Countersign
