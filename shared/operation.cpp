#include "operation.h"

namespace Countersign {

QString Operation::clientName() const
{
    if (!clientInfo.is_object())
        return {};
    const auto name = clientInfo.find("name");
    return name != clientInfo.end() && name->is_string() ? QString::fromStdString(name->get<std::string>())
                                                         : QString();
}

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
