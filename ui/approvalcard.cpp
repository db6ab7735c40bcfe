#include "approvalcard.h"

#include "agentlabel.h"
#include "approvalqueue.h"
#include "blastradiustext.h"
#include "cardface.h"
#include "cardsightings.h"
#include "clock.h"
#include "diffhighlighter.h"
#include "grantdialog.h"
#include "grants.h"
#include "riskstyle.h"
#include "themecolours.h"
#include "visibletext.h"

#include <QDateTime>
#include <QFontDatabase>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QLocale>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QShortcut>
#include <QToolButton>
#include <QVBoxLayout>

#include <algorithm>

namespace Countersign {

namespace {

// The countdown turns amber in the card's last minute and red in its last 15 s.
constexpr qint64 kSoonMs = 60'000;
constexpr qint64 kNowMs = 15'000;

} // namespace

// What was typed, without the break marks laidOutText puts in long words (pasted from the card's
// own label). An agent's target that holds such characters itself never matches: they are not
// typed back.
QString ApprovalCard::typedConfirmation() const
{
    QString typed = m_confirm->text();
    typed.remove(QChar(0x200B));
    typed.remove(QChar(0x200C));
    return typed;
}

ApprovalCard::ApprovalCard(ApprovalQueue &queue, const Clock &clock, QWidget *parent)
    : QWidget(parent), m_queue(queue), m_clock(clock)
{
    setObjectName(QStringLiteral("approvalCard"));
    const QFont mono = QFontDatabase::systemFont(QFontDatabase::FixedFont);

    m_title = agentLabel(this, "cardTitle");
    QFont titleFont = m_title->font();
    titleFont.setPointSizeF(titleFont.pointSizeF() * 1.3);
    titleFont.setBold(true);
    m_title->setFont(titleFont);
    m_client = agentLabel(this, "cardClient");
    m_risk = agentLabel(this, "cardRisk", false);
    m_risk->setAutoFillBackground(true);
    m_risk->setMargin(4);
    m_countdown = agentLabel(this, "cardCountdown", false);
    m_stale = agentLabel(this, "cardStale");
    m_stale->setText(tr("Made before Countersign restarted: the agent that asked may no longer be waiting. "
                        "Approving it runs nothing until that agent calls again; decline it if it is no "
                        "longer wanted."));
    m_stale->setStyleSheet(
        QStringLiteral("background: #fff8c5; color: #3b2300; padding: 4px; border-radius: 4px"));
    m_stale->hide();
    m_agent = agentLabel(this, "cardAgent", false);
    m_agent->setProperty("agent", QStringLiteral("unknown"));
    m_agent->hide();
    m_clientAnswer = agentLabel(this, "cardClientAnswer");
    m_clientAnswer->hide();
    m_review = agentLabel(this, "cardReview");
    m_review->hide();
    m_request = agentLabel(this, "cardRequest");
    m_seen = agentLabel(this, "cardSeen");
    m_seen->setEnabled(false); // said quietly: greyed
    m_seen->hide();
    m_command = agentLabel(this, "cardCommand");
    m_command->setFont(mono);
    m_why = agentLabel(this, "cardWhy");
    m_summary = agentLabel(this, "cardSummary");
    m_evidenceTitle = agentLabel(this, "cardEvidenceTitle");
    QFont bold = m_evidenceTitle->font();
    bold.setBold(true);
    m_evidenceTitle->setFont(bold);
    m_diff = new QPlainTextEdit(this);
    m_diff->setObjectName(QStringLiteral("cardDiff"));
    m_diff->setReadOnly(true);
    m_diff->setFont(mono);
    m_diff->setLineWrapMode(QPlainTextEdit::NoWrap);
    m_diff->setMinimumHeight(120);
    m_diff->setFocusPolicy(Qt::ClickFocus); // Tab goes from the list to what decides, not through text
    new DiffHighlighter(m_diff->document(), ThemeColours::isDark(palette()));
    m_detailsToggle = new QToolButton(this);
    m_detailsToggle->setObjectName(QStringLiteral("cardDetailsToggle"));
    m_detailsToggle->setText(tr("&Details: targets, rule, arguments, digests")); // Alt+D
    // Tab goes from the list to what decides; the details open by Alt+D or a click.
    m_detailsToggle->setFocusPolicy(Qt::ClickFocus);
    m_detailsToggle->setToolButtonStyle(Qt::ToolButtonTextBesideIcon);
    m_detailsToggle->setArrowType(Qt::RightArrow);
    m_detailsToggle->setCheckable(true);
    m_detailsToggle->setAutoRaise(true);
    m_details = makeDetails();
    m_details->hide();

    m_confirmLabel = agentLabel(this, "confirmLabel");
    m_confirmLabel->setTextFormat(Qt::RichText); // our markup around the escaped target
    m_confirm = new QLineEdit(this);
    m_confirm->setObjectName(QStringLiteral("confirmTarget"));
    m_reason = new QLineEdit(this);
    m_reason->setObjectName(QStringLiteral("declineReason"));
    m_reason->setMaxLength(ApprovalQueue::kMaxReasonChars);
    m_reason->setPlaceholderText(tr("Reason for declining (optional, shown to the agent)"));
    m_approve = new QPushButton(tr("Approve (Ctrl+Return)"), this);
    m_approve->setObjectName(QStringLiteral("approveButton"));
    m_approve->setText(tr("Read the card first"));
    const int waitingWidth = m_approve->sizeHint().width();
    m_approve->setText(tr("Approve (Ctrl+Return)"));
    m_approve->setMinimumWidth(std::max(waitingWidth, m_approve->sizeHint().width()));
    m_decline = new QPushButton(tr("Decline (Ctrl+Shift+D)"), this);
    m_decline->setObjectName(QStringLiteral("declineButton"));
    m_allowFromNow = new QPushButton(tr("Allow from now on…"), this);
    m_allowFromNow->setObjectName(QStringLiteral("allowFromNow"));
    m_denyFromNow = new QPushButton(tr("Deny from now on…"), this);
    m_denyFromNow->setObjectName(QStringLiteral("denyFromNow"));
    m_allowFromNow->hide();
    m_denyFromNow->hide();
    m_error = agentLabel(this, "cardError");
    m_error->setStyleSheet(ThemeColours::textCss(ThemeColours::errorText(palette())));
    m_error->hide();

    layOut();

    connect(m_detailsToggle, &QToolButton::toggled, this, [this](bool open) {
        m_details->setVisible(open);
        m_detailsToggle->setArrowType(open ? Qt::DownArrow : Qt::RightArrow);
    });
    connect(m_allowFromNow, &QPushButton::clicked, this, [this] { fromNowOn(true); });
    connect(m_denyFromNow, &QPushButton::clicked, this, [this] { fromNowOn(false); });
    connect(m_approve, &QPushButton::clicked, this, &ApprovalCard::approve);
    connect(m_decline, &QPushButton::clicked, this, &ApprovalCard::decline);
    connect(m_confirm, &QLineEdit::textChanged, this, &ApprovalCard::updateApproveEnabled);
    for (const QKeySequence &keys :
         {QKeySequence(Qt::CTRL | Qt::Key_Return), QKeySequence(Qt::CTRL | Qt::Key_Enter)})
        connect(new QShortcut(keys, this, nullptr, nullptr, Qt::WindowShortcut), &QShortcut::activated, this,
                &ApprovalCard::approve);
    connect(new QShortcut(QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_D), this, nullptr, nullptr,
                          Qt::WindowShortcut),
            &QShortcut::activated, this, &ApprovalCard::decline);
    connect(&m_queue, &ApprovalQueue::agentChanged, this, [this](const QString &nonce) {
        if (nonce == m_operation.nonce)
            updateAgent();
    });
    m_tick.setInterval(1000);
    connect(&m_tick, &QTimer::timeout, this, &ApprovalCard::updateCountdown);
    m_shownTimer.setSingleShot(true);
    m_shownTimer.setTimerType(Qt::PreciseTimer);
    connect(&m_shownTimer, &QTimer::timeout, this, &ApprovalCard::updateApproveEnabled);
    // A clock set to another time (a fake one in tests) is checked at once, not at the next tick.
    m_clock.onSet(this, [this] {
        if (!m_operation.nonce.isEmpty())
            updateCountdown();
    });
}

