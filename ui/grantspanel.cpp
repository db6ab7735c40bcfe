#include "grantspanel.h"

#include "grants.h"
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

constexpr int kIdRole = Qt::UserRole + 1;

} // namespace

GrantsPanel::GrantsPanel(QWidget *parent) : QWidget(parent)
{
    m_table = new QTableWidget(0, 4, this);
    m_table->setObjectName(QStringLiteral("grantsTable"));
    m_table->setHorizontalHeaderLabels({tr("From now on"), tr("What it covers"), tr("Until"), tr("Used")});
    m_table->horizontalHeader()->setSectionResizeMode(1, QHeaderView::Stretch);
    m_table->verticalHeader()->hide();
    m_table->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_table->setSelectionMode(QAbstractItemView::SingleSelection);
    m_table->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_table->setMaximumHeight(140);
    m_revoke = new QPushButton(tr("Revoke…"), this);
    m_revoke->setObjectName(QStringLiteral("revokeGrant"));
    m_revoke->setEnabled(false);
    m_message = new QLabel(this);
    m_message->setObjectName(QStringLiteral("grantsMessage"));
    m_message->setTextFormat(Qt::PlainText);
    m_message->setWordWrap(true);
    auto *buttons = new QHBoxLayout;
    buttons->addWidget(m_message, 1);
    buttons->addWidget(m_revoke);
    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(m_table);
    layout->addLayout(buttons);
    connect(m_table, &QTableWidget::itemSelectionChanged, this,
            [this] { m_revoke->setEnabled(!m_table->selectedItems().isEmpty()); });
    connect(m_revoke, &QPushButton::clicked, this, &GrantsPanel::revokeSelected);
    refresh();
}

void GrantsPanel::setGrants(Grants *grants, const QString &by)
{
    if (m_grants)
        disconnect(m_grants, nullptr, this, nullptr);
    m_grants = grants;
    m_by = by;
    if (m_grants)
        connect(m_grants, &Grants::changed, this, &GrantsPanel::refresh);
    refresh();
}

void GrantsPanel::refresh()
{
    m_table->setRowCount(0);
    const QList<Grant> live = m_grants ? m_grants->live() : QList<Grant>();
    m_message->setText(live.isEmpty() ? tr("No grant: use Allow or Deny from now on on a card.") : QString());
    for (const Grant &g : live) {
        const int row = m_table->rowCount();
        m_table->insertRow(row);
        const int uses = m_grants->uses(g);
        const QString until =
            g.expiresMs == 0
                ? tr("you revoke it")
                : QLocale().toString(QDateTime::fromMSecsSinceEpoch(g.expiresMs), QLocale::ShortFormat);
        const QStringList cells = {g.verdict == Verdict::Allow ? tr("Allow") : tr("Deny"),
                                   visibleText(g.describe()), until,
                                   uses < 0 ? tr("?") : QLocale().toString(uses)};
        for (int c = 0; c < cells.size(); ++c) {
            auto *item = new QTableWidgetItem(cells.at(c));
            item->setData(kIdRole, g.id);
            item->setToolTip(c == 1 ? tooltipText(visibleText(g.ruleText())) : QString());
            m_table->setItem(row, c, item);
        }
    }
    m_revoke->setEnabled(!m_table->selectedItems().isEmpty());
}

void GrantsPanel::revokeSelected()
{
    const auto selected = m_table->selectedItems();
    if (!m_grants || selected.isEmpty())
        return;
    const QString id = selected.first()->data(kIdRole).toString();
    const auto grant = m_grants->find(id);
    if (!grant)
        return refresh();
    auto *ask = new QMessageBox(
        QMessageBox::Question, tr("Revoke a grant"),
        tr("Revoke \"%1\"? The calls it covers ask again at once.").arg(visibleText(grant->describe())),
        QMessageBox::Cancel, this);
    ask->setObjectName(QStringLiteral("revokeGrantQuestion"));
    ask->setTextFormat(Qt::PlainText);
    auto *yes = ask->addButton(tr("Revoke"), QMessageBox::DestructiveRole);
    yes->setObjectName(QStringLiteral("confirmRevokeGrant"));
    ask->setAttribute(Qt::WA_DeleteOnClose);
    connect(yes, &QPushButton::clicked, this, [this, id] {
        if (auto revoked = m_grants->revoke(id, m_by); !revoked)
            m_message->setText(revoked.error());
    });
    ask->open();
}

} // namespace Countersign
