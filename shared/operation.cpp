#include "operation.h"

namespace Countersign {

namespace {
constexpr const char *kStatusNames[] = {"pending",    "approved", "declined", "expired",
                                        "superseded", "allowed",  "denied"};
}

QString statusName(Operation::Status status)
{
    return QLatin1String(kStatusNames[static_cast<int>(status)]);
}

std::optional<Operation::Status> parseStatus(const QString &name)
{
    for (int i = 0; i < 7; ++i) {
        if (name == QLatin1String(kStatusNames[i]))
            return static_cast<Operation::Status>(i);
    }
    return std::nullopt;
}

} // namespace Countersign
