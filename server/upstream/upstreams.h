#pragma once

#include "contentsource.h"
#include "upstreamspec.h"

#include <nlohmann/json.hpp>

#include <QObject>

#include <map>
#include <memory>

namespace Countersign {

class CommandRunner;
class Gate;
class Policy;
class ToolRegistry;
class UpstreamLink;
class UpstreamTrust;
class Workspace;

// The configured upstream MCP servers (server/upstream): one UpstreamLink each, kept across
// configuration reloads while its connection (command, env, cwd, url, headers) stays the same.
// Their prompts and resources are served read-only (ContentSource): prompts named <prefix><name>
// like tools, resources under their own URIs, each read routed to the upstream that listed it.
// Lives in the server thread.
class Upstreams final : public QObject, public ContentSource
{
    Q_OBJECT
public:
    // trust: what the human accepted of each upstream's tools; must outlive this.
    explicit Upstreams(UpstreamTrust &trust, QObject *parent = nullptr);
    ~Upstreams() override;
    Q_DISABLE_COPY_MOVE(Upstreams)

    // Starts the new ones, stops the removed ones, restarts those whose connection changed.
    void configure(const QList<UpstreamSpec> &specs);
    // Adds every ready upstream's tools, as GatedTools, under their prefixes, each as its upstream
    // lists it now judged by the trust (UpstreamTrust::judge); a name taken already (a built-in
    // tool or an action) is skipped with a warning.
    // workspace: the roots an upstream's target paths are resolved against for the rules.
    void addTo(ToolRegistry &tools, Gate &gate, CommandRunner &runner,
               std::shared_ptr<const Workspace> workspace = nullptr);
    // For the window: [{"name", "state", "error", "server", "protocol", "tools": [{"name",
    // "decision", "rule"}]}], each tool's decision as policy makes it for a call that no
    // argument rule singles out.
    nlohmann::json status(const Policy &policy);
    // Whether uri is an instance of an RFC 6570 template, each {expression} any non-empty text.
    static bool matchesTemplate(const QString &uriTemplate, const QString &uri);

    // ContentSource: advertised as soon as an upstream is configured (its lists fill when it is ready).
    bool servesPrompts() const override { return !m_links.empty(); }
    bool servesResources() const override { return !m_links.empty(); }
    void serve(const QString &method, const nlohmann::json &params, ToolDone done) override;

Q_SIGNALS:
    // An upstream's tools changed (it became ready, went down, or listed anew).
    void toolsChanged();
    void statusChanged();

private:
    // Each ready upstream's tools as listed now, judged by the trust (UpstreamTrust::judge).
    void judgeReady();
    // The upstream that serves a prompt (by its served name) or a resource URI, and the name
    // or URI it knows it by; nullptr when none does.
    UpstreamLink *promptOwner(const QString &served, QString &original) const;
    // ambiguity says why none is when several could be.
    UpstreamLink *resourceOwner(const QString &uri, QString &ambiguity) const;
    // Forwards a read-only request and answers done with the upstream's result, or why not.
    static void forward(UpstreamLink *link, const QString &method, nlohmann::json params, ToolDone done);

    UpstreamTrust &m_trust;
    std::map<QString, UpstreamLink *> m_links;
};

} // namespace Countersign
