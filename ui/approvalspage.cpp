#include "approvalspage.h"

#include "approvalcard.h"
#include "approvalqueue.h"
#include "cardface.h"
#include "riskstyle.h"
#include "themecolours.h"

#include <QApplication>
#include <QComboBox>
#include <QHBoxLayout>
#include <QInputDialog>
#include <QLabel>
#include <QLineEdit>
#include <QListWidget>
#include <QPushButton>
#include <QSplitter>
#include <QStackedWidget>
#include <QStyle>
#include <QVBoxLayout>

#include <algorithm>

namespace Countersign {

namespace {

constexpr int kNonceRole = Qt::UserRole + 1;

// A list entry is one field per line: a newline in the agent's text must not forge another.
QString oneLine(QString text)
{
    for (QChar &c : text) {
        if (c.category() == QChar::Other_Control || c == QChar::LineSeparator ||
            c == QChar::ParagraphSeparator)
            c = QLatin1Char(' ');
    }
    return text;
}

// A list entry's agent-chosen field, bounded (the card shows it whole): the list never widens the
// window, and a huge name costs nothing to lay out.
QString listed(const QString &text)
{
    constexpr qsizetype kMax = 120;
    return text.size() <= kMax ? text : text.left(kMax) + QStringLiteral("…");
}

QList<Operation> ordered(QList<Operation> cards, ApprovalsPage::Order order)
{
    using Order = ApprovalsPage::Order;
    std::stable_sort(cards.begin(), cards.end(), [order](const Operation &a, const Operation &b) {
        switch (order) {
        case Order::Oldest:
            return a.createdMs < b.createdMs;
        case Order::Risk:
            return a.plan.risk != b.plan.risk ? a.plan.risk > b.plan.risk : a.createdMs > b.createdMs;
        case Order::Expiring:
            return a.deadlineMs() < b.deadlineMs();
        case Order::Newest:
            break;
        }
        return a.createdMs > b.createdMs;
    });
    return cards;
}

} // namespace

ApprovalsPage::ApprovalsPage(ApprovalQueue &queue, const Clock &clock, QWidget *parent)
    : QWidget(parent), m_queue(queue)
{
    m_sort = new QComboBox(this);
    m_sort->setObjectName(QStringLiteral("cardSort"));
    m_sort->addItem(tr("Newest first"), int(Order::Newest));
    m_sort->addItem(tr("Oldest first"), int(Order::Oldest));
    m_sort->addItem(tr("Highest risk first"), int(Order::Risk));
    m_sort->addItem(tr("Expiring first"), int(Order::Expiring));
    m_declineSelected = new QPushButton(this);
    m_declineSelected->setObjectName(QStringLiteral("declineSelected"));
    m_declineConnection = new QPushButton(this);
    m_declineConnection->setObjectName(QStringLiteral("declineConnection"));

    m_list = new QListWidget(this);
    m_list->setObjectName(QStringLiteral("pendingList"));
    m_list->setMinimumWidth(240);
    m_list->setSelectionMode(QAbstractItemView::ExtendedSelection);
    m_stack = new QStackedWidget(this);
    auto *emptyPage = new QWidget(m_stack);
    m_empty = new QLabel(emptyPage);
    m_empty->setObjectName(QStringLiteral("emptyQueue"));
    m_empty->setAlignment(Qt::AlignCenter);
    m_empty->setWordWrap(true);
    m_openConnections = new QPushButton(tr("Open Connections (Alt+4)"), emptyPage);
    m_openConnections->setObjectName(QStringLiteral("openConnections"));
    auto *emptyLayout = new QVBoxLayout(emptyPage);
    emptyLayout->addStretch(1);
    emptyLayout->addWidget(m_empty);
    emptyLayout->addWidget(m_openConnections, 0, Qt::AlignHCenter);
    emptyLayout->addStretch(1);
    m_card = new ApprovalCard(queue, clock, m_stack);
    m_stack->addWidget(emptyPage);
    m_stack->addWidget(m_card);

    auto *listSide = new QWidget(this);
    auto *listLayout = new QVBoxLayout(listSide);
    listLayout->setContentsMargins(0, 0, 0, 0);
    listLayout->addWidget(m_sort);
    listLayout->addWidget(m_list, 1);
    listLayout->addWidget(m_declineSelected);
    listLayout->addWidget(m_declineConnection);
    auto *splitter = new QSplitter(this);
    splitter->addWidget(listSide);
    splitter->addWidget(m_stack);
    splitter->setStretchFactor(1, 1);
    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(splitter);

    connect(&queue, &ApprovalQueue::cardAdded, this, [this] {
        rebuild();
        // A new card with nothing being typed: the keyboard goes to the list, where it is selected.
        if (!qobject_cast<QLineEdit *>(QApplication::focusWidget()) && isVisible())
            focusList();
    });
    connect(&queue, &ApprovalQueue::cardRemoved, this, &ApprovalsPage::rebuild);
    connect(&queue, &ApprovalQueue::cardChanged, this, &ApprovalsPage::rebuild);
    // A card from before the restart whose agent came back is listed as any other.
    connect(&queue, &ApprovalQueue::agentChanged, this, [this](const QString &nonce) {
        if (m_listedStale.contains(nonce) && !m_queue.isFromBeforeRestart(nonce))
            rebuild();
    });
    connect(m_list, &QListWidget::currentRowChanged, this, &ApprovalsPage::showSelected);
    connect(m_list, &QListWidget::itemSelectionChanged, this, &ApprovalsPage::updateBulkButtons);
    connect(m_sort, &QComboBox::currentIndexChanged, this,
            [this] { setOrder(Order(m_sort->currentData().toInt())); });
    connect(m_declineSelected, &QPushButton::clicked, this, &ApprovalsPage::declineSelected);
    connect(m_declineConnection, &QPushButton::clicked, this, &ApprovalsPage::declineConnection);
    connect(m_openConnections, &QPushButton::clicked, this, &ApprovalsPage::connectionsWanted);
    connect(m_card, &ApprovalCard::keyboardFree, this, &ApprovalsPage::focusList);
    setHasConnections(true);
    rebuild();
}

void ApprovalsPage::setOrder(Order order)
{
    m_order = order;
    const QSignalBlocker blocker(m_sort);
    m_sort->setCurrentIndex(m_sort->findData(int(order)));
    rebuild();
}

void ApprovalsPage::setHasConnections(bool has)
{
    m_empty->setText(has ? tr("No pending approvals.\nCards appear here when an agent asks for something "
                              "that needs your decision.")
                         : tr("No agent is connected yet.\nAdd a connection in the Connections tab, then "
                              "paste its setup into your IDE or agent. Its destructive calls will wait "
                              "here for your decision."));
    m_openConnections->setVisible(!has);
}

void ApprovalsPage::setGrants(Grants *grants)
{
    m_card->setGrants(grants);
}

void ApprovalsPage::setSightings(CardSightings *sightings)
{
    m_card->setSightings(sightings);
}

void ApprovalsPage::focusList()
{
    if (m_list->count() > 0)
        m_list->setFocus(Qt::OtherFocusReason);
}

void ApprovalsPage::rebuild()
{
    const QString selected =
        m_list->currentItem() ? m_list->currentItem()->data(kNonceRole).toString() : QString();
    QSet<QString> chosen;
    for (const QListWidgetItem *item : m_list->selectedItems())
        chosen.insert(item->data(kNonceRole).toString());
    const QSignalBlocker blocker(m_list);
    m_list->clear();
    m_listedStale.clear();
    QSet<QString> stillPending;
    int row = 0;
    for (const Operation &op : ordered(m_queue.pending(), m_order)) {
        const bool stale = m_queue.isFromBeforeRestart(op.nonce);
        if (stale)
            m_listedStale.insert(op.nonce);
        // The card's own headline (what happens, what is lost), then who and the risk: the words
        // the card opens with.
        const CardFace face = CardFace::of(op);
        auto *item = new QListWidgetItem(
            QStringLiteral("%1\n%2 · %3%4")
                .arg(listed(oneLine(face.headline)),
                     listed(oneLine(op.clientName().isEmpty() ? face.command
                                    : face.command.isEmpty()
                                        ? op.clientName()
                                        : op.clientName() + QStringLiteral(": ") + face.command)),
                     face.riskWords,
                     stale ? tr("\nfrom before the restart: its agent may be gone") : QString()),
            m_list);
        item->setData(kNonceRole, op.nonce);
        item->setForeground(stale ? palette().color(QPalette::Disabled, QPalette::Text)
                                  : ThemeColours::riskText(op.plan.risk, m_list->palette()));
        if (stale) {
            QFont font = item->font();
            font.setItalic(true);
            item->setFont(font);
        }
        stillPending.insert(op.nonce);
        if (m_marked.contains(op.nonce))
            markItem(item, true);
        if (op.nonce == selected)
            row = m_list->count() - 1;
    }
    m_marked.intersect(stillPending);
    if (m_list->count() > 0)
        m_list->setCurrentRow(row);
    for (int i = 0; i < m_list->count(); ++i) {
        QListWidgetItem *item = m_list->item(i);
        if (chosen.contains(item->data(kNonceRole).toString()))
            item->setSelected(true);
    }
    showSelected();
    updateBulkButtons();
}

void ApprovalsPage::updateBulkButtons()
{
    const qsizetype selected = m_list->selectedItems().size();
    m_declineSelected->setText(tr("Decline selected (%1)…").arg(selected));
    m_declineSelected->setEnabled(selected > 0);
    const auto shown = m_queue.find(m_card->nonce());
    const bool any = shown && m_stack->currentIndex() == 1;
    int same = 0;
    for (const Operation &op : m_queue.pending())
        same += any && op.principal == shown->principal ? 1 : 0;
    m_declineConnection->setText(any ? tr("Decline all %1 from \"%2\"…").arg(same).arg(shown->principal)
                                     : tr("Decline all from this connection…"));
    m_declineConnection->setEnabled(any);
}

void ApprovalsPage::markItem(QListWidgetItem *item, bool marked)
{
    QFont font = item->font();
    font.setBold(marked);
    item->setFont(font);
    item->setIcon(marked ? style()->standardIcon(QStyle::SP_MessageBoxInformation) : QIcon());
    item->setToolTip(marked ? tr("Its approval page was opened. Select it to read it.") : QString());
}

void ApprovalsPage::showSelected()
{
    QListWidgetItem *item = m_list->currentItem();
    const auto op = item ? m_queue.find(item->data(kNonceRole).toString()) : std::nullopt;
    if (!op) {
        m_stack->setCurrentIndex(0);
        updateBulkButtons();
        return;
    }
    if (m_marked.remove(op->nonce))
        markItem(item, false);
    m_card->setOperation(*op);
    m_stack->setCurrentIndex(1);
    updateBulkButtons();
}

void ApprovalsPage::reveal(const QString &nonce)
{
    for (int i = 0; i < m_list->count(); ++i) {
        QListWidgetItem *item = m_list->item(i);
        if (item->data(kNonceRole).toString() != nonce)
            continue;
        if (m_stack->currentIndex() == 0) {
            m_list->setCurrentRow(i); // nothing is being read: show it
        } else if (item != m_list->currentItem()) {
            m_marked.insert(nonce);
            markItem(item, true);
            m_list->scrollToItem(item);
        }
        return;
    }
}

void ApprovalsPage::select(const QString &nonce)
{
    for (int i = 0; i < m_list->count(); ++i) {
        if (m_list->item(i)->data(kNonceRole).toString() == nonce) {
            m_list->setCurrentRow(i);
            focusList();
            return;
        }
    }
}

void ApprovalsPage::declineSelected()
{
    QStringList nonces;
    for (const QListWidgetItem *item : m_list->selectedItems())
        nonces.append(item->data(kNonceRole).toString());
    askToDecline(nonces, nonces.size() == 1 ? tr("the selected card")
                                            : tr("the %1 selected cards").arg(nonces.size()));
}

void ApprovalsPage::declineConnection()
{
    const auto shown = m_queue.find(m_card->nonce());
    if (!shown)
        return;
    QStringList nonces;
    for (const Operation &op : m_queue.pending()) {
        if (op.principal == shown->principal)
            nonces.append(op.nonce);
    }
    askToDecline(nonces,
                 nonces.size() == 1
                     ? tr("the one card from connection \"%1\"").arg(shown->principal)
                     : tr("all %1 cards from connection \"%2\"").arg(nonces.size()).arg(shown->principal));
}

// Several cards at once are declined only after a confirmation that says how many, with one reason
// (optional) that each agent is told.
void ApprovalsPage::askToDecline(const QStringList &nonces, const QString &what)
{
    if (nonces.isEmpty())
        return;
    delete findChild<QInputDialog *>(QStringLiteral("bulkDeclineDialog"));
    auto *dialog = new QInputDialog(this);
    dialog->setObjectName(QStringLiteral("bulkDeclineDialog"));
    dialog->setWindowTitle(nonces.size() == 1 ? tr("Decline a card")
                                              : tr("Decline %1 cards").arg(nonces.size()));
    dialog->setLabelText(
        tr("Decline %1? Nothing of theirs runs.\nReason, shown to each agent (optional):").arg(what));
    dialog->setOkButtonText(tr("Decline %1").arg(nonces.size()));
    dialog->setAttribute(Qt::WA_DeleteOnClose);
    connect(dialog, &QInputDialog::textValueSelected, this, [this, nonces](const QString &reason) {
        QStringList failed;
        for (const QString &nonce : nonces) {
            if (!m_queue.find(nonce))
                continue; // decided meanwhile, elsewhere: left as it is
            if (auto declined = m_queue.decline(nonce, m_queue.reviewer(), reason.trimmed()); !declined)
                failed.append(declined.error());
        }
        if (!failed.isEmpty())
            Q_EMIT m_queue.storeError(
                tr("Some cards were not declined: %1").arg(failed.join(QStringLiteral("; "))));
    });
    dialog->open();
}

} // namespace Countersign
