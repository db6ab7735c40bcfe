#include "plan.h"

#include "canonicaljson.h"

namespace Countersign {

namespace {
using json = nlohmann::json;
constexpr const char *kRiskNames[] = {"low", "medium", "high", "critical"};
} // namespace

QString riskName(Risk risk)
{
    return QLatin1String(kRiskNames[static_cast<int>(risk)]);
}

std::optional<Risk> parseRisk(const QString &name)
{
    for (int i = 0; i < 4; ++i) {
        if (name == QLatin1String(kRiskNames[i]))
            return static_cast<Risk>(i);
    }
    return std::nullopt;
}

Plan Plan::settledByRule(const QString &tool, const QStringList &targets)
{
    Plan plan;
    plan.title = tool;
    plan.targets = targets;
    plan.risk = Risk::Low;
    return plan;
}

json Plan::toJson() const
{
    json targetList = json::array();
    for (const QString &target : targets)
        targetList.push_back(target.toStdString());
    return {{"title", title.toStdString()},        {"prompt", prompt.toStdString()},
            {"summary", summary.toStdString()},    {"diff", diff.toStdString()},
            {"targets", std::move(targetList)},    {"blastRadius", blastRadius},
            {"risk", riskName(risk).toStdString()}};
}

Result<Plan> Plan::fromJson(const json &value)
{
    if (!value.is_object())
        return failure(QStringLiteral("plan: not an object"));
    Plan plan;
    const auto str = [&](const char *key, QString &out) {
        const auto it = value.find(key);
        if (it == value.end() || !it->is_string())
            return false;
        out = QString::fromStdString(it->get<std::string>());
        return true;
    };
    QString risk;
    if (!str("title", plan.title) || !str("prompt", plan.prompt) || !str("summary", plan.summary) ||
        !str("diff", plan.diff) || !str("risk", risk))
        return failure(QStringLiteral("plan: a text field is missing"));
    const auto r = parseRisk(risk);
    if (!r)
        return failure(QStringLiteral("plan: unknown risk \"%1\"").arg(risk));
    plan.risk = *r;
    const auto targets = value.find("targets");
    if (targets == value.end() || !targets->is_array())
        return failure(QStringLiteral("plan: targets must be an array"));
    for (const json &t : *targets) {
        if (!t.is_string())
            return failure(QStringLiteral("plan: every target must be a string"));
        plan.targets.append(QString::fromStdString(t.get<std::string>()));
    }
    const auto blast = value.find("blastRadius");
    if (blast == value.end() || !blast->is_object())
        return failure(QStringLiteral("plan: blastRadius must be an object"));
    plan.blastRadius = *blast;
    return plan;
}

bool Plan::keptInFull() const
{
    if (isIrreversible() || !blastRadius.is_object())
        return false;
    const auto undo = blastRadius.find("undo");
    if (undo == blastRadius.end() || !undo->is_object() || undo->contains("refused"))
        return false;
    const auto files = undo->find("files");
    return files != undo->end() && files->is_number_integer() && files->get<qint64>() > 0;
}

QString Plan::digest() const
{
    return QString::fromLatin1(CanonicalJson::digest(toJson()));
}

} // namespace Countersign
