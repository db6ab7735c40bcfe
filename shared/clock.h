#pragma once

#include <QtGlobal>

namespace Countersign {

// Wall-clock time in milliseconds since the Unix epoch. Injected wherever time decides an outcome
// (ticket expiry, countdowns) so tests can move time without sleeping.
class Clock
{
public:
    virtual ~Clock() = default;
    virtual qint64 nowMs() const = 0;
};

} // namespace Countersign
