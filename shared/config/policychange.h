#pragma once

#include <nlohmann/json.hpp>

#include <QList>
#include <QString>

namespace Countersign {

class Config;

// One difference between two configurations that changes what may run without a human:
// "rule tool delete_service, service=tmp-*: none → allow", "ttlSeconds: 300 → 600".
struct PolicyChangeItem final
{
    QString subject;
    QString before;
    QString after;

    QString text() const;
    bool operator==(const PolicyChangeItem &) const = default;
};

// What a reloaded configuration changes in the effective policy, split into what widens it (more
// runs without a human: an allow rule added or moved ahead, a deny or ask rule removed or loosened,
// a new action or workspace root, a changed plan/apply command, working directory or input schema
// of an action, a lower action risk, a risk level moved to client approval, a longer ttlSeconds, a
// smaller cardMinimumSeconds) and what narrows it (the reverse of each). Settings that change
// neither (pollWindowSeconds, titles, timeouts, reasons; listen and keyStore, which need a restart)
// are not listed. Rules are compared by what they match (tool, argument globs, argv prefix), and
// any two rules are taken to overlap, so a change of order is judged by its worst case.
class PolicyChange final
{
public:
    static PolicyChange compare(const Config &before, const Config &after);

    const QList<PolicyChangeItem> &widening() const { return m_widening; }
    const QList<PolicyChangeItem> &narrowing() const { return m_narrowing; }
    bool widens() const { return !m_widening.isEmpty(); }
    bool narrows() const { return !m_narrowing.isEmpty(); }
    bool isEmpty() const { return !widens() && !narrows(); }

    // {"widening": [{"subject", "before", "after"}...], "narrowing": [...]}, for the audit log.
    nlohmann::json toJson() const;

private:
    // Files one difference under widening or narrowing.
    void add(bool isWidening, QString subject, QString was, QString now);
    // The parts of compare(), in the order their differences are listed: the rules, each risk
    // level's approval, mode and the card's timings, the actions, the upstreams, the workspace roots.
    void compareRules(const Config &before, const Config &after);
    void compareApproval(const Config &before, const Config &after);
    void compareSettings(const Config &before, const Config &after);
    void compareActions(const Config &before, const Config &after);
    void compareUpstreams(const Config &before, const Config &after);
    void compareRoots(const Config &before, const Config &after);

    QList<PolicyChangeItem> m_widening;
    QList<PolicyChangeItem> m_narrowing;
};

} // namespace Countersign
