#include "approvalqueue.h"

#include "auditstore.h"
#include "clock.h"
#include "config.h"

#include <QLoggingCategory>
#include <QSet>

Q_LOGGING_CATEGORY(lcQueue, "countersign.queue")

namespace Countersign {

ApprovalQueue::ApprovalQueue(AuditStore &store, const Clock &clock, QObject *parent)
    : QObject(parent), m_store(store), m_clock(clock)
{
    qRegisterMetaType<Countersign::Operation>();
    qRegisterMetaType<Countersign::Operation::Status>();
    m_sweep.setInterval(1000);
    connect(&m_sweep, &QTimer::timeout, this, &ApprovalQueue::expireDue);
    m_sweep.start();
}

Status ApprovalQueue::restore()
{
    QStringList refused;
    auto pending = m_store.pendingOperations(&refused);
    for (const QString &why : refused)
        qCCritical(lcQueue) << "card not shown:" << why;
    if (!pending)
        return failure(pending.error());
    for (const Operation &op : pending.value()) {
        if (!find(op.nonce)) {
            m_restored.insert(op.nonce);
            park(op);
        }
    }
    expireDue();
    return success();
}

Status ApprovalQueue::sync()
{
    QStringList refused;
    auto pending = m_store.pendingOperations(&refused);
    for (const QString &why : refused)
        qCCritical(lcQueue) << "card not shown:" << why;
    if (!pending)
        return failure(pending.error());
    QSet<QString> stillPending;
    for (const Operation &op : pending.value()) {
        stillPending.insert(op.nonce);
        if (Operation *card = cardOf(op.nonce); card && card->review != op.review) {
            card->review = op.review; // approved in another console, waiting for the next person
            Q_EMIT cardChanged(*card);
        }
        park(op);
    }
    const QList<Operation> cards = m_cards;
    for (const Operation &card : cards) {
        if (stillPending.contains(card.nonce))
            continue;
        auto status = m_store.status(card.nonce);
        if (!status)
            return failure(status.error());
        // Pending in its row yet left out above: its row differs from the chain. The card stays as it
        // was shown, and approving it is refused by the store with why.
        if (status.value() && *status.value() == Operation::Status::Pending)
            continue;
        removeCard(card.nonce, status.value() ? *status.value() : Operation::Status::Expired);
    }
    Q_EMIT synced();
    expireDue();
    return success();
}

void ApprovalQueue::setDecideBy(const QString &nonce, qint64 decideByMs)
{
    Operation *card = cardOf(nonce);
    if (!card || card->decideByMs > 0 || decideByMs <= 0)
        return;
    card->decideByMs = decideByMs;
    Q_EMIT deadlineChanged(nonce);
}

Status ApprovalQueue::refresh(const QString &nonce)
{
    auto stored = m_store.operation(nonce);
    if (!stored)
        return failure(stored.error());
    Operation *card = cardOf(nonce);
    if (!stored.value() || !card)
        return success();
    card->review = stored.value()->review;
    Q_EMIT cardChanged(*card);
    return success();
}

Operation *ApprovalQueue::cardOf(const QString &nonce)
{
    auto card = std::find_if(m_cards.begin(), m_cards.end(),
                             [&nonce](const Operation &c) { return c.nonce == nonce; });
    return card == m_cards.end() ? nullptr : &*card;
}

std::optional<Operation> ApprovalQueue::find(const QString &nonce) const
{
    for (const Operation &op : m_cards) {
        if (op.nonce == nonce)
            return op;
    }
    return std::nullopt;
}

QString ApprovalQueue::person() const
{
    return m_person.isEmpty() ? Config::osLogin() : m_person;
}

QString ApprovalQueue::consoleUser()
{
    return reviewerFor(Config::osLogin());
}

Result<Decision> ApprovalQueue::approve(const QString &nonce, const QString &approver, const QString &typed)
{
    const auto card = find(nonce);
    if (!card)
        return failure(QStringLiteral("no pending approval %1").arg(nonce));
    if (const QString refused = card->review.refusal(approver); !refused.isEmpty())
        return failure(refused); // the store refuses it too, under its write lock
    if (card->needsTypedConfirmation() && typed != card->confirmationText())
        return failure(QStringLiteral("type \"%1\" to approve a %2-risk operation")
                           .arg(card->confirmationText(), riskName(card->plan.risk)));
    return settle(nonce, Decision{Operation::Status::Approved, approver, {}, m_clock.nowMs()});
}

Result<Decision> ApprovalQueue::decline(const QString &nonce, const QString &approver, const QString &reason)
{
    if (!find(nonce))
        return failure(QStringLiteral("no pending approval %1").arg(nonce));
    const QString trimmed = reason.trimmed();
    if (trimmed.size() > kMaxReasonChars)
        return failure(QStringLiteral("a reason to decline is at most %1 characters; this one has %2")
                           .arg(kMaxReasonChars)
                           .arg(trimmed.size()));
    return settle(nonce, Decision{Operation::Status::Declined, approver, trimmed, m_clock.nowMs()});
}

Result<Decision> ApprovalQueue::settle(const QString &nonce, Decision decision)
{
    const auto card = find(nonce);
    if (card && card->isExpiredAt(m_clock.nowMs()))
        decision = lapsed(nonce, m_clock.nowMs());
    auto stored = m_store.decide(nonce, decision);
    if (!stored) {
        Q_EMIT storeError(stored.error());
        return stored; // fail closed: nothing is announced, the card stays
    }
    if (stored.value().outcome == Operation::Status::Pending) { // one approval of several
        if (auto changed = refresh(nonce); !changed)
            Q_EMIT storeError(changed.error());
        return stored;
    }
    removeCard(nonce, stored.value().outcome);
    Q_EMIT decided(nonce);
    // The approval that completes a card of several people's is by all of them, this one last.
    const bool ours =
        stored.value().by == decision.by || (decision.outcome == Operation::Status::Approved &&
                                             stored.value().by.endsWith(QStringLiteral(", ") + decision.by));
    if (stored.value().outcome != decision.outcome || !ours) {
        if (stored.value().outcome == Operation::Status::Expired ||
            stored.value().outcome == Operation::Status::Abandoned)
            return failure(QStringLiteral("the approval expired before it was decided"));
        return failure(
            QStringLiteral("already %1 by %2").arg(statusName(stored.value().outcome), stored.value().by));
    }
    return stored;
}

Decision ApprovalQueue::lapsed(const QString &nonce, qint64 nowMs) const
{
    if (agentOf(nonce) == Agent::Gone)
        return Decision{Operation::Status::Abandoned, QStringLiteral("server"),
                        QStringLiteral("the ticket expired after its agent stopped waiting"), nowMs};
    return Decision{Operation::Status::Expired, QStringLiteral("server"),
                    QStringLiteral("the ticket expired"), nowMs};
}

void ApprovalQueue::expireDue()
{
    const qint64 now = m_clock.nowMs();
    const QList<Operation> cards = m_cards;
    for (const Operation &op : cards) {
        if (!op.isExpiredAt(now))
            continue;
        auto stored = m_store.decide(op.nonce, lapsed(op.nonce, now));
        if (!stored) {
            Q_EMIT storeError(stored.error());
            continue;
        }
        removeCard(op.nonce, stored.value().outcome);
        Q_EMIT decided(op.nonce);
    }
    // Approvals whose agent did not come back for them before the TTL: timed out, nothing ran.
    // Said once per failure, not every second while the store is away.
    if (auto timedOut = m_store.timeOutLapsedApprovals(); !timedOut) {
        if (timedOut.error() != m_sweepError)
            Q_EMIT storeError(timedOut.error());
        m_sweepError = timedOut.error();
    } else {
        m_sweepError.clear();
    }
}

void ApprovalQueue::park(const Operation &operation)
{
    if (find(operation.nonce))
        return;
    qCInfo(lcQueue) << "card" << operation.nonce << "for" << operation.tool << "waits";
    m_cards.prepend(operation);
    std::stable_sort(m_cards.begin(), m_cards.end(),
                     [](const Operation &a, const Operation &b) { return a.createdMs > b.createdMs; });
    Q_EMIT cardAdded(operation);
}

void ApprovalQueue::retire(const QString &nonce)
{
    if (!find(nonce))
        return;
    auto stored = m_store.status(nonce);
    const Operation::Status status =
        stored && stored.value() ? *stored.value() : Operation::Status::Expired; // unknown: treat as gone
    if (status == Operation::Status::Pending)
        return;
    removeCard(nonce, status);
}

void ApprovalQueue::setWaiting(const QString &nonce, int calls)
{
    if (!find(nonce))
        return;
    Waiting &w = m_waiting[nonce];
    w.calls = std::max(0, calls);
    if (w.calls == 0)
        w.lastMs = m_clock.nowMs();
    else
        m_restored.remove(nonce); // its agent came back and waits on it
    Q_EMIT agentChanged(nonce);
}

void ApprovalQueue::noteClientAnswer(const QString &nonce, const QString &action, qint64 ms)
{
    if (!find(nonce))
        return;
    m_clientAnswers.insert(nonce, QStringLiteral("The agent's client answered the card's prompt itself "
                                                 "(\"%1\", %2 ms after it was asked). That decides "
                                                 "nothing: the card waits for you.")
                                      .arg(action)
                                      .arg(ms));
    Q_EMIT agentChanged(nonce);
}

ApprovalQueue::Agent ApprovalQueue::agentOf(const QString &nonce) const
{
    const auto w = m_waiting.find(nonce);
    if (w == m_waiting.end())
        return Agent::Unknown;
    if (w->calls > 0 || m_clock.nowMs() - w->lastMs < kWaitingGraceMs)
        return Agent::Waiting;
    return Agent::Gone;
}

void ApprovalQueue::reveal(const QString &nonce)
{
    if (find(nonce))
        Q_EMIT revealRequested(nonce);
}

void ApprovalQueue::removeCard(const QString &nonce, Operation::Status status)
{
    const std::optional<Operation> card = find(nonce);
    if (!card)
        return;
    m_cards.removeIf([&](const Operation &op) { return op.nonce == nonce; });
    m_restored.remove(nonce);
    m_waiting.remove(nonce);
    m_clientAnswers.remove(nonce);
    qCInfo(lcQueue) << "card" << nonce << statusName(status);
    Q_EMIT cardRemoved(nonce, status);
    if (status == Operation::Status::Expired || status == Operation::Status::Abandoned)
        Q_EMIT cardExpired(*card);
}

} // namespace Countersign