// Top to bottom as the card reads: what the user asked, the headline with the risk, who, the command, why,
// the evidence, the details folded away, then what decides.
void ApprovalCard::layOut()
{
    auto *header = new QHBoxLayout;
    header->addWidget(m_title, 1, Qt::AlignTop);
    header->addWidget(m_risk, 0, Qt::AlignTop);
    header->addWidget(m_agent, 0, Qt::AlignTop);
    header->addWidget(m_countdown, 0, Qt::AlignTop);
    auto *reasonLabel = new QLabel(tr("&Reason:"), this);
    reasonLabel->setBuddy(m_reason); // Alt+R
    auto *buttons = new QHBoxLayout;
    buttons->addWidget(reasonLabel);
    buttons->addWidget(m_reason, 1);
    buttons->addWidget(m_decline);
    buttons->addWidget(m_approve);
    auto *fromNow = new QHBoxLayout;
    fromNow->addStretch(1);
    fromNow->addWidget(m_denyFromNow);
    fromNow->addWidget(m_allowFromNow);
    auto *layout = new QVBoxLayout(this);
    layout->addWidget(m_request);
    layout->addLayout(header);
    layout->addWidget(m_stale);
    layout->addWidget(m_clientAnswer);
    layout->addWidget(m_client);
    layout->addWidget(m_seen);
    layout->addWidget(m_review);
    layout->addWidget(m_command);
    layout->addWidget(m_why);
    layout->addWidget(m_summary);
    layout->addWidget(m_evidenceTitle);
    layout->addWidget(m_diff, 1);
    layout->addWidget(m_detailsToggle);
    layout->addWidget(m_details);
    layout->addStretch(0);
    layout->addWidget(m_confirmLabel);
    layout->addWidget(m_confirm);
    layout->addLayout(buttons);
    layout->addLayout(fromNow);
    layout->addWidget(m_error);
}

