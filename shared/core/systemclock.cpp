#include "systemclock.h"

#include <QDateTime>

namespace Countersign {

qint64 SystemClock::nowMs() const
{
    return QDateTime::currentMSecsSinceEpoch();
}

} // namespace Countersign
