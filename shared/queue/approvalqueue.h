#pragma once

#include "operation.h"
#include "result.h"

#include <QHash>
#include <QList>
#include <QObject>
#include <QSet>
#include <QTimer>

namespace Countersign {

class AuditStore;
class Clock;

// The pending approval cards, on the console's side (main thread, its own AuditStore). The server
// parks cards here through queued signals; a human decides through approve()/decline(), which store
// the decision in SQLite first and then announce it. Cards whose ticket expired are retired by a
// sweep. The window (and tests) use only this API.
class ApprovalQueue final : public QObject
{
    Q_OBJECT
public:
    ApprovalQueue(AuditStore &store, const Clock &clock, QObject *parent = nullptr);
    Q_DISABLE_COPY_MOVE(ApprovalQueue)

    // Loads the cards still pending in the store (after a restart of the app).
    Status restore();
    // A store shared with other instances changed: cards they raised are added, cards settled
    // there (decided in another console, expired) go with their outcome.
    Status sync();
    // A card restore() brought back: made before this start, so the agent that asked may no longer
    // be waiting for it (an approval then runs nothing until that agent calls again).
    bool isFromBeforeRestart(const QString &nonce) const { return m_restored.contains(nonce); }
    // Whether an agent waits on the card now, as this console's server knows it: Unknown for a
    // card no call of this server has waited on (another instance's, or one restored and not
    // joined since); Waiting while a call is held for it (and for kWaitingGraceMs after, the gap
    // between a client's retries); Gone after that (an approval then runs at the agent's next
    // identical call, until the card expires).
    enum class Agent { Unknown, Waiting, Gone };
    static constexpr qint64 kWaitingGraceMs = 3000;
    Agent agentOf(const QString &nonce) const;
    // What the agent's client answered the card's prompt by itself, in words for the card (it
    // decides nothing); empty when it answered nothing.
    QString clientAnswerOf(const QString &nonce) const { return m_clientAnswers.value(nonce); }
    // A human saw the card: its time to decide ends at decideByMs (CardSightings), said by
    // deadlineChanged; a later sighting changes nothing.
    void setDecideBy(const QString &nonce, qint64 decideByMs);
    // Newest first.
    const QList<Operation> &pending() const { return m_cards; }
    std::optional<Operation> find(const QString &nonce) const;

    // approver names the human ("console:alice"). For high and critical risk, typed must equal
    // Operation::confirmationText(). Refused for a card that is not pending or has expired, and
    // when the card's Review refuses the approver. On a card that needs more people, the approval
    // is recorded (the result is pending) and the card stays, changed, for the next person.
    Result<Decision> approve(const QString &nonce, const QString &approver, const QString &typed = {});
    // A reason longer than kMaxReasonChars (trimmed) is refused: the card stays, nothing is lost.
    Result<Decision> decline(const QString &nonce, const QString &approver, const QString &reason = {});
    static constexpr int kMaxReasonChars = 500;

    // Marks every card whose ticket has expired as expired, or abandoned where its agent had
    // stopped waiting, and every approval whose agent did not come back for it before the TTL as
    // timed out (the sweep timer calls it each second).
    void expireDue();

    // The human at this console, as decisions name them: console:<the OS account's login name>.
    static QString consoleUser();
    // A team's console acts for a configured person instead: reviewer() is then console:<name>.
    void setPerson(const QString &name) { m_person = name; }
    QString person() const;
    QString reviewer() const { return reviewerFor(person()); }

public Q_SLOTS:
    void park(const Countersign::Operation &operation);
    // The card was settled elsewhere (a client-mode confirmation, expiry or supersession seen by
    // the server, or a decision written by another process).
    void retire(const QString &nonce);
    // Someone opened the card's URL (URL-mode elicitation): the window should show it.
    void reveal(const QString &nonce);
    // calls agent calls are held for the card now (the server's Gate::waiting). A call held for a
    // card from before the restart means its agent came back: the card is no longer stale.
    void setWaiting(const QString &nonce, int calls);
    // The agent's client answered the card's prompt (action accept, decline or cancel; ms after
    // it was asked): kept for the card (agentChanged).
    void noteClientAnswer(const QString &nonce, const QString &action, qint64 ms);

Q_SIGNALS:
    void cardAdded(const Countersign::Operation &operation);
    void cardRemoved(const QString &nonce, Countersign::Operation::Status status);
    // A pending card's approvals changed (given here or in another console sharing the store).
    void cardChanged(const Countersign::Operation &operation);
    // A human saw the card: its deadline (Operation::deadlineMs) is nearer now.
    void deadlineChanged(const QString &nonce);
    // sync() read the store again.
    void synced();
    // Whether an agent waits on the card changed (agentOf).
    void agentChanged(const QString &nonce);
    // A card left the queue because its ticket expired undecided (after cardRemoved).
    void cardExpired(const Countersign::Operation &operation);
    // A decision was stored; the server wakes the retries waiting for it.
    void decided(const QString &nonce);
    void revealRequested(const QString &nonce);
    void storeError(const QString &message);

private:
    QString m_person; // empty: the OS account
    Result<Decision> settle(const QString &nonce, Decision decision);
    // The decision for a card whose ticket expired undecided: abandoned when its agent had gone.
    Decision lapsed(const QString &nonce, qint64 nowMs) const;
    // The queued card itself, to change in place; null when none has that nonce.
    Operation *cardOf(const QString &nonce);
    // Reads the card's approvals back from the store.
    Status refresh(const QString &nonce);
    void removeCard(const QString &nonce, Operation::Status status);

    AuditStore &m_store;
    const Clock &m_clock;
    QList<Operation> m_cards;
    QSet<QString> m_restored;
    struct Waiting final
    {
        int calls = 0;
        qint64 lastMs = 0; // when the last held call ended
    };
    QHash<QString, Waiting> m_waiting;
    QHash<QString, QString> m_clientAnswers;
    QString m_sweepError; // the lapse sweep's last failure, said once
    QTimer m_sweep;
};

} // namespace Countersign
