#pragma once

#include <QWidget>

class QListWidget;
class QStackedWidget;

namespace Countersign {

class ApprovalCard;
class ApprovalQueue;
class Clock;
struct Operation;

// The pending approvals, newest first, and the selected one in full.
class ApprovalsPage final : public QWidget
{
    Q_OBJECT
public:
    ApprovalsPage(ApprovalQueue &queue, const Clock &clock, QWidget *parent = nullptr);
    Q_DISABLE_COPY_MOVE(ApprovalsPage)

    // Selects the card (the /approvals/<id> page asked for it).
    void select(const QString &nonce);
    ApprovalCard *card() const { return m_card; }

private:
    void rebuild();
    void showSelected();

    ApprovalQueue &m_queue;
    QListWidget *m_list = nullptr;
    QStackedWidget *m_stack = nullptr;
    ApprovalCard *m_card = nullptr;
};

} // namespace Countersign
