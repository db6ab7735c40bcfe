#include "operation.h"

#include <QRegularExpression>

#include <vector>

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

namespace {
// A string field of the client's self-description; empty when absent or not a string.
QString clientInfoText(const nlohmann::json &clientInfo, const char *key)
{
    if (!clientInfo.is_object())
        return {};
    const auto field = clientInfo.find(key);
    return field != clientInfo.end() && field->is_string() ? QString::fromStdString(field->get<std::string>())
                                                           : QString();
}
} // namespace

QString Operation::agentSession() const
{
    return clientInfoText(clientInfo, "session");
}

QString Operation::clientName() const
{
    return clientInfoText(clientInfo, "name");
}

namespace {

// What the first measured loss of an agent's command acts on: the path it deletes or writes, the
// branch whose commits it drops, the folder whose changes it discards; empty when nothing was
// measured.
QString measuredSubject(const nlohmann::json &blastRadius)
{
    const auto measured = blastRadius.is_object() ? blastRadius.find("measured") : blastRadius.end();
    if (!blastRadius.is_object() || measured == blastRadius.end() || !measured->is_array())
        return {};
    // What loses something first, whatever the order of the line.
    std::vector<nlohmann::json> ordered;
    for (const nlohmann::json &m : *measured) {
        if (measuredLoses(m))
            ordered.push_back(m);
    }
    for (const nlohmann::json &m : *measured) {
        if (!measuredLoses(m))
            ordered.push_back(m);
    }
    for (const nlohmann::json &m : ordered) {
        if (!m.is_object())
            continue;
        auto field = [&m](const char *key) {
            const auto it = m.find(key);
            return it != m.end() && it->is_string() ? QString::fromStdString(it->get<std::string>())
                                                    : QString();
        };
        if (const auto targets = m.find("targets"); targets != m.end() && targets->is_array()) {
            for (const nlohmann::json &t : *targets) {
                if (t.is_object() && t.value("branch", nlohmann::json()).is_string())
                    return QString::fromStdString(t["branch"].get<std::string>());
            }
        }
        for (const char *key : {"branch", "path", "folder"}) {
            if (const QString value = field(key); !value.isEmpty())
                return value;
        }
    }
    return {};
}

} // namespace

QString Operation::confirmationText() const
{
    // Only the server measures an agent's own command; a plan command's blast radius names nothing here.
    const QString measured =
        tool.startsWith(QLatin1String("agent:")) ? measuredSubject(plan.blastRadius) : QString();
    const QString target = !measured.isEmpty()      ? measured
                           : plan.targets.isEmpty() ? tool
                                                    : plan.targets.first();
    // Only a path is shortened to its own name: a command line that starts with one (run_command's
    // "/bin/sh -c ...") is typed whole.
    static const QRegularExpression space(QStringLiteral("\\s"));
    if ((!target.startsWith(QLatin1Char('/')) && !target.startsWith(QLatin1String("~/"))) ||
        target.contains(space))
        return target;
    const QString name = target.section(QLatin1Char('/'), -1, -1, QString::SectionSkipEmpty);
    return name.isEmpty() ? target : name;
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
