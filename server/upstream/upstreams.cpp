#include "upstreams.h"

#include "gatedtool.h"
#include "policy.h"
#include "toolregistry.h"
#include "upstreamaction.h"
#include "upstreamlink.h"
#include "upstreamtrust.h"

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

Upstreams::Upstreams(UpstreamTrust &trust, QObject *parent) : QObject(parent), m_trust(trust) {}

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

void Upstreams::addTo(ToolRegistry &tools, Gate &gate, CommandRunner &runner,
                      std::shared_ptr<const Workspace> workspace)
{
    judgeReady();
    for (const auto &[name, link] : m_links) {
        if (link->state() != UpstreamLink::State::Ready)
            continue;
        for (const json &tool : link->tools()) {
            const QString upstreamName = QString::fromStdString(tool.value("name", std::string()));
            auto action = std::make_shared<UpstreamAction>(link, link->spec(), tool,
                                                           m_trust.standing(name, upstreamName), runner);
            action->setWorkspace(workspace);
            const QString served = action->name();
            if (!tools.add(std::make_unique<GatedTool>(std::move(action), gate)))
                qCWarning(lcUpstream)
                    << "upstream" << name << "tool" << served << "not served: another tool has that name";
        }
    }
}

void Upstreams::judgeReady()
{
    for (const auto &[name, link] : m_links) {
        if (link->state() != UpstreamLink::State::Ready)
            continue; // judged only as listed by a running upstream: one that is down lists nothing
        json listed = json::array();
        for (const json &tool : link->tools())
            listed.push_back(tool);
        m_trust.judge(name, listed);
    }
}

