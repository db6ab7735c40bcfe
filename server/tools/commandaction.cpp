#include "commandaction.h"

#include "commandrunner.h"
#include "tool.h"

namespace Countersign {

namespace {

using json = nlohmann::json;

constexpr qsizetype kMaxPlanBytes = 1024 * 1024;
constexpr qsizetype kMaxResultBytes = 256 * 1024;

QString tail(const QByteArray &bytes, qsizetype max = 2000)
{
    const QString text = QString::fromUtf8(bytes).trimmed();
    return text.size() <= max ? text : QStringLiteral("…") + text.right(max);
}

QString argumentsInWords(const json &arguments)
{
    QStringList parts;
    for (auto it = arguments.begin(); it != arguments.end(); ++it) {
        const json &v = it.value();
        parts.append(QStringLiteral("%1=%2").arg(QString::fromStdString(it.key()),
                                                 v.is_string() ? QString::fromStdString(v.get<std::string>())
                                                               : QString::fromStdString(v.dump())));
    }
    return parts.join(QStringLiteral(", "));
}

} // namespace

json CommandAction::descriptor() const
{
    const bool readOnly = false;
    return {
        {"name", m_spec.name.toStdString()},
        {"title", m_spec.title.toStdString()},
        {"description", (m_spec.description.isEmpty() ? m_spec.title : m_spec.description).toStdString() +
                            " (Countersign: a human approves each call in the Countersign window; the call "
                            "answers input_required until then.)"},
        {"inputSchema", m_spec.inputSchema},
        {"annotations",
         {{"title", m_spec.title.toStdString()},
          {"readOnlyHint", readOnly},
          {"destructiveHint", true},
          {"idempotentHint", false},
          {"openWorldHint", true}}}};
}

Result<Plan> CommandAction::planFromOutput(const ActionSpec &spec, const json &arguments,
                                           const QByteArray &stdOut)
{
    Plan plan;
    plan.risk = spec.risk;
    const QString args = argumentsInWords(arguments);
    plan.title = args.isEmpty() ? spec.title : QStringLiteral("%1 (%2)").arg(spec.title, args);
    plan.prompt =
        QStringLiteral("Run \"%1\"%2?%3")
            .arg(spec.title, args.isEmpty() ? QString() : QStringLiteral(" with %1").arg(args),
                 spec.description.isEmpty() ? QString() : QStringLiteral("\n%1").arg(spec.description));
    // Unless the plan names them, the targets are the argument values the apply command uses.
    for (const QString &name : ActionSpec::placeholders(spec.apply)) {
        const auto v = arguments.find(name.toStdString());
        if (v != arguments.end()) {
            const QString text = v->is_string() ? QString::fromStdString(v->get<std::string>())
                                                : QString::fromStdString(v->dump());
            if (!plan.targets.contains(text))
                plan.targets.append(text);
        }
    }
    plan.blastRadius = {{"irreversible", spec.risk >= Risk::High}};

    const QByteArray trimmed = stdOut.trimmed();
    const json parsed =
        trimmed.startsWith('{') ? json::parse(trimmed.cbegin(), trimmed.cend(), nullptr, false) : json();
    if (!parsed.is_object()) {
        plan.diff = QString::fromUtf8(stdOut);
        return plan;
    }
    const auto str = [&](const char *key, QString &out) -> Status {
        const auto it = parsed.find(key);
        if (it == parsed.end())
            return success();
        if (!it->is_string())
            return failure(QStringLiteral("the plan's \"%1\" must be a string").arg(QLatin1String(key)));
        out = QString::fromStdString(it->get<std::string>());
        return success();
    };
    if (auto s = str("summary", plan.summary); !s)
        return failure(s.error());
    if (auto s = str("diff", plan.diff); !s)
        return failure(s.error());
    if (const auto targets = parsed.find("targets"); targets != parsed.end()) {
        if (!targets->is_array())
            return failure(QStringLiteral("the plan's \"targets\" must be an array of strings"));
        plan.targets.clear();
        for (const json &t : *targets) {
            if (!t.is_string())
                return failure(QStringLiteral("the plan's \"targets\" must be an array of strings"));
            plan.targets.append(QString::fromStdString(t.get<std::string>()));
        }
    }
    if (const auto blast = parsed.find("blastRadius"); blast != parsed.end()) {
        if (!blast->is_object())
            return failure(QStringLiteral("the plan's \"blastRadius\" must be an object"));
        plan.blastRadius.update(*blast);
        // "undo" is Countersign's own promise of a copy kept before the run; a plan command, which
        // may echo what a remote service says, cannot make it (it would lift the typed name).
        plan.blastRadius.erase("undo");
    }
    return plan;
}

void CommandAction::runPlan(CommandRunner &runner, const QStringList &argv, const QString &workingDirectory,
                            int timeoutMs, std::function<void(Result<QByteArray>)> done)
{
    runner.run(CommandSpec{argv, workingDirectory, timeoutMs, kMaxPlanBytes, {}},
               [done = std::move(done)](Result<CommandOutput> out) {
                   if (!out)
                       return done(failure(QStringLiteral("the plan command failed: %1").arg(out.error())));
                   if (out.value().truncated)
                       return done(failure(
                           QStringLiteral("the plan command printed more than %1 bytes").arg(kMaxPlanBytes)));
                   if (out.value().exitCode != 0)
                       return done(failure(QStringLiteral("the plan command exited with %1: %2")
                                               .arg(out.value().exitCode)
                                               .arg(tail(out.value().stdErr))));
                   done(std::move(out.value().stdOut));
               });
}

void CommandAction::plan(const json &arguments, PlanDone done)
{
    auto argv = ActionSpec::fillArgv(m_spec.plan, arguments);
    if (!argv)
        return done(failure(argv.error()));
    runPlan(m_runner, argv.value(), m_spec.workingDirectory, m_spec.timeoutSeconds * 1000,
            [spec = m_spec, arguments, done = std::move(done)](Result<QByteArray> out) {
                if (!out)
                    return done(failure(out.error()));
                done(planFromOutput(spec, arguments, out.value()));
            });
}

void CommandAction::apply(const json &arguments, ApplyDone done)
{
    auto argv = ActionSpec::fillArgv(m_spec.apply, arguments);
    if (!argv)
        return done(textResult(QStringLiteral("Not run: %1").arg(argv.error()), true));
    m_runner.run(
        CommandSpec{argv.value(), m_spec.workingDirectory, m_spec.timeoutSeconds * 1000, kMaxResultBytes, {}},
        [done = std::move(done)](Result<CommandOutput> out) {
            if (!out)
                return done(
                    textResult(QStringLiteral("The apply command failed: %1").arg(out.error()), true));
            const CommandOutput &o = out.value();
            QString text = QStringLiteral("exit code %1").arg(o.exitCode);
            if (!o.stdOut.isEmpty())
                text += QStringLiteral("\n%1").arg(QString::fromUtf8(o.stdOut));
            if (!o.stdErr.isEmpty())
                text += QStringLiteral("\nstderr:\n%1").arg(tail(o.stdErr));
            if (o.truncated)
                text += QStringLiteral("\n(output truncated)");
            json result = textResult(text, o.exitCode != 0);
            result["structuredContent"] = {{"exitCode", o.exitCode},
                                           {"stdout", QString::fromUtf8(o.stdOut).toStdString()},
                                           {"stderr", QString::fromUtf8(o.stdErr).toStdString()},
                                           {"truncated", o.truncated}};
            done(std::move(result));
        });
}

} // namespace Countersign
