#pragma once

#include "operation.h"

#include <QTimer>
#include <QWidget>

class QLabel;
class QLineEdit;
class QPlainTextEdit;
class QPushButton;

namespace Countersign {

class ApprovalQueue;
class Clock;

// One pending approval, in full: who asks, the verbatim prompt, the plan as a coloured diff, the
// targets, the blast radius and risk, the arguments and a countdown to expiry. Approve
// (Ctrl+Return) and Decline (Ctrl+Shift+D, with an optional reason) decide it through the queue;
// high and critical risk need the target's name typed before Approve enables.
class ApprovalCard final : public QWidget
{
    Q_OBJECT
public:
    ApprovalCard(ApprovalQueue &queue, const Clock &clock, QWidget *parent = nullptr);
    Q_DISABLE_COPY_MOVE(ApprovalCard)

    void setOperation(const Operation &operation);
    QString nonce() const { return m_operation.nonce; }

    void approve();
    void decline();

private:
    void updateCountdown();
    void updateApproveEnabled();
    void showError(const QString &message);

    ApprovalQueue &m_queue;
    const Clock &m_clock;
    Operation m_operation;
    QTimer m_tick;
    QLabel *m_title = nullptr;
    QLabel *m_client = nullptr;
    QLabel *m_risk = nullptr;
    QLabel *m_countdown = nullptr;
    QLabel *m_prompt = nullptr;
    QPlainTextEdit *m_diff = nullptr;
    QLabel *m_targets = nullptr;
    QLabel *m_blast = nullptr;
    QLabel *m_rule = nullptr;
    QPlainTextEdit *m_arguments = nullptr;
    QLabel *m_confirmLabel = nullptr;
    QLineEdit *m_confirm = nullptr;
    QLineEdit *m_reason = nullptr;
    QPushButton *m_approve = nullptr;
    QPushButton *m_decline = nullptr;
    QLabel *m_error = nullptr;
    bool m_expired = false;
};

} // namespace Countersign
