#pragma once

#include "clock.h"

namespace Countersign {

class SystemClock final : public Clock
{
public:
    qint64 nowMs() const override;
};

} // namespace Countersign
