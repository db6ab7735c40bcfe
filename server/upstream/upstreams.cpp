#include "upstreams.h"

#include "gatedtool.h"
#include "policy.h"
#include "toolregistry.h"
#include "upstreamaction.h"
#include "upstreamlink.h"

#include <QLoggingCategory>

Q_DECLARE_LOGGING_CATEGORY(lcUpstream)

namespace Countersign {

namespace {

using json = nlohmann::json;

// What the connection is made of; the rest (tools, prefix, timeout) changes without a restart.
json connectionOf(const UpstreamSpec &spec)
{
    json c = spec.source;
    for (const char *key : {"tools", "prefix", "timeoutSeconds"})
        c.erase(key);
    return c;
}

} // namespace

Upstreams::Upstreams(QObject *parent) : QObject(parent) {}

Upstreams::~Upstreams() = default; // the links are children

void Upstreams::configure(const QList<UpstreamSpec> &specs)
{
    std::map<QString, UpstreamLink *> kept;
    for (const UpstreamSpec &spec : specs) {
        const auto found = m_links.find(spec.name);
        if (found != m_links.end() && connectionOf(found->second->spec()) == connectionOf(spec)) {
            found->second->setSpec(spec);
            kept.emplace(spec.name, found->second);
            m_links.erase(found);
            continue;
        }
        auto *link = new UpstreamLink(spec, this);
        connect(link, &UpstreamLink::toolsChanged, this, &Upstreams::toolsChanged);
        connect(link, &UpstreamLink::stateChanged, this, &Upstreams::statusChanged);
        kept.emplace(spec.name, link);
        link->start();
    }
    for (auto &[name, link] : m_links)
        delete link; // removed, or its connection changed
    m_links = std::move(kept);
    Q_EMIT toolsChanged();
    Q_EMIT statusChanged();
}

void Upstreams::addTo(ToolRegistry &tools, Gate &gate, CommandRunner &runner) const
{
    for (const auto &[name, link] : m_links) {
        for (const json &tool : link->tools()) {
            auto action = std::make_shared<UpstreamAction>(link, link->spec(), tool, runner);
            const QString served = action->name();
            if (!tools.add(std::make_unique<GatedTool>(std::move(action), gate)))
                qCWarning(lcUpstream)
                    << "upstream" << name << "tool" << served << "not served: another tool has that name";
        }
    }
}

json Upstreams::status(const Policy &policy) const
{
    json all = json::array();
    for (const auto &[name, link] : m_links) {
        json tools = json::array();
        for (const json &tool : link->tools()) {
            const QString toolName = QString::fromStdString(tool.value("name", std::string()));
            const QString served = link->spec().prefix + toolName;
            const PolicyDecision decision = policy.evaluate(
                served, json::object(), UpstreamAction::defaultFor(tool, link->spec().settingsOf(toolName)));
            tools.push_back({{"name", served.toStdString()},
                             {"decision", verdictName(decision.verdict).toStdString()},
                             {"rule", decision.rule.toStdString()}});
        }
        const char *state = link->state() == UpstreamLink::State::Ready      ? "ready"
                            : link->state() == UpstreamLink::State::Starting ? "starting"
                                                                             : "down";
        all.push_back({{"name", name.toStdString()},
                       {"state", state},
                       {"error", link->lastError().toStdString()},
                       {"server", link->serverName().toStdString()},
                       {"protocol", link->protocolVersion().toStdString()},
                       {"tools", tools}});
    }
    return all;
}

UpstreamLink *Upstreams::link(const QString &name) const
{
    const auto found = m_links.find(name);
    return found == m_links.end() ? nullptr : found->second;
}

} // namespace Countersign