json Upstreams::status(const Policy &policy)
{
    judgeReady();
    json all = json::array();
    for (const auto &[name, link] : m_links) {
        json tools = json::array();
        for (const json &tool : link->tools()) {
            const QString toolName = QString::fromStdString(tool.value("name", std::string()));
            const QString served = link->spec().prefix + toolName;
            const UpstreamToolSettings settings = link->spec().settingsOf(toolName);
            const UpstreamTrust::Standing standing = m_trust.standing(name, toolName);
            PolicyDecision decision =
                policy.evaluate(served, json::object(), UpstreamAction::defaultFor(standing, settings));
            if (decision.ruleIndex < 0)
                decision.rule +=
                    QStringLiteral(" (%1)").arg(UpstreamAction::sourceOf(name, standing, settings));
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

void Upstreams::serve(const QString &method, const json &params, ToolDone done)
{
    const auto listOf = [this](const char *key, auto items, bool prefixed) {
        json all = json::array();
        for (const auto &[name, link] : m_links) {
            for (json item : (link->*items)()) {
                UpstreamAction::stripOurFields(item);
                if (prefixed)
                    item["name"] =
                        (link->spec().prefix + QString::fromStdString(item["name"].get<std::string>()))
                            .toStdString();
                all.push_back(std::move(item));
            }
        }
        return json{{key, std::move(all)}};
    };
    if (method == QLatin1String("prompts/list"))
        return done(listOf("prompts", &UpstreamLink::prompts, true));
    if (method == QLatin1String("resources/list"))
        return done(listOf("resources", &UpstreamLink::resources, false));
    if (method == QLatin1String("resources/templates/list"))
        return done(listOf("resourceTemplates", &UpstreamLink::resourceTemplates, false));
    if (method == QLatin1String("prompts/get")) {
        const auto name = params.find("name");
        if (name == params.end() || !name->is_string())
            return done(ProtocolError{-32602, QStringLiteral("Invalid params: name must be a string"), {}});
        QString original;
        UpstreamLink *link = promptOwner(QString::fromStdString(name->get<std::string>()), original);
        if (!link)
            return done(ProtocolError{
                -32602,
                QStringLiteral("Unknown prompt: %1").arg(QString::fromStdString(name->get<std::string>())),
                {}});
        json forwarded = {{"name", original.toStdString()}};
        if (const auto args = params.find("arguments"); args != params.end() && args->is_object())
            forwarded["arguments"] = *args;
        return forward(link, method, std::move(forwarded), std::move(done));
    }
    if (method == QLatin1String("resources/read")) {
        const auto uri = params.find("uri");
        if (uri == params.end() || !uri->is_string())
            return done(ProtocolError{-32602, QStringLiteral("Invalid params: uri must be a string"), {}});
        QString ambiguity;
        UpstreamLink *link = resourceOwner(QString::fromStdString(uri->get<std::string>()), ambiguity);
        if (!link)
            return done(ProtocolError{-32602,
                                      ambiguity.isEmpty()
                                          ? QStringLiteral("Resource not found")
                                          : QStringLiteral("Resource not served: %1").arg(ambiguity),
                                      {{"uri", uri->get<std::string>()}}});
        return forward(link, method, {{"uri", *uri}}, std::move(done));
    }
    done(ProtocolError{-32601, QStringLiteral("Method not found"), {}});
}

UpstreamLink *Upstreams::promptOwner(const QString &served, QString &original) const
{
    for (const auto &[name, link] : m_links) {
        const QString &prefix = link->spec().prefix;
        if (!served.startsWith(prefix))
            continue;
        const std::string wanted = served.mid(prefix.size()).toStdString();
        for (const json &prompt : link->prompts()) {
            if (prompt["name"] == wanted) {
                original = QString::fromStdString(wanted);
                return link;
            }
        }
    }
    return nullptr;
}

bool Upstreams::matchesTemplate(const QString &uriTemplate, const QString &uri)
{
    // The template's literal parts in order, each {expression} standing for any non-empty text.
    // Matched by plain search, leftmost first: linear, whatever the template (a regular expression
    // built from an upstream's template could backtrack for minutes).
    QStringList literals;
    qsizetype at = 0;
    for (;;) {
        const qsizetype open = uriTemplate.indexOf(QLatin1Char('{'), at);
        const qsizetype close = open < 0 ? -1 : uriTemplate.indexOf(QLatin1Char('}'), open);
        if (close < 0) {
            literals.append(uriTemplate.mid(at));
            break;
        }
        literals.append(uriTemplate.mid(at, open - at));
        at = close + 1;
    }
    if (literals.size() == 1)
        return uri == literals.first();
    if (!uri.startsWith(literals.first()) || !uri.endsWith(literals.last()))
        return false;
    qsizetype from = literals.first().size();
    const qsizetype end = uri.size() - literals.last().size();
    for (qsizetype k = 1; k + 1 < literals.size(); ++k) {
        const qsizetype found = uri.indexOf(literals[k], from + 1); // after at least one character
        if (found < 0 || found + literals[k].size() > end)
            return false;
        from = found + literals[k].size();
    }
    return end > from; // the last expression is not empty either
}

UpstreamLink *Upstreams::resourceOwner(const QString &uri, QString &ambiguity) const
{
    // A URI listed by one upstream is its; one listed by several, or matching the templates of
    // several, is nobody's: an upstream must not take reads meant for another.
    const std::string wanted = uri.toStdString();
    QList<UpstreamLink *> listed, templated;
    for (const auto &[name, link] : m_links) {
        for (const json &resource : link->resources()) {
            if (resource["uri"] == wanted) {
                listed.append(link);
                break;
            }
        }
        for (const json &tmpl : link->resourceTemplates()) {
            if (matchesTemplate(QString::fromStdString(tmpl["uriTemplate"].get<std::string>()), uri)) {
                templated.append(link);
                break;
            }
        }
    }
    const QList<UpstreamLink *> &owners = listed.isEmpty() ? templated : listed;
    if (owners.size() == 1)
        return owners.first();
    if (owners.size() > 1) {
        QStringList names;
        for (const UpstreamLink *link : owners)
            names.append(link->spec().name);
        ambiguity = QStringLiteral("upstreams %1 all serve this URI").arg(names.join(QStringLiteral(", ")));
    }
    return nullptr;
}

void Upstreams::forward(UpstreamLink *link, const QString &method, json params, ToolDone done)
{
    const QString upstream = link->spec().name;
    link->request(
        method, std::move(params), link->spec().timeoutSeconds * 1000,
        [upstream, done = std::move(done)](const UpstreamLink::Outcome &outcome) {
            using Kind = UpstreamLink::Outcome::Kind;
            if (outcome.kind == Kind::Answered) {
                json body = outcome.result;
                if (body.contains("resultType") && body["resultType"] != "complete")
                    return done(ProtocolError{
                        -32603,
                        QStringLiteral("upstream %1 asked for input, which Countersign does not relay")
                            .arg(upstream),
                        {}});
                // Countersign's own _meta goes on the answer; the upstream's is not passed on.
                body.erase("_meta");
                UpstreamAction::stripOurFields(body);
                body.erase("resultType");
                body.erase("ttlMs");
                body.erase("cacheScope");
                return done(std::move(body));
            }
            if (outcome.kind == Kind::Refused) {
                const json &code = outcome.result.is_object() ? outcome.result.value("code", json()) : json();
                const int c = code.is_number_integer() && code.get<long long>() >= -32768 &&
                                      code.get<long long>() <= -32000
                                  ? code.get<int>()
                                  : -32603;
                return done(
                    ProtocolError{c, QStringLiteral("upstream %1: %2").arg(upstream, outcome.text), {}});
            }
            done(ProtocolError{-32603, outcome.text, {}});
        });
}

} // namespace Countersign
