#include "policy.h"

#include "canonicaljson.h"

#include <algorithm>

namespace Countersign {

QString gateModeName(GateMode mode)
{
    return mode == GateMode::Strict ? QStringLiteral("strict") : QStringLiteral("standard");
}

std::optional<GateMode> parseGateMode(const QString &name)
{
    if (name == QLatin1String("standard"))
        return GateMode::Standard;
    if (name == QLatin1String("strict"))
        return GateMode::Strict;
    return std::nullopt;
}

namespace {

using json = nlohmann::json;

// Line breaks and control characters: C0, DEL, C1 (NEL among them) and the Unicode line and
// paragraph separators.
bool isControl(uint c)
{
    return c < 0x20 || (c >= 0x7f && c <= 0x9f) || c == 0x2028 || c == 0x2029;
}

// '*' matches any run of characters ('/' included), '?' one character; everything else is literal,
// and the pattern covers the whole text. No wildcard matches a control character or a line break,
// and a text holding one matches no pattern: "tmp-*" must not allow "tmp-x\n; touch /tmp/injected".
// Read without regular expressions, so no match limit can make a long value slip past a deny rule.
bool globMatch(const QString &pattern, const QString &text)
{
    const auto p = pattern.toUcs4();
    const auto t = text.toUcs4();
    if (std::any_of(t.cbegin(), t.cend(), isControl))
        return false;
    qsizetype pi = 0;
    qsizetype ti = 0;
    qsizetype star = -1; // the last '*' seen, and where in the text its run would end
    qsizetype resume = 0;
    while (ti < t.size()) {
        if (pi < p.size() && p[pi] == U'*') {
            star = pi++;
            resume = ti;
        } else if (pi < p.size() && (p[pi] == U'?' || p[pi] == t[ti])) {
            ++pi;
            ++ti;
        } else if (star >= 0) {
            pi = star + 1;
            ti = ++resume;
        } else {
            return false;
        }
    }
    while (pi < p.size() && p[pi] == U'*')
        ++pi;
    return pi == p.size();
}

} // namespace

std::optional<Verdict> parseVerdict(const QString &name)
{
    for (const Verdict v : {Verdict::Allow, Verdict::Ask, Verdict::Deny})
        if (name == verdictName(v))
            return v;
    return std::nullopt;
}

QString verdictName(Verdict verdict)
{
    switch (verdict) {
    case Verdict::Allow:
        return QStringLiteral("allow");
    case Verdict::Ask:
        return QStringLiteral("ask");
    case Verdict::Deny:
        return QStringLiteral("deny");
    }
    return {};
}

bool Rule::matches(const QString &toolName, const json &args, const PathSpellings &paths) const
{
    if (!globMatch(tool, toolName))
        return false;
    for (const auto &[name, pattern] : arguments) {
        const auto it = args.find(name.toStdString());
        if (it == args.end())
            return false;
        const auto text = Rule::argumentText(*it);
        const bool sentMatches = text && (globMatch(pattern, *text) || sameNumber(pattern, *it));
        const auto spelled = paths.find(name);
        if (spelled == paths.end()) {
            if (!sentMatches)
                return false;
            continue;
        }
        const QString glob = pathGlob(pattern);
        const bool resolvedMatches =
            std::any_of(spelled->second.cbegin(), spelled->second.cend(),
                        [&glob](const QString &path) { return globMatch(glob, path); });
        // An allow rule lets through only what the call acts on: "link/x" is not allowed by a rule
        // on link/* when link leads elsewhere. A deny or ask rule holds for either, the text as
        // sent read as a path too ("build/" for a rule on ./build).
        const bool sentPathMatches = sentMatches || (text && globMatch(glob, pathGlob(*text)));
        if (!resolvedMatches && (verdict == Verdict::Allow || !sentPathMatches))
            return false;
    }
    if (!argvPrefix.isEmpty()) {
        const auto argv = args.find("argv");
        if (argv == args.end() || !argv->is_array() || argv->size() < static_cast<size_t>(argvPrefix.size()))
            return false;
        for (qsizetype i = 0; i < argvPrefix.size(); ++i) {
            const json &element = (*argv)[static_cast<size_t>(i)];
            if (!element.is_string() ||
                !globMatch(argvPrefix[i], QString::fromStdString(element.get<std::string>())))
                return false;
        }
    }
    return true;
}

std::optional<QString> Rule::argumentText(const json &value)
{
    if (value.is_string())
        return QString::fromStdString(value.get<std::string>());
    if (value.is_number() || value.is_boolean())
        return QString::fromStdString(CanonicalJson::serialize(value)); // 1.0 and 1e0 are "1"
    return std::nullopt;
}

bool Rule::sameNumber(const QString &pattern, const json &value)
{
    if (!value.is_number())
        return false;
    const json written = json::parse(pattern.toStdString(), nullptr, false);
    return written.is_number() && CanonicalJson::serialize(written) == CanonicalJson::serialize(value);
}

QString Rule::pathGlob(QString glob)
{
    while (glob.contains(QLatin1String("//")))
        glob.replace(QLatin1String("//"), QLatin1String("/"));
    while (glob.contains(QLatin1String("/./")))
        glob.replace(QLatin1String("/./"), QLatin1String("/"));
    while (glob.startsWith(QLatin1String("./")))
        glob.remove(0, 2);
    while (glob.size() > 1 && glob.endsWith(QLatin1Char('/')))
        glob.chop(1);
    if (glob.size() > 2 && glob.endsWith(QLatin1String("/.")))
        glob.chop(2);
    return glob.isEmpty() ? QStringLiteral(".") : glob;
}

QString Rule::describe() const
{
    QStringList parts{QStringLiteral("tool %1").arg(tool)};
    for (const auto &[name, pattern] : arguments)
        parts.append(QStringLiteral("%1=%2").arg(name, pattern));
    if (!argvPrefix.isEmpty())
        parts.append(QStringLiteral("argv starts [%1]").arg(argvPrefix.join(QLatin1Char(' '))));
    return QStringLiteral("%1 → %2").arg(parts.join(QStringLiteral(", ")), verdictName(verdict));
}

namespace {

// review.<key>: a list of risk names, each set in levels.
Status readRiskList(const json &review, const char *key, bool (&levels)[4])
{
    const QString at = QStringLiteral("review.%1").arg(QLatin1String(key));
    const json &list = review.at(key);
    if (!list.is_array())
        return failure(at + QStringLiteral(": must be a list of risk levels (low, medium, high, critical)"));
    for (const json &name : list) {
        const auto risk =
            name.is_string() ? parseRisk(QString::fromStdString(name.get<std::string>())) : std::nullopt;
        if (!risk)
            return failure(at + QStringLiteral(": %1 is not a risk level (low, medium, high, critical)")
                                    .arg(QString::fromStdString(name.dump())));
        levels[static_cast<int>(*risk)] = true;
    }
    return success();
}

} // namespace

Result<Policy> Policy::fromJson(const json &rules, const json &approval, const json &review)
{
    Policy policy;
    if (!rules.is_null()) {
        if (!rules.is_array())
            return failure(QStringLiteral("rules: must be an array"));
        for (size_t i = 0; i < rules.size(); ++i) {
            const json &r = rules[i];
            const QString at = QStringLiteral("rules[%1]").arg(i);
            if (!r.is_object())
                return failure(at + QStringLiteral(": must be an object"));
            Rule rule;
            for (auto it = r.begin(); it != r.end(); ++it) {
                const std::string &key = it.key();
                const json &v = it.value();
                if (key == "tool") {
                    if (!v.is_string() || v.get_ref<const std::string &>().empty())
                        return failure(at + QStringLiteral(".tool: must be a tool name or glob"));
                    rule.tool = QString::fromStdString(v.get<std::string>());
                } else if (key == "arguments") {
                    if (!v.is_object())
                        return failure(at + QStringLiteral(".arguments: must map argument names to globs"));
                    for (auto a = v.begin(); a != v.end(); ++a) {
                        if (!a.value().is_string())
                            return failure(at + QStringLiteral(".arguments.%1: must be a glob string")
                                                    .arg(QString::fromStdString(a.key())));
                        rule.arguments[QString::fromStdString(a.key())] =
                            QString::fromStdString(a.value().get<std::string>());
                    }
                } else if (key == "argvPrefix") {
                    if (!v.is_array() || v.empty())
                        return failure(at +
                                       QStringLiteral(".argvPrefix: must be a non-empty array of strings"));
                    for (const json &e : v) {
                        if (!e.is_string())
                            return failure(
                                at + QStringLiteral(".argvPrefix: must be a non-empty array of strings"));
                        rule.argvPrefix.append(QString::fromStdString(e.get<std::string>()));
                    }
                } else if (key == "decision") {
                    const auto verdict = v.is_string()
                                             ? parseVerdict(QString::fromStdString(v.get<std::string>()))
                                             : std::nullopt;
                    if (!verdict)
                        return failure(at + QStringLiteral(".decision: must be allow, ask or deny"));
                    rule.verdict = *verdict;
                } else if (key == "reason") {
                    if (!v.is_string())
                        return failure(at + QStringLiteral(".reason: must be a string"));
                    rule.reason = QString::fromStdString(v.get<std::string>());
                } else {
                    return failure(at +
                                   QStringLiteral(".%1: unknown rule key").arg(QString::fromStdString(key)));
                }
            }
            if (!r.contains("decision"))
                return failure(at + QStringLiteral(".decision: is required (allow, ask or deny)"));
            policy.m_rules.append(std::move(rule));
        }
    }
    if (!approval.is_null()) {
        if (!approval.is_object())
            return failure(QStringLiteral("approval: must map risk levels to \"console\" or \"client\""));
        for (auto it = approval.begin(); it != approval.end(); ++it) {
            const auto risk = parseRisk(QString::fromStdString(it.key()));
            if (!risk)
                return failure(QStringLiteral("approval.%1: unknown risk level (low, medium, high, critical)")
                                   .arg(QString::fromStdString(it.key())));
            const json &mode = it.value();
            if (mode == "console")
                policy.m_approval[static_cast<int>(*risk)] = ApprovalMode::Console;
            else if (mode == "client")
                policy.m_approval[static_cast<int>(*risk)] = ApprovalMode::Client;
            else
                return failure(QStringLiteral("approval.%1: must be \"console\" or \"client\"")
                                   .arg(QString::fromStdString(it.key())));
        }
    }
    if (!review.is_null()) {
        if (!review.is_object())
            return failure(QStringLiteral(
                "review: must be an object: {\"twoPeople\": [...], \"notOwnConnection\": [...]}"));
        for (auto it = review.begin(); it != review.end(); ++it) {
            if (it.key() == "twoPeople") {
                if (auto read = readRiskList(review, "twoPeople", policy.m_twoPeople); !read)
                    return failure(read.error());
            } else if (it.key() == "notOwnConnection") {
                if (auto read = readRiskList(review, "notOwnConnection", policy.m_notOwnConnection); !read)
                    return failure(read.error());
            } else {
                return failure(QStringLiteral("review.%1: unknown key (twoPeople, notOwnConnection)")
                                   .arg(QString::fromStdString(it.key())));
            }
        }
        // A typed confirmation in the client is one approval, given through the caller's own
        // connection: it can satisfy neither rule.
        for (Risk risk : {Risk::Low, Risk::Medium, Risk::High, Risk::Critical}) {
            const int i = static_cast<int>(risk);
            if (policy.m_approval[i] == ApprovalMode::Client &&
                (policy.m_twoPeople[i] || policy.m_notOwnConnection[i]))
                return failure(
                    QStringLiteral("review: %1 risk is approved in the client (approval.%1), where "
                                   "the caller's own connection approves alone; approve it at the "
                                   "console to apply review rules")
                        .arg(riskName(risk)));
        }
    }
    return policy;
}

PolicyDecision Policy::evaluate(const QString &toolName, const json &args, Verdict fallback,
                                const PathSpellings &paths) const
{
    for (qsizetype i = 0; i < m_rules.size(); ++i) {
        const Rule &rule = m_rules[i];
        if (rule.matches(toolName, args, paths))
            return {rule.verdict, static_cast<int>(i),
                    QStringLiteral("rules[%1]: %2").arg(i).arg(rule.describe()), rule.reason};
    }
    return {fallback, -1, QStringLiteral("no rule matched: default %1").arg(verdictName(fallback)), {}};
}

json Policy::toJson() const
{
    json rules = json::array();
    for (const Rule &rule : m_rules)
        rules.push_back(rule.describe().toStdString());
    json approval = json::object();
    for (Risk risk : {Risk::Low, Risk::Medium, Risk::High, Risk::Critical})
        approval[riskName(risk).toStdString()] =
            approvalFor(risk) == ApprovalMode::Client ? "client" : "console";
    json twoPeople = json::array();
    json notOwnConnection = json::array();
    for (Risk risk : {Risk::Low, Risk::Medium, Risk::High, Risk::Critical}) {
        if (peopleFor(risk) > 1)
            twoPeople.push_back(riskName(risk).toStdString());
        if (ownConnectionBarred(risk))
            notOwnConnection.push_back(riskName(risk).toStdString());
    }
    return {
        {"rules", std::move(rules)},
        {"approval", std::move(approval)},
        {"review", {{"twoPeople", std::move(twoPeople)}, {"notOwnConnection", std::move(notOwnConnection)}}}};
}

} // namespace Countersign
