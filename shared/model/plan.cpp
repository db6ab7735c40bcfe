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
    json out = {{"title", title.toStdString()},        {"prompt", prompt.toStdString()},
                {"summary", summary.toStdString()},    {"diff", diff.toStdString()},
                {"targets", std::move(targetList)},    {"blastRadius", blastRadius},
                {"risk", riskName(risk).toStdString()}};
    if (!request.isEmpty()) // absent when none: the digests of plans made before it stay as they were
        out["request"] = request.toStdString();
    return out;
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
    if (value.contains("request") && !str("request", plan.request))
        return failure(QStringLiteral("plan: request must be a string"));
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

bool measuredLoses(const nlohmann::json &m)
{
    if (!m.is_object())
        return false;
    const auto text = [&m](const char *key) {
        const auto it = m.find(key);
        return it != m.end() && it->is_string() ? it->get<std::string>() : std::string();
    };
    const auto count = [&m](const char *key) {
        const auto it = m.find(key);
        if (it == m.end())
            return qint64(0);
        if (it->is_number_integer())
            return it->get<qint64>();
        return it->is_array() ? qint64(it->size()) : qint64(0);
    };
    const auto flag = [&m](const char *key, bool otherwise) {
        const auto it = m.find(key);
        return it != m.end() && it->is_boolean() ? it->get<bool>() : otherwise;
    };
    const std::string kind = text("kind");
    if (kind == "delete")
        return count("files") > 0 || count("folders") > 0;
    if (kind == "discard" || kind == "clean")
        return count("files") > 0;
    if (kind == "stash")
        return count("stashes") > 0;
    if (kind == "branch")
        return count("commits") > 0;
    if (kind == "push") {
        for (const auto &t : m.value("targets", nlohmann::json::array())) {
            if (t.is_object() && t.value("commits", nlohmann::json(0)).is_number_integer() &&
                t.value("commits", nlohmann::json(0)).get<qint64>() > 0)
                return true;
        }
        return false;
    }
    if (kind == "write")
        return flag("exists", true) && flag("replaces", false);
    return true; // an entry of a kind not known here: taken as a loss
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