QWidget *ApprovalCard::makeDetails()
{
    auto *details = new QWidget(this);
    details->setObjectName(QStringLiteral("cardDetails"));
    m_targets = agentLabel(details, "cardTargets");
    m_blast = agentLabel(details, "cardBlastRadius");
    m_rule = agentLabel(details, "cardRule");
    m_prompt = agentLabel(details, "cardPrompt");
    m_digests = agentLabel(details, "cardDigests");
    m_arguments = new QPlainTextEdit(details);
    m_arguments->setObjectName(QStringLiteral("cardArguments"));
    m_arguments->setReadOnly(true);
    m_arguments->setFont(QFontDatabase::systemFont(QFontDatabase::FixedFont));
    m_arguments->setMaximumHeight(90);
    m_arguments->setFocusPolicy(Qt::ClickFocus);
    auto *form = new QFormLayout(details);
    form->setContentsMargins(0, 0, 0, 0);
    form->addRow(tr("Targets"), m_targets);
    form->addRow(tr("Measured"), m_blast);
    form->addRow(tr("Rule"), m_rule);
    form->addRow(tr("Asked as"), m_prompt);
    form->addRow(tr("Arguments"), m_arguments);
    form->addRow(tr("Digests"), m_digests);
    return details;
}

void ApprovalCard::setMinimumShownMs(qint64 ms)
{
    m_minimumShownMs = std::max<qint64>(0, ms);
    updateApproveEnabled();
}

bool ApprovalCard::event(QEvent *event)
{
    // The window came to the front (perhaps raised by an agent's reveal, under a keypress meant
    // for another window): what it shows has to be read again.
    if (event->type() == QEvent::WindowActivate)
        restartMinimum();
    const bool handled = QWidget::event(event);
    if (event->type() == QEvent::WindowActivate || event->type() == QEvent::WindowStateChange ||
        event->type() == QEvent::Show)
        noteIfSeen();
    return handled;
}

void ApprovalCard::showEvent(QShowEvent *event)
{
    QWidget::showEvent(event);
    restartMinimum();
}

void ApprovalCard::restartMinimum()
{
    m_shownSinceMs = m_clock.nowMs();
    updateApproveEnabled();
}

bool ApprovalCard::shownLongEnough()
{
    const qint64 now = m_clock.nowMs();
    if (now < m_shownSinceMs)
        m_shownSinceMs = now; // the clock was set back: count from now rather than for that long
    const qint64 left = m_shownSinceMs + m_minimumShownMs - now;
    if (left <= 0) {
        m_shownTimer.stop();
        return true;
    }
    // Checked again against the clock when it fires (a timer may fire early).
    m_shownTimer.start(std::chrono::milliseconds(left));
    return false;
}

