#include "policychange.h"

#include "config.h"

#include <QDir>

#include <algorithm>

#include <map>

namespace Countersign {

namespace {

using json = nlohmann::json;

const QString kNone = QStringLiteral("none");

// How much a verdict lets through without a human deciding it.
int openness(Verdict verdict)
{
    switch (verdict) {
    case Verdict::Deny:
        return 0;
    case Verdict::Ask:
        return 1;
    case Verdict::Allow:
        return 2;
    }
    return 0;
}

// A rule that can win: the first of the rules with its matcher (a later copy never matches first).
struct RankedRule
{
    std::string key; // what it matches, unambiguously
    QString text;    // the same, for a human
    Verdict verdict = Verdict::Ask;
};

QList<RankedRule> rankedRules(const Policy &policy)
{
    QList<RankedRule> ranked;
    for (const Rule &rule : policy.rules()) {
        json arguments = json::object();
        QStringList parts{QStringLiteral("tool %1").arg(rule.tool)};
        for (const auto &[name, pattern] : rule.arguments) {
            arguments[name.toStdString()] = pattern.toStdString();
            parts.append(QStringLiteral("%1=%2").arg(name, pattern));
        }
        json prefix = json::array();
        for (const QString &element : rule.argvPrefix)
            prefix.push_back(element.toStdString());
        if (!rule.argvPrefix.isEmpty())
            parts.append(QStringLiteral("argv starts %1").arg(QString::fromStdString(prefix.dump())));
        std::string key =
            json{{"tool", rule.tool.toStdString()}, {"arguments", arguments}, {"argvPrefix", prefix}}.dump();
        const bool shadowed = std::any_of(ranked.cbegin(), ranked.cend(),
                                          [&key](const RankedRule &earlier) { return earlier.key == key; });
        if (!shadowed)
            ranked.append({std::move(key), parts.join(QStringLiteral(", ")), rule.verdict});
    }
    return ranked;
}

qsizetype indexOf(const QList<RankedRule> &rules, const std::string &key)
{
    for (qsizetype i = 0; i < rules.size(); ++i) {
        if (rules[i].key == key)
            return i;
    }
    return -1;
}

QString argvText(const QStringList &argv)
{
    json array = json::array();
    for (const QString &element : argv)
        array.push_back(element.toStdString());
    return QString::fromStdString(array.dump());
}

QString actionText(const ActionSpec &action)
{
    return QStringLiteral("plan %1, apply %2, risk %3")
        .arg(argvText(action.plan), argvText(action.apply), riskName(action.risk));
}

QStringList cleanRoots(const QStringList &roots)
{
    QStringList cleaned;
    for (const QString &root : roots)
        cleaned.append(QDir::cleanPath(root));
    cleaned.removeDuplicates();
    return cleaned;
}

json itemsJson(const QList<PolicyChangeItem> &items)
{
    json array = json::array();
    for (const PolicyChangeItem &item : items)
        array.push_back({{"subject", item.subject.toStdString()},
                         {"before", item.before.toStdString()},
                         {"after", item.after.toStdString()}});
    return array;
}

} // namespace

QString PolicyChangeItem::text() const
{
    return QStringLiteral("%1: %2 → %3").arg(subject, before, after);
}

PolicyChange PolicyChange::compare(const Config &before, const Config &after)
{
    PolicyChange change;
    change.compareRules(before, after);
    change.compareApproval(before, after);
    change.compareSettings(before, after);
    change.compareActions(before, after);
    change.compareUpstreams(before, after);
    change.compareRoots(before, after);
    return change;
}

void PolicyChange::add(bool isWidening, QString subject, QString was, QString now)
{
    (isWidening ? m_widening : m_narrowing).append({std::move(subject), std::move(was), std::move(now)});
}

void PolicyChange::compareRules(const Config &before, const Config &after)
{
    // Rules: added, removed or given another verdict, then moved relative to each other.
    const QList<RankedRule> oldRules = rankedRules(before.policy());
    const QList<RankedRule> newRules = rankedRules(after.policy());
    for (qsizetype i = 0; i < newRules.size(); ++i) {
        const RankedRule &rule = newRules[i];
        const QString subject = QStringLiteral("rule %1").arg(rule.text);
        const qsizetype old = indexOf(oldRules, rule.key);
        if (old < 0) {
            // A new ask rule takes over from the rules after it: where one of them denied, it asks.
            const bool aheadOfDeny =
                rule.verdict == Verdict::Ask &&
                std::any_of(newRules.cbegin() + i + 1, newRules.cend(),
                            [](const RankedRule &later) { return later.verdict == Verdict::Deny; });
            add(rule.verdict == Verdict::Allow || aheadOfDeny, subject, kNone,
                aheadOfDeny ? QStringLiteral("ask, ahead of a deny rule") : verdictName(rule.verdict));
        } else if (const Verdict was = oldRules[old].verdict; was != rule.verdict) {
            add(openness(rule.verdict) > openness(was), subject, verdictName(was), verdictName(rule.verdict));
        }
    }
    for (const RankedRule &rule : oldRules) {
        if (indexOf(newRules, rule.key) < 0)
            add(rule.verdict != Verdict::Allow, QStringLiteral("rule %1").arg(rule.text),
                verdictName(rule.verdict), kNone);
    }
    for (qsizetype i = 0; i < oldRules.size(); ++i) {
        for (qsizetype j = i + 1; j < oldRules.size(); ++j) {
            const qsizetype first = indexOf(newRules, oldRules[i].key);
            const qsizetype second = indexOf(newRules, oldRules[j].key);
            if (first < 0 || second < 0 || second > first)
                continue;
            // The rule that came second now comes first, and wins wherever both match.
            const RankedRule &nowFirst = newRules[second];
            const RankedRule &nowSecond = newRules[first];
            if (openness(nowFirst.verdict) == openness(nowSecond.verdict))
                continue;
            const auto order = [](const RankedRule &a, const RankedRule &b) {
                return QStringLiteral("%1 (%2) before %3 (%4)")
                    .arg(a.text, verdictName(a.verdict), b.text, verdictName(b.verdict));
            };
            add(openness(nowFirst.verdict) > openness(nowSecond.verdict), QStringLiteral("rule order"),
                order(nowSecond, nowFirst), order(nowFirst, nowSecond));
        }
    }
}

void PolicyChange::compareApproval(const Config &before, const Config &after)
{
    for (Risk risk : {Risk::Low, Risk::Medium, Risk::High, Risk::Critical}) {
        const ApprovalMode was = before.policy().approvalFor(risk);
        const ApprovalMode now = after.policy().approvalFor(risk);
        if (was != now) {
            const auto name = [](ApprovalMode mode) {
                return mode == ApprovalMode::Client ? QStringLiteral("client") : QStringLiteral("console");
            };
            add(now == ApprovalMode::Client, QStringLiteral("approval for %1 risk").arg(riskName(risk)),
                name(was), name(now));
        }
        // Fewer people, or the caller's owner allowed to approve: fewer eyes on the call.
        const int peopleWere = before.policy().peopleFor(risk);
        const int peopleNow = after.policy().peopleFor(risk);
        if (peopleWere != peopleNow)
            add(peopleNow < peopleWere, QStringLiteral("people approving %1 risk").arg(riskName(risk)),
                QString::number(peopleWere), QString::number(peopleNow));
        const bool barredWas = before.policy().ownConnectionBarred(risk);
        const bool barredNow = after.policy().ownConnectionBarred(risk);
        if (barredWas != barredNow) {
            const auto name = [](bool barred) {
                return barred ? QStringLiteral("not the connection's owner") : QStringLiteral("anyone");
            };
            add(!barredNow, QStringLiteral("who may approve %1 risk").arg(riskName(risk)), name(barredWas),
                name(barredNow));
        }
    }
}

void PolicyChange::compareSettings(const Config &before, const Config &after)
{
    if (before.mode() != after.mode())
        add(after.mode() == GateMode::Standard, QStringLiteral("mode"), gateModeName(before.mode()),
            gateModeName(after.mode()));
    if (before.ttlSeconds() != after.ttlSeconds())
        add(after.ttlSeconds() > before.ttlSeconds(), QStringLiteral("ttlSeconds"),
            QString::number(before.ttlSeconds()), QString::number(after.ttlSeconds()));
    // A ticket that lives longer while unseen is a widening, as a longer ttlSeconds is: it ends at
    // the longer of the two after the card was made.
    if (before.cardUnseenLimitSeconds() != after.cardUnseenLimitSeconds())
        add(std::max(after.cardUnseenLimitSeconds(), after.ttlSeconds()) >
                std::max(before.cardUnseenLimitSeconds(), before.ttlSeconds()),
            QStringLiteral("cardUnseenLimitSeconds"), QString::number(before.cardUnseenLimitSeconds()),
            QString::number(after.cardUnseenLimitSeconds()));
    if (before.cardMinimumSeconds() != after.cardMinimumSeconds())
        add(after.cardMinimumSeconds() < before.cardMinimumSeconds(), QStringLiteral("cardMinimumSeconds"),
            QString::number(before.cardMinimumSeconds()), QString::number(after.cardMinimumSeconds()));
}

void PolicyChange::compareActions(const Config &before, const Config &after)
{
    // Actions, by name.
    std::map<QString, const ActionSpec *> oldActions;
    for (const ActionSpec &action : before.actions())
        oldActions.emplace(action.name, &action);
    for (const ActionSpec &action : after.actions()) {
        const QString subject = QStringLiteral("action %1").arg(action.name);
        const auto found = oldActions.find(action.name);
        if (found == oldActions.end()) {
            add(true, subject, kNone, actionText(action));
            continue;
        }
        const ActionSpec &old = *found->second;
        oldActions.erase(found);
        if (old.plan != action.plan)
            add(true, subject + QStringLiteral(" plan"), argvText(old.plan), argvText(action.plan));
        if (old.apply != action.apply)
            add(true, subject + QStringLiteral(" apply"), argvText(old.apply), argvText(action.apply));
        if (old.workingDirectory != action.workingDirectory)
            add(true, subject + QStringLiteral(" workingDirectory"),
                old.workingDirectory.isEmpty() ? kNone : old.workingDirectory,
                action.workingDirectory.isEmpty() ? kNone : action.workingDirectory);
        // The schema is what keeps an argument's value in bounds before it reaches the argv.
        if (old.inputSchema != action.inputSchema)
            add(true, subject + QStringLiteral(" inputSchema"),
                QString::fromStdString(old.inputSchema.dump()),
                QString::fromStdString(action.inputSchema.dump()));
        if (old.risk != action.risk)
            add(action.risk < old.risk, subject + QStringLiteral(" risk"), riskName(old.risk),
                riskName(action.risk));
    }
    for (const auto &[name, old] : oldActions)
        add(false, QStringLiteral("action %1").arg(name), actionText(*old), kNone);
}

void PolicyChange::compareUpstreams(const Config &before, const Config &after)
{
    // Upstreams, by name: a new one, or any change of one (its command, its tools' decisions and
    // plans), is judged by its worst case, a widening; one removed narrows.
    std::map<QString, const UpstreamSpec *> oldUpstreams;
    for (const UpstreamSpec &upstream : before.upstreams())
        oldUpstreams.emplace(upstream.name, &upstream);
    for (const UpstreamSpec &upstream : after.upstreams()) {
        const QString subject = QStringLiteral("upstream %1").arg(upstream.name);
        const QString now = QString::fromStdString(upstream.source.dump());
        const auto found = oldUpstreams.find(upstream.name);
        if (found == oldUpstreams.end()) {
            add(true, subject, kNone, now);
            continue;
        }
        if (found->second->source != upstream.source)
            add(true, subject, QString::fromStdString(found->second->source.dump()), now);
        oldUpstreams.erase(found);
    }
    for (const auto &[name, old] : oldUpstreams)
        add(false, QStringLiteral("upstream %1").arg(name), QString::fromStdString(old->source.dump()),
            kNone);
}

void PolicyChange::compareRoots(const Config &before, const Config &after)
{
    const QStringList oldRoots = cleanRoots(before.workspaceRoots());
    const QStringList newRoots = cleanRoots(after.workspaceRoots());
    for (const QString &root : newRoots) {
        if (!oldRoots.contains(root))
            add(true, QStringLiteral("workspace root"), kNone, root);
    }
    for (const QString &root : oldRoots) {
        if (!newRoots.contains(root))
            add(false, QStringLiteral("workspace root"), root, kNone);
    }
    // Relative paths and run_command's default folder are taken from the first root: a rule for
    // "docs/*" or ["./test.sh"] now reaches another folder.
    if (!oldRoots.isEmpty() && !newRoots.isEmpty() && oldRoots.first() != newRoots.first())
        add(true, QStringLiteral("first workspace root"), oldRoots.first(), newRoots.first());
}

json PolicyChange::toJson() const
{
    return {{"widening", itemsJson(m_widening)}, {"narrowing", itemsJson(m_narrowing)}};
}

} // namespace Countersign
