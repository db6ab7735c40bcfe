#include "cardsightings.h"

#include "approvalqueue.h"
#include "auditstore.h"
#include "clock.h"
#include "config.h"

namespace Countersign {

CardSightings::CardSightings(ApprovalQueue &queue, AuditStore &store, const Clock &clock, QObject *parent)
    : QObject(parent), m_queue(queue), m_store(store), m_clock(clock)
{
    connect(&m_queue, &ApprovalQueue::cardRemoved, this, [this](const QString &nonce) {
        m_seen.remove(nonce);
        m_said.remove(nonce);
    });
    connect(&m_queue, &ApprovalQueue::cardAdded, this, [this](const Operation &op) { learn(op.nonce); });
    for (const Operation &op : m_queue.pending()) // restored before this was made
        learn(op.nonce);
    // The store changed under the queue (another process, or this one's server): a sighting made
    // there reaches the queue's cards too.
    connect(&m_queue, &ApprovalQueue::synced, this, [this] {
        for (const Operation &op : m_queue.pending())
            learn(op.nonce);
    });
    m_sweep.setInterval(1000);
    connect(&m_sweep, &QTimer::timeout, this, &CardSightings::sweep);
    m_sweep.start();
}

void CardSightings::configure(const Config &config)
{
    setUnseenAfterMs(config.cardUnseenSeconds() * 1000LL);
    setTimeToDecideMs(config.ttlSeconds() * 1000LL);
}

void CardSightings::learn(const QString &nonce)
{
    const auto card = m_queue.find(nonce);
    if (!card || card->decideByMs > 0)
        return;
    if (const auto seen = seenOf(nonce))
        m_queue.setDecideBy(nonce, seen->decideByMs);
}

Status CardSightings::markSeen(const QString &nonce, const QString &where)
{
    const auto card = m_queue.find(nonce);
    if (!card || card->status != Operation::Status::Pending)
        return success();
    if (const auto earlier = seenOf(nonce)) { // seen before (here, or by another process)
        m_queue.setDecideBy(nonce, earlier->decideByMs);
        return success();
    }
    const qint64 now = m_clock.nowMs();
    const qint64 decideBy = now + m_timeToDecideMs;
    if (auto recorded =
            m_store.recordEvent(QStringLiteral("card-seen"), nonce,
                                {{"where", where.toStdString()}, {"seenMs", now}, {"decideByMs", decideBy}});
        !recorded)
        return recorded;
    m_seen.insert(nonce, Seen{now, where, decideBy});
    m_queue.setDecideBy(nonce, decideBy);
    Q_EMIT seen(nonce);
    return success();
}

std::optional<CardSightings::Seen> CardSightings::seenOf(const QString &nonce)
{
    if (const auto known = m_seen.constFind(nonce); known != m_seen.cend())
        return *known;
    auto rows = m_store.eventsOf(nonce, QStringLiteral("card-seen"));
    if (!rows || rows.value().isEmpty())
        return std::nullopt;
    const nlohmann::json &first = rows.value().first();
    const auto integer = [&first](const char *key) -> qint64 {
        const auto at = first.is_object() ? first.find(key) : first.end();
        return first.is_object() && at != first.end() && at->is_number_integer() ? at->get<qint64>() : 0;
    };
    Seen seen{integer("seenMs"),
              QString::fromStdString(first.is_object() && first.value("where", nlohmann::json()).is_string()
                                         ? first.value("where", std::string())
                                         : std::string()),
              integer("decideByMs")};
    if (seen.decideByMs <= 0 && seen.atMs > 0) // seen before sightings said when its time ends
        seen.decideByMs = seen.atMs + m_timeToDecideMs;
    if (m_queue.find(nonce))
        m_seen.insert(nonce, seen);
    return seen;
}

void CardSightings::sweep()
{
    if (m_unseenAfterMs <= 0)
        return;
    const qint64 now = m_clock.nowMs();
    for (const Operation &op : m_queue.pending()) {
        if (m_said.contains(op.nonce) || now - op.createdMs < m_unseenAfterMs || op.isExpiredAt(now) ||
            m_seen.contains(op.nonce))
            continue;
        m_said.insert(op.nonce);
        if (!seenOf(op.nonce))
            Q_EMIT unseen(op);
    }
}

} // namespace Countersign
