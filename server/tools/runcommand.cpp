#include "runcommand.h"

#include "commandrunner.h"
#include "tool.h"
#include "workspace.h"
#include "workspaceargs.h"

#include <QFileInfo>

namespace Countersign {

using json = nlohmann::json;

RunCommand::RunCommand(std::shared_ptr<const Workspace> ws, CommandRunner &runner)
    : m_wsOwner(std::move(ws)), m_ws(*m_wsOwner), m_runner(runner)
{
}

json RunCommand::descriptor() const
{
    return WorkspaceArgs::descriptor(
        "run_command", "Run a command",
        "Runs a program with arguments (an argv array, never a shell) in a workspace "
        "folder; returns its exit code and output.",
        {{"argv", {{"type", "array"}, {"items", {{"type", "string"}}}, {"minItems", 1}}},
         {"cwd", {{"type", "string"}}}},
        {"argv"}, false, true);
}

Verdict RunCommand::defaultVerdict(const json &args) const
{
    static const QList<QStringList> kReadOnly = {{"git", "status"}, {"git", "diff"}, {"git", "log"},
                                                 {"git", "show"},   {"ls"},          {"pwd"}};
    const QStringList argv = argvOf(args);
    for (const QStringList &prefix : kReadOnly) {
        if (argv.mid(0, prefix.size()) == prefix)
            return Verdict::Allow;
    }
    return Verdict::Ask;
}

void RunCommand::plan(const json &args, PlanDone done)
{
    auto cwd = cwdOf(args);
    if (!cwd)
        return done(failure(cwd.error()));
    const QStringList argv = argvOf(args);
    if (argv.isEmpty() || argv.first().isEmpty())
        return done(failure(QStringLiteral("argv must name a program")));
    for (const QString &a : argv) {
        if (a.contains(QChar(0)))
            return done(failure(QStringLiteral("an argument contains a NUL byte")));
    }
    Plan p;
    p.title = QStringLiteral("Run %1").arg(argv.first());
    p.diff = QStringLiteral("$ %1\n(in %2; no shell: each argument is passed as is)\n")
                 .arg(quoted(argv), WorkspaceArgs::shown(m_ws, cwd.value()));
    p.targets = {argv.first()}; // the program: what the human types to confirm
    p.summary = QStringLiteral("argv %1 in %2").arg(quoted(argv), cwd.value());
    p.prompt = QStringLiteral("Run %1?").arg(quoted(argv));
    p.blastRadius = {{"cwd", cwd.value().toStdString()}, {"irreversible", true}};
    p.risk = Risk::High;
    done(p);
}

void RunCommand::apply(const json &args, ApplyDone done)
{
    auto cwd = cwdOf(args);
    if (!cwd)
        return done(textResult(cwd.error(), true));
    m_runner.run(CommandSpec{argvOf(args), cwd.value(), 120'000, 256 * 1024},
                 [done](Result<CommandOutput> out) {
                     if (!out)
                         return done(textResult(out.error(), true));
                     const CommandOutput &o = out.value();
                     QString text =
                         QStringLiteral("exit code %1\n%2").arg(o.exitCode).arg(QString::fromUtf8(o.stdOut));
                     if (!o.stdErr.isEmpty())
                         text += QStringLiteral("\nstderr:\n%1").arg(QString::fromUtf8(o.stdErr));
                     if (o.truncated)
                         text += QStringLiteral("\n(output truncated at 256 KiB)");
                     json result = textResult(text, o.exitCode != 0);
                     result["structuredContent"] = {{"exitCode", o.exitCode}, {"truncated", o.truncated}};
                     done(std::move(result));
                 });
}

QStringList RunCommand::argvOf(const json &args)
{
    QStringList argv;
    const auto list = args.find("argv");
    if (list == args.end() || !list->is_array())
        return argv;
    for (const json &a : *list)
        argv.append(a.is_string() ? QString::fromStdString(a.get<std::string>()) : QString());
    return argv;
}

QString RunCommand::quoted(const QStringList &argv)
{
    QStringList parts;
    for (const QString &a : argv)
        parts.append(a.contains(QLatin1Char(' ')) || a.isEmpty() ? QLatin1Char('"') + a + QLatin1Char('"')
                                                                 : a);
    return parts.join(QLatin1Char(' '));
}

Result<QString> RunCommand::cwdOf(const json &args) const
{
    const QString cwd = WorkspaceArgs::str(args, "cwd");
    auto resolved = m_ws.resolve(cwd.isEmpty() ? m_ws.roots().value(0) : cwd, Workspace::Must::Exist);
    if (resolved && !QFileInfo(resolved.value()).isDir())
        return failure(QStringLiteral("cwd %1 is not a folder").arg(cwd));
    return resolved;
}

} // namespace Countersign
