#include "approvalspage.h"

#include "approvalcard.h"
#include "approvalqueue.h"
#include "riskstyle.h"

#include <QLabel>
#include <QListWidget>
#include <QSplitter>
#include <QStackedWidget>
#include <QVBoxLayout>

namespace Countersign {

namespace {
constexpr int kNonceRole = Qt::UserRole + 1;
}

ApprovalsPage::ApprovalsPage(ApprovalQueue &queue, const Clock &clock, QWidget *parent)
    : QWidget(parent), m_queue(queue)
{
    m_list = new QListWidget(this);
    m_list->setObjectName(QStringLiteral("pendingList"));
    m_list->setMinimumWidth(220);
    m_stack = new QStackedWidget(this);
    auto *empty = new QLabel(tr("No pending approvals.\nCards appear here when an agent asks for something "
                                "that needs your decision."),
                             m_stack);
    empty->setObjectName(QStringLiteral("emptyQueue"));
    empty->setAlignment(Qt::AlignCenter);
    m_card = new ApprovalCard(queue, clock, m_stack);
    m_stack->addWidget(empty);
    m_stack->addWidget(m_card);
    auto *splitter = new QSplitter(this);
    splitter->addWidget(m_list);
    splitter->addWidget(m_stack);
    splitter->setStretchFactor(1, 1);
    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(splitter);

    connect(&queue, &ApprovalQueue::cardAdded, this, &ApprovalsPage::rebuild);
    connect(&queue, &ApprovalQueue::cardRemoved, this, &ApprovalsPage::rebuild);
    connect(m_list, &QListWidget::currentRowChanged, this, &ApprovalsPage::showSelected);
    rebuild();
}

void ApprovalsPage::rebuild()
{
    const QString selected =
        m_list->currentItem() ? m_list->currentItem()->data(kNonceRole).toString() : QString();
    const QSignalBlocker blocker(m_list);
    m_list->clear();
    int row = 0;
    for (const Operation &op : m_queue.pending()) {
        const QString target = op.plan.targets.isEmpty() ? QString() : op.plan.targets.first();
        auto *item = new QListWidgetItem(
            QStringLiteral("%1%2\n%3 · %4")
                .arg(op.tool, target.isEmpty() ? QString() : QStringLiteral(" — ") + target,
                     op.clientName().isEmpty() ? op.principal : op.clientName(),
                     RiskStyle::words(op.plan.risk, false)),
            m_list);
        item->setData(kNonceRole, op.nonce);
        item->setForeground(RiskStyle::colour(op.plan.risk));
        if (op.nonce == selected)
            row = m_list->count() - 1;
    }
    if (m_list->count() > 0)
        m_list->setCurrentRow(row);
    showSelected();
}

void ApprovalsPage::showSelected()
{
    QListWidgetItem *item = m_list->currentItem();
    const auto op = item ? m_queue.find(item->data(kNonceRole).toString()) : std::nullopt;
    if (!op) {
        m_stack->setCurrentIndex(0);
        return;
    }
    m_card->setOperation(*op);
    m_stack->setCurrentIndex(1);
}

void ApprovalsPage::select(const QString &nonce)
{
    for (int i = 0; i < m_list->count(); ++i) {
        if (m_list->item(i)->data(kNonceRole).toString() == nonce) {
            m_list->setCurrentRow(i);
            return;
        }
    }
}

} // namespace Countersign
