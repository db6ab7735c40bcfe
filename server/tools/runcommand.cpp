#include "runcommand.h"

#include "blastradius.h"
#include "commandrunner.h"
#include "filepath.h"
#include "readonlycommand.h"
#include "tool.h"
#include "workspace.h"
#include "workspaceargs.h"

#include <QCryptographicHash>
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QLoggingCategory>
#include <QStandardPaths>

Q_LOGGING_CATEGORY(lcRunCommand, "countersign.runcommand")

namespace Countersign {

using json = nlohmann::json;

RunCommand::RunCommand(std::shared_ptr<const Workspace> ws, CommandRunner &runner,
                       std::shared_ptr<SnapshotStore> snapshots)
    : m_wsOwner(std::move(ws)), m_ws(*m_wsOwner), m_runner(runner), m_undo(std::move(snapshots))
{
}

// What its measured effects delete or discard, when a copy can be kept (UndoPlan); nothing
// without a snapshot store, or for a command that deletes nothing it can name.
UndoPlan RunCommand::undoPlan(const BlastRadius &radius) const
{
    if (!m_undo.keeps() || (radius.deletes.isEmpty() && radius.deletesAll))
        return {};
    return UndoPlan::ofRadius(radius, &m_ws);
}

BlastRadius RunCommand::radiusOf(const QStringList &argv, const QString &cwd)
{
    return BlastRadius::of(Shell::CommandEffects::ofArgv(argv, {cwd, QDir::homePath()}), QDir::homePath());
}

json RunCommand::descriptor() const
{
    static const json kDescriptor = WorkspaceArgs::descriptor(
        "run_command", "Run a command",
        "Runs a program with arguments (an argv array, never a shell) in a workspace "
        "folder; returns its exit code and output.",
        {{"argv", {{"type", "array"}, {"items", {{"type", "string"}}}, {"minItems", 1}}},
         {"cwd", {{"type", "string"}}}},
        {"argv"}, false, true);
    return kDescriptor;
}

Verdict RunCommand::defaultVerdict(const json &args) const
{
    auto cwd = cwdOf(args);
    if (!cwd)
        return Verdict::Ask;
    const QString why = ReadOnlyCommand::refusal(argvOf(args), cwd.value(), m_ws);
    if (!why.isEmpty()) {
        qCDebug(lcRunCommand) << "asks:" << why;
        return Verdict::Ask;
    }
    return Verdict::Allow;
}

// The files inside the roots that argv names (the program, each argument, an option's value after
// '='), with the SHA-256 of their content: what the human approves is what runs.
QList<RunCommand::Pin> RunCommand::pins(const QStringList &argv, const QString &cwd) const
{
    QStringList candidates;
    const QString program = argv.first();
    if (!program.contains(QLatin1Char('/')))
        candidates.append(QStandardPaths::findExecutable(program)); // a PATH entry may be inside a root
    for (const QString &arg : argv) {
        candidates.append(arg);
        if (arg.startsWith(QLatin1Char('-')) && arg.contains(QLatin1Char('=')))
            candidates.append(arg.mid(arg.indexOf(QLatin1Char('=')) + 1));
    }
    QList<Pin> pinned;
    QStringList seen;
    for (const QString &candidate : candidates) {
        if (candidate.isEmpty() || candidate.contains(QChar(0)))
            continue;
        const QString absolute =
            FilePath::isAbsolute(candidate) ? candidate : cwd + QLatin1Char('/') + candidate;
        const QFileInfo info(absolute);
        const QString canonical = info.canonicalFilePath();
        if (canonical.isEmpty() || !QFileInfo(canonical).isFile() || !m_ws.confines(canonical) ||
            seen.contains(canonical))
            continue;
        seen.append(canonical);
        QFile file(canonical);
        QCryptographicHash hash(QCryptographicHash::Sha256);
        const bool read = file.open(QIODevice::ReadOnly) && hash.addData(&file);
        pinned.append(Pin{canonical, read ? QString::fromLatin1(hash.result().toHex())
                                          : QStringLiteral("unreadable: %1").arg(file.errorString())});
    }
    return pinned;
}

// What the human types to approve a command: what it acts on. For git push, the remote and what
// is pushed ("origin main"); for anything else the whole command line, since its program alone
// ("git", "rm") proves nothing about what it does.
static QString confirmationOf(const QStringList &argv)
{
    if (QFileInfo(argv.first()).fileName() == QLatin1String("git")) {
        // git's own options before the subcommand; -C and -c take a value.
        qsizetype i = 1;
        while (i < argv.size() && argv.at(i).startsWith(QLatin1Char('-')))
            i += argv.at(i) == QLatin1String("-C") || argv.at(i) == QLatin1String("-c") ? 2 : 1;
        if (i < argv.size() && argv.at(i) == QLatin1String("push")) {
            QStringList named;
            for (qsizetype j = i + 1; j < argv.size(); ++j) {
                if (!argv.at(j).startsWith(QLatin1Char('-')))
                    named << argv.at(j);
            }
            if (!named.isEmpty())
                return named.join(QLatin1Char(' '));
        }
    }
    return argv.join(QLatin1Char(' '));
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
    p.targets = {confirmationOf(argv)}; // what the human types to confirm
    p.summary = QStringLiteral("argv %1 in %2").arg(quoted(argv), cwd.value());
    p.prompt = QStringLiteral("Run %1?").arg(quoted(argv));
    p.blastRadius = {{"cwd", cwd.value().toStdString()}, {"irreversible", true}};
    // What it would lose, measured now as for an agent's own shell: the files an rm deletes, the
    // uncommitted diff a git reset --hard discards, the remote commits a forced push overwrites.
    const BlastRadius radius = radiusOf(argv, cwd.value());
    if (!radius.sentences.isEmpty()) {
        p.summary = radius.sentences.join(QLatin1Char(' '));
        p.prompt += QLatin1Char(' ') + p.summary;
        p.blastRadius["measured"] = radius.detail;
        if (!radius.diff.isEmpty())
            p.diff += QStringLiteral("\nWhat it would discard:\n") + radius.diff;
    }
    const QList<Pin> pinned = pins(argv, cwd.value());
    if (!pinned.isEmpty()) {
        p.diff +=
            QStringLiteral("\nContent pinned by this approval (a change before the run makes a new card):\n");
        json byPath = json::object();
        for (const Pin &pin : pinned) {
            p.diff +=
                QStringLiteral("  %1  sha256:%2\n").arg(WorkspaceArgs::shown(m_ws, pin.path), pin.sha256);
            byPath[WorkspaceArgs::shown(m_ws, pin.path).toStdString()] = pin.sha256.toStdString();
        }
        p.blastRadius["pinnedFiles"] = std::move(byPath);
    }
    p.risk = Risk::High;
    UndoableApply::describe(undoPlan(radius), p);
    done(p);
}

void RunCommand::applyRecorded(const json &args, const Plan &plan, Recorder record, ApplyDone done)
{
    auto cwd = cwdOf(args);
    if (!cwd)
        return done(textResult(cwd.error(), true));
    m_undo.run(
        undoPlan(radiusOf(argvOf(args), cwd.value())), plan, record,
        [this, args](ApplyDone d) { apply(args, std::move(d)); }, std::move(done));
}

void RunCommand::apply(const json &args, ApplyDone done)
{
    auto cwd = cwdOf(args);
    if (!cwd)
        return done(textResult(cwd.error(), true));
    const QStringList argv = argvOf(args);
    // git's reading commands run hardened (no configuration, hooks or helpers) whoever allowed them.
    m_runner.run(ReadOnlyCommand::spec(argv, cwd.value(), m_ws), [done](Result<CommandOutput> out) {
        if (!out)
            return done(textResult(out.error(), true));
        const CommandOutput &o = out.value();
        QString text = QStringLiteral("exit code %1\n%2").arg(o.exitCode).arg(QString::fromUtf8(o.stdOut));
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
