#include "retryholder.h"

#include "clock.h"

#include <algorithm>

namespace Countersign {

namespace {
constexpr qint64 kMaxTimerMs = 24LL * 3600 * 1000;
}

RetryHolder::RetryHolder(const Clock &clock, QObject *parent) : QObject(parent), m_clock(clock)
{
    m_timer.setSingleShot(true);
    connect(&m_timer, &QTimer::timeout, this, &RetryHolder::resumeDue);
    m_clock.onSet(this, [this] { resumeDue(); });
}

RetryHolder::~RetryHolder() = default;

quint64 RetryHolder::hold(const QString &nonce, qint64 ms, std::function<void()> resume)
{
    const qint64 deadline = m_clock.nowMs() + std::clamp<qint64>(ms, 0, kMaxTimerMs);
    const quint64 id = ++m_nextId;
    m_holds.emplace(id, Hold{nonce, deadline, std::move(resume)});
    rearm();
    Q_EMIT heldChanged(nonce, count(nonce));
    return id;
}

void RetryHolder::resumeNow(quint64 id)
{
    end(id);
    rearm();
}

int RetryHolder::count(const QString &nonce) const
{
    return static_cast<int>(std::count_if(m_holds.begin(), m_holds.end(),
                                          [&nonce](const auto &h) { return h.second.nonce == nonce; }));
}

void RetryHolder::wake(const QString &nonce)
{
    QList<quint64> ids;
    for (const auto &[id, h] : m_holds) {
        if (h.nonce == nonce)
            ids.append(id);
    }
    for (quint64 id : ids)
        end(id);
    rearm();
}

void RetryHolder::resumeDue()
{
    const qint64 now = m_clock.nowMs();
    QList<quint64> ids;
    for (const auto &[id, h] : m_holds) {
        if (h.deadlineMs <= now)
            ids.append(id);
    }
    for (quint64 id : ids)
        end(id);
    rearm();
}

QSet<QString> RetryHolder::nonces() const
{
    QSet<QString> out;
    for (const auto &[id, h] : m_holds)
        out.insert(h.nonce);
    return out;
}

void RetryHolder::end(quint64 id)
{
    // Taken out before resuming: a resume may hold or wake again.
    auto it = m_holds.find(id);
    if (it == m_holds.end())
        return;
    std::function<void()> resume = std::move(it->second.resume);
    const QString nonce = it->second.nonce;
    m_holds.erase(it);
    Q_EMIT heldChanged(nonce, count(nonce));
    resume();
}

void RetryHolder::rearm()
{
    if (m_holds.empty()) {
        m_timer.stop();
        return;
    }
    qint64 earliest = std::numeric_limits<qint64>::max();
    for (const auto &[id, h] : m_holds)
        earliest = std::min(earliest, h.deadlineMs);
    // A clock that stands still (a test's) re-arms for the same span; one that runs reaches it.
    m_timer.start(static_cast<int>(std::clamp<qint64>(earliest - m_clock.nowMs(), 0, kMaxTimerMs)));
}

} // namespace Countersign
