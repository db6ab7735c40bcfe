#pragma once

#include "actionspec.h"
#include "gatedaction.h"

namespace Countersign {

class CommandRunner;

// A gated action from the configuration: the plan command's stdout is the plan (a JSON object
// {"summary", "diff", "targets", "blastRadius"} is used as such, any other text is shown as the
// diff), and the apply command runs only through the gate.
class CommandAction final : public GatedAction
{
public:
    CommandAction(ActionSpec spec, CommandRunner &runner) : m_spec(std::move(spec)), m_runner(runner) {}

    QString name() const override { return m_spec.name; }
    nlohmann::json descriptor() const override;
    void plan(const nlohmann::json &arguments, PlanDone done) override;
    void apply(const nlohmann::json &arguments, ApplyDone done) override;

    // Runs a plan command and hands over its stdout, or why there is none in words for the agent
    // (it failed to start or timed out, printed more than 1 MiB, or exited non-zero: its stderr's end).
    static void runPlan(CommandRunner &runner, const QStringList &argv, const QString &workingDirectory,
                        int timeoutMs, std::function<void(Result<QByteArray>)> done);

    // Builds the Plan from the plan command's output (public for tests).
    static Result<Plan> planFromOutput(const ActionSpec &spec, const nlohmann::json &arguments,
                                       const QByteArray &stdOut);

private:
    ActionSpec m_spec;
    CommandRunner &m_runner;
};

} // namespace Countersign
