#pragma once

#include "clock.h"

// A clock the test moves by hand: expiry is tested without sleeping.
class FakeClock final : public Countersign::Clock
{
public:
    qint64 nowMs() const override { return m_now; }
    void advance(qint64 ms) { m_now += ms; }

private:
    qint64 m_now = 1'800'000'000'000;
};
