#pragma once

#include "operation.h"

#include <QTimer>
#include <QWidget>

class QLabel;
class QLineEdit;
class QPlainTextEdit;
class QPushButton;
class QToolButton;

namespace Countersign {

class ApprovalQueue;
class CardSightings;
class Clock;
class Grants;

// One pending approval, read top to bottom in three seconds (CardFace, the words the phone shows
// too): the headline (what happens, what is lost, whether it can be taken back) beside the risk
// and a countdown to expiry (amber in its last minute, red in its last 15 s: property "urgency" is
// "", "soon" or "now"); who asks in one line; the command as it will run; why it asks; the evidence
// (the diff, the files, what it reaches; no pane when there is none); then, folded away, the
// targets, everything measured, the rule, the prompt, the arguments and the digests. Approve
// (Ctrl+Return) and Decline (Ctrl+Shift+D, with an optional reason: Alt+R) decide it through the
// queue; where nothing is kept and the risk is high, a short name is typed before Approve enables.
// The card says when its agent is not waiting on it now (ApprovalQueue::agentOf); a card made
// before a restart that no agent has joined since says that its agent may no longer be waiting.
//
// Everything the agent supplied is shown as plain text. Approve (button, shortcut or approve())
// is accepted only once the card has been on screen for the minimum time, counted on the clock
// from the last time the shown card changed, the card was shown again or its window was
// activated, so a card that appears under a keypress cannot be approved by it.
class ApprovalCard final : public QWidget
{
    Q_OBJECT
public:
    ApprovalCard(ApprovalQueue &queue, const Clock &clock, QWidget *parent = nullptr);
    Q_DISABLE_COPY_MOVE(ApprovalCard)

    // Another nonce restarts the minimum time; the same one only refreshes what is shown.
    void setOperation(const Operation &operation);
    QString nonce() const { return m_operation.nonce; }
    // The minimum time on screen before Approve is accepted (default 1 s; 0 accepts at once).
    void setMinimumShownMs(qint64 ms);

    void approve();
    void decline();
    // Where "Allow from now on" and "Deny from now on" keep what they grant; unset: neither shows.
    void setGrants(Grants *grants);
    // Where the card notes that it was seen: shown, the window visible, active and not minimised
    // (CardSightings); and says when and where it was first seen.
    void setSightings(CardSightings *sightings);
    // Opens the dialog of a grant for this card's call (GrantDialog); accepted, the card is approved
    // (allow) or declined (deny) and the grant recorded.
    void fromNowOn(bool allow);
    // What the card says of the team's review rules (empty when none applies to it).
    static QString reviewText(const Review &review);

Q_SIGNALS:
    // Another card replaced the one whose field had the keyboard (it was decided), and this one
    // has no field to type first: the keyboard should go where the cards are chosen.
    void keyboardFree();

protected:
    bool event(QEvent *event) override;
    void showEvent(QShowEvent *event) override;

private:
    QString typedConfirmation() const;
    void restartMinimum();
    // Whether the minimum time has passed; otherwise arms m_shownTimer for the rest of it.
    bool shownLongEnough();
    void updateCountdown();
    void updateAgent();
    void updateApproveEnabled();
    void noteIfSeen();
    void updateSeen();
    void showError(const QString &message);
    void layOut();
    // The folded part: targets, measured, rule, prompt, arguments, digests.
    QWidget *makeDetails();

    ApprovalQueue &m_queue;
    const Clock &m_clock;
    Operation m_operation;
    QTimer m_tick;
    QTimer m_shownTimer;
    qint64 m_minimumShownMs = 1000;
    qint64 m_shownSinceMs = 0;
    QLabel *m_request = nullptr; // the user's words behind the call, said first
    QLabel *m_title = nullptr;
    QLabel *m_client = nullptr;
    QLabel *m_risk = nullptr;
    QLabel *m_countdown = nullptr;
    QLabel *m_stale = nullptr;
    QLabel *m_agent = nullptr;
    QLabel *m_clientAnswer = nullptr;
    QLabel *m_review = nullptr;
    QLabel *m_command = nullptr;
    QLabel *m_why = nullptr;
    QLabel *m_summary = nullptr;
    QLabel *m_evidenceTitle = nullptr;
    QPlainTextEdit *m_diff = nullptr;
    QToolButton *m_detailsToggle = nullptr;
    QWidget *m_details = nullptr;
    QLabel *m_prompt = nullptr;
    QLabel *m_digests = nullptr;
    QLabel *m_targets = nullptr;
    QLabel *m_blast = nullptr;
    QLabel *m_rule = nullptr;
    QPlainTextEdit *m_arguments = nullptr;
    QLabel *m_confirmLabel = nullptr;
    QLineEdit *m_confirm = nullptr;
    QLineEdit *m_reason = nullptr;
    QPushButton *m_approve = nullptr;
    QPushButton *m_decline = nullptr;
    QPushButton *m_allowFromNow = nullptr;
    QPushButton *m_denyFromNow = nullptr;
    Grants *m_grants = nullptr;
    CardSightings *m_sightings = nullptr;
    QLabel *m_seen = nullptr;
    QLabel *m_error = nullptr;
    bool m_expired = false;
};

} // namespace Countersign
