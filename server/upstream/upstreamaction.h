#pragma once

#include "gatedaction.h"
#include "upstreamspec.h"
#include "upstreamtrust.h"

#include <QPointer>

#include <memory>

namespace Countersign {

class CommandRunner;
class UpstreamLink;
class Workspace;

// One tool of an upstream MCP server, served as <prefix><tool> through the gate. Its annotations,
// as the human accepted them (UpstreamTrust: a change that widens waits), give the default
// (readOnlyHint: allowed; anything else: asked), the upstream's settings in the configuration
// override them, and the user's rules override both. The plan the human approves
// is, in this order: the output of the same tool called with the configured planWith arguments (a
// dry run), the output of the configured plan command, or the arguments as a person reads them. A
// call reaches the upstream only through apply(), after the gate's claim, and is never repeated: an
// upstream that answers with an error, is not running, or goes silent or away mid-call gives an
// isError result that says which ("outcome unknown" where it may have acted).
class UpstreamAction final : public GatedAction
{
public:
    UpstreamAction(UpstreamLink *link, const UpstreamSpec &spec, nlohmann::json tool,
                   UpstreamTrust::Standing standing, CommandRunner &runner);

    QString name() const override { return m_name; }
    nlohmann::json descriptor() const override;
    bool readsOnly() const override { return m_standing.readOnly; }
    Verdict defaultVerdict(const nlohmann::json &arguments) const override;
    // Its target arguments (the tool settings' "targets") that hold an absolute path, resolved
    // against the workspace roots when inside them (else where they lead), as the rules match
    // them; a relative one is the upstream's to resolve, and is matched as sent.
    PathSpellings pathSpellings(const nlohmann::json &arguments) const override;
    void setWorkspace(std::shared_ptr<const Workspace> workspace) { m_workspace = std::move(workspace); }
    QString defaultSource() const override { return sourceOf(m_upstream, m_standing, m_settings); }
    void plan(const nlohmann::json &arguments, PlanDone done) override;
    void apply(const nlohmann::json &arguments, ApplyDone done) override;

    // The upstream's name for the tool.
    QString upstreamTool() const { return m_tool; }
    // The decision when no rule matches: the tool's settings, else its annotations (as listed,
    // or as accepted).
    static Verdict defaultFor(const nlohmann::json &tool, const UpstreamToolSettings &settings);
    static Verdict defaultFor(const UpstreamTrust::Standing &standing, const UpstreamToolSettings &settings);
    // Where that decision comes from, in words: the configuration's setting for the tool, what the
    // upstream's annotations say, or that their change waits for the human.
    static QString sourceOf(const QString &upstream, const UpstreamTrust::Standing &standing,
                            const UpstreamToolSettings &settings);

    // The text content of a tool result, one block per paragraph (non-text blocks named).
    static QString resultText(const nlohmann::json &result);
    // The result held to 1 MiB: text cut, other blocks dropped, and a note saying so.
    static nlohmann::json capped(nlohmann::json result, const QString &upstream);
    // Removes, at every depth, each field in Countersign's own namespace ("dev.countersign/...", a
    // receipt's key among them) from what an upstream answered, so nothing it sends can pass for
    // Countersign's receipt or metadata; how many were removed. Iterative: any depth is fine.
    static int stripOurFields(nlohmann::json &answer);
    // Arguments as a person reads them: one "name: value" per line, long and multi-line strings as
    // text below their name, not as escaped JSON.
    static QString argumentsText(const nlohmann::json &arguments);

private:
    Plan basePlan(const nlohmann::json &arguments) const;
    bool destructive() const;

    QPointer<UpstreamLink> m_link;
    QString m_upstream;
    QString m_name;
    QString m_tool;
    nlohmann::json m_descriptor;
    UpstreamTrust::Standing m_standing;
    UpstreamToolSettings m_settings;
    QString m_cwd;
    int m_timeoutMs = 60'000;
    CommandRunner &m_runner;
    std::shared_ptr<const Workspace> m_workspace;
};

} // namespace Countersign