void ApprovalCard::setOperation(const Operation &operation)
{
    const bool same = operation.nonce == m_operation.nonce;
    m_operation = operation;
    m_expired = false;
    m_error->hide();
    const Plan &plan = operation.plan;
    const CardFace face = CardFace::of(operation);
    showAgentText(m_request, face.request);
    m_request->setVisible(!face.request.isEmpty());
    showAgentText(m_title, face.headline);
    showAgentText(m_client, face.who);
    m_risk->setText(face.riskWords);
    QPalette riskPalette = m_risk->palette();
    riskPalette.setColor(QPalette::Window, RiskStyle::colour(plan.risk));
    riskPalette.setColor(QPalette::WindowText, Qt::white);
    m_risk->setPalette(riskPalette);
    showAgentText(m_command, face.folder.isEmpty()
                                 ? face.command
                                 : face.command + QLatin1Char('\n') + tr("in %1").arg(face.folder));
    m_command->setVisible(!face.command.isEmpty());
    QStringList why;
    for (const QString &reason : face.why)
        why.append(tr("Asks because %1").arg(reason));
    for (const QString &more : face.also)
        why.append(tr("Also: %1").arg(more));
    showAgentText(m_why, why.join(QLatin1Char('\n')));
    m_why->setVisible(!why.isEmpty());
    showAgentText(m_summary, face.summary);
    m_summary->setVisible(!face.summary.isEmpty());
    updateAgent();
    const QString review = reviewText(operation.review);
    showAgentText(m_review, review);
    m_review->setVisible(!review.isEmpty());
    m_evidenceTitle->setText(face.evidenceTitle);
    m_evidenceTitle->setVisible(face.evidence != CardFace::Evidence::None);
    m_diff->setVisible(face.evidence != CardFace::Evidence::None);
    if (!same)
        m_diff->setPlainText(visibleText(face.evidenceText));
    showAgentText(m_prompt, plan.prompt);
    showAgentText(m_targets,
                  plan.targets.isEmpty() ? tr("(none named)") : plan.targets.join(QLatin1Char('\n')));
    showAgentText(m_blast, BlastRadiusText::text(plan.blastRadius));
    showAgentText(m_rule, operation.rule.isEmpty() ? tr("(none)") : operation.rule);
    showAgentText(
        m_digests,
        tr("plan %1\narguments %2").arg(operation.planDigest.left(16), operation.argsDigest.left(16)));
    m_arguments->setPlainText(visibleText(QString::fromStdString(operation.arguments.dump(2))));
    const bool typed = operation.needsTypedConfirmation();
    m_confirmLabel->setVisible(typed);
    m_confirm->setVisible(typed);
    if (!same) {
        // What is typed next is for this card: the keyboard leaves the last card's fields for this
        // card's confirmation, so a target typed after a decline never lands in the reason.
        const bool hadKeyboard = m_reason->hasFocus() || m_confirm->hasFocus();
        m_confirm->clear();
        m_reason->clear();
        if (hadKeyboard && typed)
            m_confirm->setFocus(Qt::OtherFocusReason);
        else if (hadKeyboard)
            Q_EMIT keyboardFree();
    }
    m_confirmLabel->setText(tr("Type <b>%1</b> to enable Approve")
                                .arg(laidOutText(visibleText(operation.confirmationText())).toHtmlEscaped()));
    m_confirmLabel->setToolTip(tooltipText(visibleText(operation.confirmationText())));
    if (!same)
        m_shownSinceMs = m_clock.nowMs();
    updateCountdown();
    m_tick.start();
    noteIfSeen();
}

QString ApprovalCard::reviewText(const Review &review)
{
    QStringList lines;
    if (review.people > 1) {
        QStringList people;
        for (const QString &reviewer : review.approvedBy)
            people.append(reviewer.startsWith(QLatin1String("console:")) ? reviewer.mid(8) : reviewer);
        lines.append(people.isEmpty()
                         ? tr("Needs the approval of %1 different people; no one has approved it yet.")
                               .arg(review.people)
                         : tr("Needs the approval of %1 different people; approved so far by %2.")
                               .arg(review.people)
                               .arg(people.join(QStringLiteral(", "))));
    }
    if (review.ownerBarred)
        lines.append(
            review.owner.isEmpty()
                ? tr("The connection has no owner on record, and a connection's owner may not approve "
                     "its calls: no one can approve it. Add the connection again to record its owner.")
                : tr("The connection belongs to %1, who may not approve its calls.").arg(review.owner));
    return lines.join(QLatin1Char('\n'));
}

