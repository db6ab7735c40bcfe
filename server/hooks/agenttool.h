#pragma once

#include "commandjudge.h"
#include "gatedaction.h"
#include "hookcall.h"

#include <QStringList>

#include <memory>

namespace Countersign {

class Workspace;

// An agent's own tool (its shell, its file writes and edits, another MCP server's tool), reaching the
// gate through the agent's pre-tool hook. The gate judges it as any gated tool: policy first (rules
// on "agent:shell", "agent:write", ...), then a card with the real plan, a single-use ticket, the
// audit chain, through the gate's door for calls that are not MCP requests (Gate::judge). The
// client runs the tool itself, so "apply" runs nothing: it is the allow the hook answers, once per
// approval.
class AgentTool final : public GatedAction
{
public:
    enum class Kind { Shell, Write, Edit, Patch, Mcp, Read, Other };

    static Kind kindOf(const QString &tool);
    // The call as the policy and the card see it, the same for every client: the agent, its tool,
    // the working folder and the canonical input of the kind (a shell command's argv only when it
    // is a plain list of words). Fails on an input that is not what that tool takes.
    static Result<nlohmann::json> arguments(const HookCall &call);

    // countersignServers: the names this console's own MCP server goes by in the clients (its
    // tools are gated by it already, so their hook calls are allowed by default).
    // mode: what runs with no card when no rule decides (CommandJudge).
    AgentTool(Kind kind, std::shared_ptr<const Workspace> workspace, QStringList countersignServers,
              GateMode mode = GateMode::Standard);

    QString name() const override;
    nlohmann::json descriptor() const override;
    bool readsOnly() const override { return m_kind == Kind::Read; }
    Verdict defaultVerdict(const nlohmann::json &arguments) const override;
    // Judged by what the call would do: a shell command's effects, a read's or a write's path
    // (CommandJudge), with the reason in words.
    Default byDefault(const nlohmann::json &arguments) const override;
    // A write's or edit's path, resolved against the roots when inside them (else only where it
    // leads, links followed).
    PathSpellings pathSpellings(const nlohmann::json &arguments) const override;
    // The command line (shortened), the file written, edited or read, the patch's files, the MCP
    // server and tool: what its audit row names when it ran with no card.
    QStringList targetsOf(const nlohmann::json &arguments) const override;
    void plan(const nlohmann::json &arguments, PlanDone done) override;
    void apply(const nlohmann::json &arguments, ApplyDone done) override;

    // Files larger than this are not read for a plan (the card says so; it still asks).
    static constexpr qint64 kMaxFileBytes = 4 * 1024 * 1024;
    // The files a write, edit or patch changes (absolute; a patch's relative ones from its cwd), and
    // the files a shell command deletes or discards when it can keep them (UndoPlan), whose
    // previous content is kept for an undo before it is allowed; none for the other kinds.
    QStringList writtenPaths(const nlohmann::json &arguments) const;
    // Whether a write allowed with no card runs only with its undo: a write, edit or patch. A shell
    // command keeps what it can and runs without an undo when it cannot (its card said so).
    // What the call would delete, discard or overwrite (absolute paths): a shell command's targets
    // when the judge finds it destructive, the files a write, edit or patch changes; none for
    // reads and other MCP servers' tools.
    QStringList reaches(const nlohmann::json &arguments) const;
    bool needsUndo() const { return m_kind == Kind::Write || m_kind == Kind::Edit || m_kind == Kind::Patch; }

private:
    Result<Plan> planShell(const nlohmann::json &arguments) const;
    Result<Plan> planFileChange(const nlohmann::json &arguments) const;

    CommandJudge judge() const;
    // The files an apply_patch names (relative ones from cwd), and whether it deletes any.
    static QStringList patchTargets(const QString &patch, const QString &cwd, bool *deletes);

    Kind m_kind;
    std::shared_ptr<const Workspace> m_workspace;
    QStringList m_countersignServers;
    GateMode m_mode = GateMode::Standard;
};

} // namespace Countersign
