#include "operation.h"

namespace Countersign {

QString Review::refusal(const QString &reviewer) const
{
    const bool atConsole = reviewer.startsWith(QLatin1String("console:"));
    if (!atConsole && (people > 1 || ownerBarred))
        return QStringLiteral("this card must be approved at a console (the team's review rules)");
    if (ownerBarred && owner.isEmpty())
        return QStringLiteral("the calling connection has no owner on record, and the review rules bar a "
                              "connection's owner from approving its calls: no one can approve it (add the "
                              "connection again to record its owner)");
    if (ownerBarred && reviewer == reviewerFor(owner))
        return QStringLiteral("the call came through your own connection: another person must approve it");
    if (approvedBy.contains(reviewer))
        return QStringLiteral("you approved it already: %1 more person must approve it").arg(stillNeeded());
    return {};
}

QString Operation::clientName() const
{
    if (!clientInfo.is_object())
        return {};
    const auto name = clientInfo.find("name");
    return name != clientInfo.end() && name->is_string() ? QString::fromStdString(name->get<std::string>())
                                                         : QString();
}

namespace {
constexpr const char *kStatusNames[] = {"pending", "approved", "declined",  "expired",  "superseded",
                                        "allowed", "denied",   "abandoned", "timed-out"};
}

QString statusName(Operation::Status status)
{
    return QLatin1String(kStatusNames[static_cast<int>(status)]);
}

std::optional<Operation::Status> parseStatus(const QString &name)
{
    for (int i = 0; i < int(std::size(kStatusNames)); ++i) {
        if (name == QLatin1String(kStatusNames[i]))
            return static_cast<Operation::Status>(i);
    }
    return std::nullopt;
}

} // namespace Countersign
