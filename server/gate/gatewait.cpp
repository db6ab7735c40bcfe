// 7. The gate's waiting for the human (gate.cpp reads the flow top to bottom): a retry held until
// the card is decided, its hold ends or its time to decide does; decisions and sightings written by
// another process reach the held retries through SQLite.
#include "gate.h"

#include "auditstore.h"
#include "clock.h"
#include "gateinternal.h"
#include "retryholder.h"

#include <QPointer>

namespace Countersign {

std::optional<qint64> Gate::seenDecideBy(const QString &nonce) const
{
    auto decideBy = m_store.decideByOf(nonce);
    return decideBy ? decideBy.value() : std::nullopt; // unreadable: the seal alone bounds it
}

qint64 Gate::deadlineOf(const Ticket &ticket) const
{
    const std::optional<qint64> decideBy = seenDecideBy(ticket.nonce);
    return decideBy ? std::min(ticket.exp, *decideBy) : ticket.exp;
}

// Woken by a decision or at the end of the window, the call is judged again, without holding.
void Gate::hold(const RequestPtr &request, const Ticket &ticket, qint64 windowMs, GateDone done)
{
    // One connection's calls held at once are bounded: past the bound, it is answered now as a
    // call that may not be held is (still waiting: call again).
    const QString who = request->principal.name;
    if (m_heldBy.value(who) >= kMaxHeldPerConnection) {
        qCInfo(lcGate) << "not held:" << who << "has" << kMaxHeldPerConnection << "calls held already";
        return evaluate(request, ticket, std::move(done), false);
    }
    ++m_heldBy[who];
    const quint64 id =
        m_holder->hold(ticket.nonce, windowMs,
                       [self = QPointer<Gate>(this), request, ticket, who, done = std::move(done)]() mutable {
                           if (!self)
                               return;
                           if (--self->m_heldBy[who] <= 0)
                               self->m_heldBy.remove(who);
                           self->evaluate(request, ticket, std::move(done), false);
                       });
    if (request->task) // a cancelled task ends its hold at once (and is answered, nothing run)
        request->task->onCancel = [holder = QPointer<RetryHolder>(m_holder), id] {
            if (holder)
                holder->resumeNow(id);
        };
    if (request->isCancelled()) // cancelled while it was planned
        m_holder->resumeNow(id);
    if (!m_poll.isActive())
        m_poll.start();
}

void Gate::forget(const QString &nonce)
{
    m_promptedMs.remove(nonce);
    m_rounds.remove(nonce);
    m_seenDecideBy.remove(nonce);
}

void Gate::wake(const QString &nonce)
{
    forget(nonce);
    m_holder->wake(nonce);
}

// Decisions stored by another process (the test host's decide tool, a second console) reach the
// held retries through SQLite.
void Gate::pollDecisions()
{
    if (m_holder->count() == 0) {
        m_poll.stop();
        return;
    }
    const qint64 now = m_clock.nowMs();
    for (const QString &nonce : m_holder->nonces()) {
        auto status = m_store.status(nonce);
        if (status && status.value() && *status.value() != Operation::Status::Pending) {
            Q_EMIT retired(nonce);
            m_seenDecideBy.remove(nonce);
            m_holder->wake(nonce);
            continue;
        }
        // A human saw it (in this process or another): its time to decide may end before the
        // hold does. Read from the chain until it is known, then kept.
        auto seen = m_seenDecideBy.constFind(nonce);
        if (seen == m_seenDecideBy.cend()) {
            if (const auto decideBy = seenDecideBy(nonce))
                seen = m_seenDecideBy.insert(nonce, *decideBy);
        }
        if (seen != m_seenDecideBy.cend() && now >= *seen) {
            m_seenDecideBy.remove(nonce);
            m_holder->wake(nonce); // judged again: expired
        }
    }
}

} // namespace Countersign
