#pragma once

#include <QtGlobal>

#include <functional>

class QObject;

namespace Countersign {

// Wall-clock time in milliseconds since the Unix epoch. Injected wherever time decides an outcome
// (ticket expiry, countdowns, how long a retry is held) so tests can move time without sleeping.
class Clock
{
public:
    virtual ~Clock() = default;
    virtual qint64 nowMs() const = 0;

    // Asks to be told, through changed (called on the clock's caller's thread, while context
    // lives), whenever this clock is set to another time rather than running on: a scheduler then
    // checks its deadlines at once. A clock that only runs on (the system clock) never calls it.
    virtual void onSet(QObject *context, std::function<void()> changed) const
    {
        Q_UNUSED(context)
        Q_UNUSED(changed)
    }
};

} // namespace Countersign