void ApprovalCard::updateCountdown()
{
    const qint64 now = m_clock.nowMs();
    const qint64 left = m_operation.deadlineMs() - now;
    m_expired = m_operation.isExpiredAt(now);
    const char *urgency = m_expired ? "now" : left <= kNowMs ? "now" : left <= kSoonMs ? "soon" : "";
    if (m_countdown->property("urgency").toString() != QLatin1String(urgency)) {
        m_countdown->setProperty("urgency", QLatin1String(urgency));
        const QColor colour = QLatin1String(urgency) == QLatin1String("soon")
                                  ? ThemeColours::warningText(palette())
                                  : ThemeColours::errorText(palette());
        m_countdown->setStyleSheet(*urgency == 0 ? QString()
                                                 : ThemeColours::textCss(colour) +
                                                       QStringLiteral("; font-weight: bold"));
    }
    if (m_expired) {
        m_countdown->setText(tr("Expired"));
        m_tick.stop();
        m_agent->hide();
    } else {
        const qint64 seconds = (left + 999) / 1000;
        m_countdown->setText(
            tr("Expires in %1:%2").arg(seconds / 60).arg(seconds % 60, 2, 10, QLatin1Char('0')));
        updateAgent(); // a client's gap between retries ends, or it does not come back
    }
    updateApproveEnabled();
}

void ApprovalCard::updateAgent()
{
    m_stale->setVisible(m_queue.isFromBeforeRestart(m_operation.nonce));
    const ApprovalQueue::Agent agent = m_queue.agentOf(m_operation.nonce);
    const char *state = agent == ApprovalQueue::Agent::Waiting ? "waiting"
                        : agent == ApprovalQueue::Agent::Gone  ? "gone"
                                                               : "unknown";
    m_agent->setProperty("agent", QLatin1String(state));
    // In the header, in two words: the explanation is on demand.
    m_agent->setText(agent == ApprovalQueue::Agent::Waiting ? tr("Agent waiting") : tr("Agent not waiting"));
    m_agent->setToolTip(agent == ApprovalQueue::Agent::Waiting
                            ? tr("Its agent is waiting for your answer now.")
                            : tr("Its agent is not waiting now. An approval is kept for its next call "
                                 "with the same arguments until the card expires."));
    m_agent->setVisible(agent != ApprovalQueue::Agent::Unknown);
    const QString answered = m_queue.clientAnswerOf(m_operation.nonce);
    m_clientAnswer->setText(answered);
    m_clientAnswer->setVisible(!answered.isEmpty());
}

void ApprovalCard::updateApproveEnabled()
{
    const bool typedOk =
        !m_operation.needsTypedConfirmation() || typedConfirmation() == m_operation.confirmationText();
    const bool open = !m_operation.nonce.isEmpty() && !m_expired;
    const bool shown = shownLongEnough();
    // The team's review rules: the store refuses such an approval too.
    const QString refused =
        m_operation.nonce.isEmpty() ? QString() : m_operation.review.refusal(m_queue.reviewer());
    m_approve->setEnabled(open && typedOk && shown && refused.isEmpty());
    m_approve->setText(open && !refused.isEmpty() ? tr("Another person must approve")
                       : open && !shown           ? tr("Read the card first")
                                                  : tr("Approve (Ctrl+Return)"));
    m_approve->setToolTip(open && !refused.isEmpty() ? refused
                          : open && !shown
                              ? tr("Approve is accepted once the card has been on screen for %1 s")
                                    .arg(QLocale().toString(double(m_minimumShownMs) / 1000.0))
                              : QString());
    m_decline->setEnabled(open);
    // An allow from now on only where the card's call could be approved now, and never where
    // nothing would be kept (the gate applies no allow to such a plan either).
    const bool changedCode = Grant::runsChangedCode(m_operation.plan);
    const bool grantable = m_operation.plan.risk < Risk::High && !m_operation.plan.isIrreversible() &&
                           !changedCode && m_operation.review.people <= 1;
    m_allowFromNow->setVisible(m_grants != nullptr);
    m_denyFromNow->setVisible(m_grants != nullptr);
    m_allowFromNow->setEnabled(m_approve->isEnabled() && grantable);
    m_allowFromNow->setToolTip(grantable ? QString()
                               : changedCode
                                   ? tr("It runs code the agent wrote or changed, which may differ at "
                                        "each call: decide it card by card")
                                   : tr("What this call loses cannot be taken back: decide it card by card"));
    m_denyFromNow->setEnabled(open);
}

