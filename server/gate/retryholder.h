#pragma once

#include <QObject>
#include <QSet>
#include <QTimer>

#include <functional>
#include <map>

namespace Countersign {

class Clock;

// Holds retries of pending tickets until the human decides or the poll window ends, with time
// measured on the injected clock. One timer, armed for the earliest deadline; every hold ends
// through one place, exactly once: woken, due, or dropped with the holder.
class RetryHolder final : public QObject
{
    Q_OBJECT
public:
    explicit RetryHolder(const Clock &clock, QObject *parent = nullptr);
    Q_DISABLE_COPY_MOVE(RetryHolder)
    // Drops the holds left without resuming them: their owner is going away.
    ~RetryHolder() override;

    // Calls resume once: when wake() names nonce, once ms have passed on the clock, or when
    // resumeNow() names the id returned.
    quint64 hold(const QString &nonce, qint64 ms, std::function<void()> resume);
    // Resumes that one hold now (nothing if it has ended).
    void resumeNow(quint64 id);
    // Resumes every hold for nonce now.
    void wake(const QString &nonce);
    // Resumes every hold whose deadline has passed on the clock (the timer calls it; so does a
    // clock that was set).
    void resumeDue();

    int count() const { return static_cast<int>(m_holds.size()); }
    int count(const QString &nonce) const;
    QSet<QString> nonces() const;

Q_SIGNALS:
    // How many calls are held for nonce changed (a hold began or ended): calls is the new number.
    void heldChanged(const QString &nonce, int calls);

private:
    struct Hold final
    {
        QString nonce;
        qint64 deadlineMs = 0;
        std::function<void()> resume;
    };
    void end(quint64 id);
    void rearm();

    const Clock &m_clock;
    std::map<quint64, Hold> m_holds;
    quint64 m_nextId = 0;
    QTimer m_timer;
};

} // namespace Countersign
