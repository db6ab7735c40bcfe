#include "upstreamtrust.h"

#include "approvalqueue.h"
#include "auditstore.h"
#include "canonicaljson.h"

#include <QLoggingCategory>

Q_LOGGING_CATEGORY(lcTrust, "countersign.upstream")

namespace Countersign {

using json = nlohmann::json;

UpstreamTrust::UpstreamTrust(AuditStore &store, QObject *parent) : QObject(parent), m_store(store) {}

Status UpstreamTrust::load()
{
    auto last = m_store.lastEvent(QStringLiteral("upstream-tools-accepted"));
    if (!last)
        return failure(last.error());
    const json upstreams =
        last.value().is_object() ? last.value().value("upstreams", json::object()) : json();
    if (!upstreams.is_object())
        return success();
    for (const auto &[name, entry] : upstreams.items()) {
        if (!entry.is_object())
            continue;
        Profiles &profiles = m_accepted[QString::fromStdString(name)];
        const json tools = entry.value("tools", json::object());
        if (!tools.is_object())
            continue;
        for (const auto &[tool, p] : tools.items()) {
            if (p.is_object())
                profiles[QString::fromStdString(tool)] = {p.value("readOnly", false),
                                                          p.value("destructive", true),
                                                          p.value("schema", std::string())};
        }
        if (const json refused = entry.value("refused", json()); refused.is_string())
            m_refused[QString::fromStdString(name)] = refused.get<std::string>();
    }
    return success();
}

UpstreamTrust::Standing UpstreamTrust::claimed(const json &tool)
{
    const json annotations = tool.is_object() ? tool.value("annotations", json::object()) : json();
    const bool readOnly =
        annotations.is_object() && annotations.value("readOnlyHint", json(false)) == json(true);
    // The spec's defaults: a tool that is not read-only is destructive unless it says otherwise.
    const bool destructive = !readOnly && !(annotations.is_object() &&
                                            annotations.value("destructiveHint", json(true)) == json(false));
    return {readOnly, destructive, {}};
}

UpstreamTrust::Profiles UpstreamTrust::profilesOf(const json &tools)
{
    Profiles out;
    if (!tools.is_array())
        return out;
    for (const json &tool : tools) {
        if (!tool.is_object() || !tool.value("name", json()).is_string())
            continue;
        const Standing says = claimed(tool);
        out[QString::fromStdString(tool["name"].get<std::string>())] = {
            says.readOnly, says.destructive,
            CanonicalJson::digest(tool.value("inputSchema", json::object())).toStdString()};
    }
    return out;
}

std::string UpstreamTrust::digestOf(const Profiles &profiles)
{
    json all = json::object();
    for (const auto &[name, p] : profiles)
        all[name.toStdString()] = {p.readOnly, p.destructive, p.schema};
    return CanonicalJson::digest(all).toStdString();
}

void UpstreamTrust::judge(const QString &upstream, const json &tools)
{
    Profiles listed = profilesOf(tools);
    m_listed[upstream] = listed;
    const auto found = m_accepted.find(upstream);
    if (found == m_accepted.end()) {
        m_accepted[upstream] = std::move(listed); // first seen: as configured
        recordAccepted();
        return;
    }
    Profiles &accepted = found->second;
    // A tool no longer listed keeps what was accepted of it: gone and back unchanged is no change.
    Profiles next = accepted;
    QStringList widening;
    QStringList narrowing;
    for (const auto &[name, now] : listed) {
        const auto it = accepted.find(name);
        if (it == accepted.end()) {
            if (now.readOnly)
                widening.append(
                    QStringLiteral("tool %1: new, says readOnlyHint (it would run without a card)")
                        .arg(name));
            else if (!now.destructive)
                widening.append(
                    QStringLiteral("tool %1: new, says destructiveHint false (a lower risk on its card)")
                        .arg(name));
            else {
                narrowing.append(QStringLiteral("tool %1: new, asks").arg(name));
                next[name] = now;
            }
            continue;
        }
        const Profile &was = it->second;
        Profile taken = was;
        if (now.readOnly && !was.readOnly)
            widening.append(
                QStringLiteral("tool %1: readOnlyHint: no → yes (it would run without a card)").arg(name));
        else if (!now.readOnly && was.readOnly) {
            narrowing.append(QStringLiteral("tool %1: readOnlyHint: yes → no").arg(name));
            taken.readOnly = false;
        }
        if (!now.destructive && was.destructive)
            widening.append(QStringLiteral("tool %1: destructiveHint: yes → no").arg(name));
        else if (now.destructive && !was.destructive) {
            narrowing.append(QStringLiteral("tool %1: destructiveHint: no → yes").arg(name));
            taken.destructive = true;
        }
        if (now.schema != was.schema) {
            if (taken.readOnly)
                widening.append(
                    QStringLiteral("tool %1: input schema changed (it runs without a card)").arg(name));
            else
                taken.schema = now.schema; // a tool that asks shows its arguments on the card
        }
        next[name] = taken;
    }
    if (next != accepted) {
        accepted = std::move(next);
        if (!narrowing.isEmpty())
            record(QStringLiteral("upstream-narrowed"),
                   {{"upstream", upstream.toStdString()},
                    {"narrowing", narrowing.join(QStringLiteral("; ")).toStdString()}});
        recordAccepted();
    }
    const std::string digest = digestOf(listed);
    if (widening.isEmpty()) {
        if (m_held.erase(upstream) > 0) {
            m_heldDigest.erase(upstream);
            Q_EMIT wideningCleared(upstream);
        }
        return;
    }
    const bool wasShown = m_held.count(upstream) > 0 && m_heldDigest[upstream] != m_refused[upstream];
    m_held[upstream] = widening;
    if (m_heldDigest[upstream] == digest)
        return; // reported already
    m_heldDigest[upstream] = digest;
    if (m_refused[upstream] == digest) {
        // Refused: held without asking again, until the upstream changes again; a banner showing
        // another listing of it goes, so that its Accept cannot take this one.
        if (wasShown)
            Q_EMIT wideningCleared(upstream);
        return;
    }
    qCWarning(lcTrust) << "upstream" << upstream << "widens; held:" << widening.join(QStringLiteral("; "));
    record(QStringLiteral("upstream-widening-held"),
           {{"upstream", upstream.toStdString()},
            {"widening", widening.join(QStringLiteral("; ")).toStdString()},
            {"digest", digest}});
    Q_EMIT wideningHeld(upstream, widening, QString::fromStdString(digest));
}

UpstreamTrust::Standing UpstreamTrust::standing(const QString &upstream, const QString &tool) const
{
    const auto accepted = m_accepted.find(upstream);
    const auto listed = m_listed.find(upstream);
    const Profile *was = nullptr;
    const Profile *now = nullptr;
    if (accepted != m_accepted.end())
        if (const auto it = accepted->second.find(tool); it != accepted->second.end())
            was = &it->second;
    if (listed != m_listed.end())
        if (const auto it = listed->second.find(tool); it != listed->second.end())
            now = &it->second;
    if (!was || !now)
        return {false, true,
                QStringLiteral("new since the tools you accepted of upstream %1; it asks until you accept")
                    .arg(upstream)};
    Standing s;
    s.readOnly = was->readOnly && now->readOnly && was->schema == now->schema;
    s.destructive = was->destructive || now->destructive;
    if (!(*was == *now) && (now->readOnly != s.readOnly || now->destructive != s.destructive))
        s.held =
            QStringLiteral("upstream %1 changed what it says of this tool; that waits for you").arg(upstream);
    return s;
}

QStringList UpstreamTrust::held(const QString &upstream) const
{
    const auto it = m_held.find(upstream);
    return it == m_held.end() ? QStringList() : it->second;
}

QStringList UpstreamTrust::heldUpstreams() const
{
    QStringList out;
    for (const auto &[upstream, widening] : m_held) {
        const auto refused = m_refused.find(upstream);
        const auto digest = m_heldDigest.find(upstream);
        if (refused == m_refused.end() || digest == m_heldDigest.end() || refused->second != digest->second)
            out.append(upstream);
    }
    return out;
}

QString UpstreamTrust::heldDigest(const QString &upstream) const
{
    const auto it = m_heldDigest.find(upstream);
    return m_held.count(upstream) && it != m_heldDigest.end() ? QString::fromStdString(it->second)
                                                              : QString();
}

void UpstreamTrust::accept(const QString &upstream, const QString &digest)
{
    const auto listed = m_listed.find(upstream);
    if (listed == m_listed.end() || !m_held.count(upstream) || digest.isEmpty() ||
        heldDigest(upstream) != digest || digestOf(listed->second) != digest.toStdString())
        return; // the upstream lists something else now: that is judged, and shown, anew
    record(QStringLiteral("upstream-widened-accepted"),
           {{"upstream", upstream.toStdString()},
            {"widening", m_held[upstream].join(QStringLiteral("; ")).toStdString()},
            {"by", ApprovalQueue::consoleUser().toStdString()}});
    // Merged: a tool not listed now keeps what was accepted of it.
    Profiles &accepted = m_accepted[upstream];
    for (const auto &[name, profile] : listed->second)
        accepted[name] = profile;
    m_held.erase(upstream);
    m_heldDigest.erase(upstream);
    m_refused.erase(upstream);
    recordAccepted();
    Q_EMIT wideningCleared(upstream);
    Q_EMIT changed();
}

void UpstreamTrust::keep(const QString &upstream, const QString &digest)
{
    const auto held = m_held.find(upstream);
    if (held == m_held.end() || digest.isEmpty() || heldDigest(upstream) != digest)
        return;
    record(QStringLiteral("upstream-widened-rejected"),
           {{"upstream", upstream.toStdString()},
            {"widening", held->second.join(QStringLiteral("; ")).toStdString()},
            {"by", ApprovalQueue::consoleUser().toStdString()}});
    m_refused[upstream] = digest.toStdString();
    recordAccepted();
    Q_EMIT wideningCleared(upstream);
}

void UpstreamTrust::recordAccepted()
{
    json upstreams = json::object();
    for (const auto &[name, profiles] : m_accepted) {
        json tools = json::object();
        for (const auto &[tool, p] : profiles)
            tools[tool.toStdString()] = {
                {"readOnly", p.readOnly}, {"destructive", p.destructive}, {"schema", p.schema}};
        json entry = {{"tools", std::move(tools)}};
        if (const auto refused = m_refused.find(name); refused != m_refused.end())
            entry["refused"] = refused->second;
        upstreams[name.toStdString()] = std::move(entry);
    }
    record(QStringLiteral("upstream-tools-accepted"), {{"upstreams", std::move(upstreams)}});
}

void UpstreamTrust::record(const QString &event, const json &detail)
{
    if (auto recorded = m_store.recordEvent(event, detail); !recorded)
        qCWarning(lcTrust) << "cannot record" << event << ":" << recorded.error();
}

} // namespace Countersign