void ApprovalCard::approve()
{
    // The shortcut and callers land here too: the same checks as the button's, made now.
    updateApproveEnabled();
    if (m_operation.nonce.isEmpty() || !isVisible())
        return;
    if (!m_approve->isEnabled()) {
        // A key that approves nothing says why, where the eye is: the card (read it first, type
        // the target, another person must approve, expired).
        showError(!m_approve->toolTip().isEmpty() ? m_approve->toolTip()
                  : m_expired
                      ? tr("The card has expired: nothing was approved.")
                      : tr("Type %1 above to approve.").arg(visibleText(m_operation.confirmationText())));
        return;
    }
    m_error->hide();
    auto r = m_queue.approve(m_operation.nonce, m_queue.reviewer(), typedConfirmation());
    if (!r)
        showError(r.error());
}

void ApprovalCard::decline()
{
    if (m_operation.nonce.isEmpty() || m_expired)
        return;
    auto r = m_queue.decline(m_operation.nonce, m_queue.reviewer(), m_reason->text());
    if (!r)
        showError(r.error());
}

void ApprovalCard::setSightings(CardSightings *sightings)
{
    m_sightings = sightings;
    if (m_sightings)
        connect(m_sightings, &CardSightings::seen, this, [this](const QString &nonce) {
            if (nonce == m_operation.nonce)
                updateSeen();
        });
    noteIfSeen();
}

// Seen for sure: on screen, in the active window, which is not minimised.
void ApprovalCard::noteIfSeen()
{
    if (!m_sightings || m_operation.nonce.isEmpty() || m_expired)
        return updateSeen();
    const QWidget *top = window();
    if (isVisible() && top->isActiveWindow() && !(top->windowState() & Qt::WindowMinimized)) {
        if (auto marked = m_sightings->markSeen(m_operation.nonce, QStringLiteral("window")); !marked)
            showError(marked.error());
    }
    updateSeen();
}

void ApprovalCard::updateSeen()
{
    const auto seen =
        m_sightings && !m_operation.nonce.isEmpty() ? m_sightings->seenOf(m_operation.nonce) : std::nullopt;
    m_seen->setVisible(m_sightings != nullptr && !m_operation.nonce.isEmpty());
    if (seen && m_operation.decideByMs <= 0 && seen->decideByMs > 0) {
        m_operation.decideByMs = seen->decideByMs; // its time to decide counts from now on
        updateCountdown();
    }
    m_seen->setText(!seen ? tr("Not seen yet")
                          : tr("First seen at %1, %2")
                                .arg(QLocale().toString(QDateTime::fromMSecsSinceEpoch(seen->atMs).time(),
                                                        QLocale::LongFormat),
                                     seen->where == QLatin1String("window") ? tr("in the window")
                                                                            : tr("on %1").arg(seen->where)));
}

void ApprovalCard::setGrants(Grants *grants)
{
    m_grants = grants;
    updateApproveEnabled();
}

void ApprovalCard::fromNowOn(bool allow)
{
    updateApproveEnabled();
    QPushButton *button = allow ? m_allowFromNow : m_denyFromNow;
    if (!m_grants || m_operation.nonce.isEmpty() || !button->isEnabled())
        return;
    delete findChild<GrantDialog *>(QStringLiteral("grantDialog"));
    auto *dialog = new GrantDialog(Grant::offersFor(m_operation, allow ? Verdict::Allow : Verdict::Deny),
                                   m_clock, m_operation.agentSession(), this);
    dialog->setAttribute(Qt::WA_DeleteOnClose);
    connect(dialog, &QDialog::accepted, this, [this, dialog, allow, nonce = m_operation.nonce] {
        if (m_operation.nonce != nonce)
            return showError(tr("The card changed while the dialog was open: nothing was granted."));
        Grant grant = dialog->chosen();
        grant.by = m_queue.reviewer();
        // The card first: a grant is made only for a call this card's decision covers.
        auto decided =
            allow ? m_queue.approve(nonce, m_queue.reviewer(), typedConfirmation())
                  : m_queue.decline(nonce, m_queue.reviewer(),
                                    tr("You chose to deny this from now on (grant %1).").arg(grant.id));
        if (!decided)
            return showError(decided.error());
        if (auto made = m_grants->add(grant); !made)
            showError(made.error());
    });
    dialog->open();
}

void ApprovalCard::showError(const QString &message)
{
    m_error->setText(message);
    m_error->show();
}

} // namespace Countersign
