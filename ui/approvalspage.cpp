#include "approvalspage.h"

#include "approvalcard.h"
#include "approvalqueue.h"
#include "riskstyle.h"

#include <QLabel>
#include <QListWidget>
#include <QSplitter>
#include <QStackedWidget>
#include <QStyle>
#include <QVBoxLayout>

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

} // namespace

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
    QSet<QString> stillPending;
    int row = 0;
    for (const Operation &op : m_queue.pending()) {
        const QString target = op.plan.targets.isEmpty() ? QString() : op.plan.targets.first();
        auto *item = new QListWidgetItem(
            QStringLiteral("%1%2\n%3 · %4")
                .arg(op.tool, target.isEmpty() ? QString() : QStringLiteral(" — ") + oneLine(target),
                     op.clientName().isEmpty() ? op.principal : oneLine(op.clientName()),
                     RiskStyle::words(op.plan.risk, false)),
            m_list);
        item->setData(kNonceRole, op.nonce);
        item->setForeground(RiskStyle::colour(op.plan.risk));
        stillPending.insert(op.nonce);
        if (m_marked.contains(op.nonce))
            markItem(item, true);
        if (op.nonce == selected)
            row = m_list->count() - 1;
    }
    m_marked.intersect(stillPending);
    if (m_list->count() > 0)
        m_list->setCurrentRow(row);
    showSelected();
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
        return;
    }
    if (m_marked.remove(op->nonce))
        markItem(item, false);
    m_card->setOperation(*op);
    m_stack->setCurrentIndex(1);
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

} // namespace Countersign
