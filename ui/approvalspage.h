#pragma once

#include <QSet>
#include <QWidget>

class QListWidget;
class QListWidgetItem;
class QStackedWidget;

namespace Countersign {

class ApprovalCard;
class ApprovalQueue;
class Clock;
struct Operation;

// The pending approvals, newest first, and the selected one in full. Only the human changes
// which card is shown (a click or the keyboard in the list); a decision shows the next one.
class ApprovalsPage final : public QWidget
{
    Q_OBJECT
public:
    ApprovalsPage(ApprovalQueue &queue, const Clock &clock, QWidget *parent = nullptr);
    Q_DISABLE_COPY_MOVE(ApprovalsPage)

    // The /approvals/<id> page asked for this card, and anyone can open that page: the card is
    // marked in the list and scrolled to, never swapped for the one being read. It is shown only
    // when no card is.
    void reveal(const QString &nonce);
    ApprovalCard *card() const { return m_card; }

private:
    void rebuild();
    void showSelected();
    void markItem(QListWidgetItem *item, bool marked);

    ApprovalQueue &m_queue;
    QListWidget *m_list = nullptr;
    QStackedWidget *m_stack = nullptr;
    ApprovalCard *m_card = nullptr;
    QSet<QString> m_marked; // revealed and not yet shown
};

} // namespace Countersign
