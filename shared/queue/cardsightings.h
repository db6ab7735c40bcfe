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

// Whether a human has seen a card, for sure (issue 51): the first time it was actually shown, the
// window visible and active with the card on it, or a paired phone's page visible with it, is an
// event of the audit chain under the card ("card-seen": where, seenMs), said on the card and in its
// audit row. A card nobody has seen kUnseenAfterMs (setUnseenAfterMs) after it was made is said
// once (unseen): the window then notifies again with a sound, as the phone's page already shows
// every new card. One thread (the queue's).
class CardSightings final : public QObject
{
    Q_OBJECT
public:
    struct Seen final
    {
        qint64 atMs = 0;
        QString where; // "window", or "phone:<name>"
    };

    CardSightings(ApprovalQueue &queue, AuditStore &store, const Clock &clock, QObject *parent = nullptr);
    Q_DISABLE_COPY_MOVE(CardSightings)

    // The card was shown there now: recorded the first time only, and only while it waits.
    Status markSeen(const QString &nonce, const QString &where);
    // When and where it was first seen (read from the chain for a card seen by another process or
    // before a restart); nothing while no one has seen it.
    std::optional<Seen> seenOf(const QString &nonce);
    // A card unseen this long after it was made is said (unseen); 0: never.
    void setUnseenAfterMs(qint64 ms) { m_unseenAfterMs = ms; }

Q_SIGNALS:
    void seen(const QString &nonce);
    void unseen(const Countersign::Operation &operation);

private:
    void sweep();

    ApprovalQueue &m_queue;
    AuditStore &m_store;
    const Clock &m_clock;
    QHash<QString, Seen> m_seen;
    QSet<QString> m_said; // unseen cards already said
    qint64 m_unseenAfterMs = 60'000;
    QTimer m_sweep;
};

} // namespace Countersign
