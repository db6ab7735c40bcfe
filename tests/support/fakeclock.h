#pragma once

#include "clock.h"

#include <QObject>
#include <QPointer>

#include <functional>
#include <vector>

// The one clock the tests move by hand: expiry and held retries are tested without sleeping.
// Moving it tells every scheduler that asked (Clock::onSet), as a clock set to another time would.
class FakeClock final : public Countersign::Clock
{
public:
    qint64 nowMs() const override { return m_now; }
    void onSet(QObject *context, std::function<void()> changed) const override
    {
        m_listeners.push_back({QPointer<QObject>(context), std::move(changed)});
    }
    void advance(qint64 ms)
    {
        m_now += ms;
        const auto listeners = m_listeners; // a listener may register another
        for (const auto &[context, changed] : listeners) {
            if (context)
                changed();
        }
    }

private:
    qint64 m_now = 1'800'000'000'000;
    mutable std::vector<std::pair<QPointer<QObject>, std::function<void()>>> m_listeners;
};
