#pragma once

#include "operation.h"
#include "result.h"

#include <QHash>
#include <QObject>
#include <QSet>
#include <QTimer>

#include <optional>

namespace Countersign {

class ApprovalQueue;
class AuditStore;
class Clock;
class Config;

// Whether a human has seen a card, for sure (issue 51): the first time it was actually shown, the
// window visible and active with the card on it, or a paired phone's page visible with it, is an
// event of the audit chain under the card ("card-seen": where, seenMs), said on the card and in its
// audit row. A card nobody has seen kUnseenAfterMs (setUnseenAfterMs) after it was made is said
// once (unseen): the window then notifies again with a sound, as the phone's page already shows
// every new card. A card's time to decide (ttlSeconds) counts from its first sight: the event
// holds when it ends (decideByMs), and the queue's card carries it (Operation::decideByMs) for the
// window, the phone and the queue's own expiry; the gate reads it from the chain. One thread (the
// queue's).
//
// Who can write a sighting matters: only the console's own store connection (the window and the
// phone in its process) records one, under a signed checkpoint; and a sighting can only bring the
// end nearer than the sealed ticket's (Operation::deadlineMs), never past it.
class CardSightings final : public QObject
{
    Q_OBJECT
public:
    struct Seen final
    {
        qint64 atMs = 0;
        QString where;         // "window", or "phone:<name>"
        qint64 decideByMs = 0; // atMs + ttlSeconds, as it was then
    };

    CardSightings(ApprovalQueue &queue, AuditStore &store, const Clock &clock, QObject *parent = nullptr);
    Q_DISABLE_COPY_MOVE(CardSightings)

    // The card was shown there now: recorded the first time only, and only while it waits.
    Status markSeen(const QString &nonce, const QString &where);
    // When and where it was first seen (read from the chain for a card seen by another process or
    // before a restart); nothing while no one has seen it.
    std::optional<Seen> seenOf(const QString &nonce);
    // Whether the card was said unseen (the signal below) and no one has seen it since: a page
    // that was not listening when it was said learns it from the list.
    bool saidUnseen(const QString &nonce) const { return m_said.contains(nonce) && !m_seen.contains(nonce); }
    // A card unseen this long after it was made is said (unseen); 0: never.
    void setUnseenAfterMs(qint64 ms) { m_unseenAfterMs = ms; }
    // How long a human has to decide once they have seen a card (ttlSeconds).
    void setTimeToDecideMs(qint64 ms) { m_timeToDecideMs = ms; }
    // Both from the configuration in force (cardUnseenSeconds, ttlSeconds).
    void configure(const Config &config);

Q_SIGNALS:
    void seen(const QString &nonce);
    void unseen(const Countersign::Operation &operation);

private:
    void sweep();
    // A card seen before it reached this queue (by another process, or before a restart): the
    // queue's card is told when its time to decide ends.
    void learn(const QString &nonce);

    ApprovalQueue &m_queue;
    AuditStore &m_store;
    const Clock &m_clock;
    QHash<QString, Seen> m_seen;
    QSet<QString> m_said; // unseen cards already said
    qint64 m_unseenAfterMs = 60'000;
    qint64 m_timeToDecideMs = 300'000;
    QTimer m_sweep;
};

} // namespace Countersign
