// The plan of an agent's own tool call, what its card shows: a shell command's effects judged
// against the roots and git (its blast radius, what it would lose), or a file change as a diff of the
// file now against the file after. The tool's arguments and verdicts are in agenttool.cpp.
#include "agenttool.h"

#include "agenttoolinternal.h"
#include "blastradius.h"
#include "canonicaljson.h"
#include "git.h"
#include "undoplan.h"
#include "workspace.h"

#include <QFile>
#include <QFileInfo>
#include <QLocale>
#include <QRegularExpression>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

namespace Countersign {

using json = nlohmann::json;
using AgentToolInternal::absoluteIn;
using AgentToolInternal::kMaxNamedFiles;
using AgentToolInternal::shortened;

namespace {

QString agentTitle(const json &arguments)
{
    const auto client = HookClients::parse(QString::fromStdString(arguments.value("agent", "")));
    return client ? HookClients::title(*client) : QStringLiteral("The agent");
}

struct FileNow final
{
    bool exists = false;
    QByteArray bytes;
};

Result<FileNow> readFile(const QString &path)
{
    FileNow now;
    const QFileInfo info(path);
    if (!info.exists())
        return now;
    if (!info.isFile())
        return failure(QStringLiteral("%1 is not a regular file").arg(path));
    if (info.size() > AgentTool::kMaxFileBytes)
        return failure(QStringLiteral("%1 is larger than %2 MiB: no diff is made of it")
                           .arg(path)
                           .arg(AgentTool::kMaxFileBytes / (1024 * 1024)));
    // Opened never blocking, and checked again once open: a FIFO swapped in since the check above
    // would hold the server's thread in a blocking open. Links are followed, as before.
    const int fd = ::open(QFile::encodeName(path).constData(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    struct stat st;
    QFile file;
    if (fd < 0 || ::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) ||
        !file.open(fd, QIODevice::ReadOnly, QFileDevice::AutoCloseHandle)) {
        if (fd >= 0)
            ::close(fd);
        return failure(QStringLiteral("cannot read %1 as a regular file").arg(path));
    }
    now.exists = true;
    now.bytes = file.read(AgentTool::kMaxFileBytes + 1);
    if (now.bytes.size() > AgentTool::kMaxFileBytes)
        return failure(QStringLiteral("%1 is larger than %2 MiB: no diff is made of it")
                           .arg(path)
                           .arg(AgentTool::kMaxFileBytes / (1024 * 1024)));
    return now;
}

QString sha256(const QByteArray &bytes)
{
    return QString::fromLatin1(CanonicalJson::sha256Hex(bytes));
}

// The file as it would be after the edits, applied in order to the text as it is now.
Result<QByteArray> applied(QByteArray text, const json &edits, const QString &path)
{
    for (const json &edit : edits) {
        const QByteArray old = QByteArray::fromStdString(edit.at("old").get<std::string>());
        const QByteArray replacement = QByteArray::fromStdString(edit.at("new").get<std::string>());
        if (old.isEmpty()) {
            if (!text.isEmpty())
                return failure(QStringLiteral("an edit with an empty old_string only creates a file, and "
                                              "%1 is not empty")
                                   .arg(path));
            text = replacement;
            continue;
        }
        const qsizetype found = text.count(old);
        if (found == 0)
            return failure(QStringLiteral("the edit does not apply to %1 as it is now: \"%2\" is not in it")
                               .arg(path, shortened(QString::fromUtf8(old), 60)));
        if (found > 1 && !edit.at("all").get<bool>())
            return failure(QStringLiteral("the edit does not apply to %1 as it is now: \"%2\" is in it %3 "
                                          "times")
                               .arg(path, shortened(QString::fromUtf8(old), 60))
                               .arg(found));
        text.replace(old, replacement);
    }
    return text;
}

} // namespace

void AgentTool::plan(const json &arguments, PlanDone done)
{
    const QString agent = agentTitle(arguments);
    const QString tool = QString::fromStdString(arguments.value("tool", ""));
    switch (m_kind) {
    case Kind::Shell:
        return done(planShell(arguments));
    case Kind::Write:
    case Kind::Edit:
        return done(planFileChange(arguments));
    default:
        break;
    }
    Plan plan;
    plan.risk = Risk::Medium;
    const json &shown = m_kind == Kind::Patch ? arguments.at("patch")
                        : m_kind == Kind::Mcp ? arguments.at("arguments")
                                              : arguments.at("input");
    if (m_kind == Kind::Patch) {
        plan.title = QStringLiteral("Apply a patch with %1's own %2").arg(agent, tool);
        plan.diff = QString::fromStdString(shown.get<std::string>());
        static const QRegularExpression file(QStringLiteral("^\\*\\*\\* (?:Add|Update|Delete) File: (.+)$"),
                                             QRegularExpression::MultilineOption);
        for (auto it = file.globalMatch(plan.diff); it.hasNext();)
            plan.targets.append(it.next().captured(1).trimmed());
    } else if (m_kind == Kind::Mcp) {
        plan.title = QStringLiteral("Call %1 on the MCP server \"%2\", from %3")
                         .arg(QString::fromStdString(arguments.value("name", "")),
                              QString::fromStdString(arguments.value("server", "")), agent);
        plan.targets.append(QString::fromStdString(arguments.value("server", "")));
    } else {
        plan.title = QStringLiteral("Use %1's own %2 tool").arg(agent, tool);
    }
    plan.prompt =
        QStringLiteral("%1 wants to use its own %2 tool (not one of Countersign's):\n\n%3")
            .arg(agent, tool,
                 m_kind == Kind::Patch ? plan.diff : QString::fromStdString(shown.dump(2)).left(8192));
    done(plan);
}

Result<Plan> AgentTool::planShell(const json &arguments) const
{
    const QString agent = agentTitle(arguments);
    const QString command = QString::fromStdString(arguments.at("command").get<std::string>());
    const QString cwd = QString::fromStdString(arguments.value("cwd", ""));
    const CommandJudge::Judgement judged =
        FilePath::isAbsolute(cwd)
            ? judge().line(command, cwd)
            : CommandJudge::Judgement{Verdict::Ask,
                                      QStringLiteral("the command's folder is not known"),
                                      {QStringLiteral("the command's folder is not known")},
                                      {},
                                      false};
    Plan plan;
    plan.title = QStringLiteral("Run \"%1\" in %2's own shell").arg(shortened(command), agent);
    // What it would lose, measured now (issue 38): the files and bytes it deletes and how many git
    // can bring back, the uncommitted diff it discards, the remote commits a forced push overwrites;
    // the digest of the plan binds it.
    const BlastRadius radius =
        FilePath::isAbsolute(cwd)
            ? BlastRadius::of(Shell::CommandEffects::ofLine(command, {cwd, QDir::homePath()}),
                              QDir::homePath(), judged.targets)
            : BlastRadius{};
    // Whether it will be undoable: what it deletes or discards, kept before it runs.
    QStringList sentences = radius.sentences;
    json undo;
    UndoPlan kept;
    if (!radius.deletes.isEmpty() || !radius.deletesAll) {
        kept = UndoPlan::ofRadius(radius, m_workspace.get());
        sentences.append(kept.sentence());
        undo = kept.toJson();
    }
    // Risk follows what could not be taken back (issue 51): something neither git nor a copy kept
    // here brings back, or what could not be measured, is High and irreversible (the human types
    // the target's name to approve); a destructive line that measurably loses nothing, or whose
    // every lost file is kept, is Low or Medium; the rest is Medium (the card shows the line and
    // why it asks).
    const bool measured = !radius.sentences.isEmpty() && !radius.unmeasured;
    const bool keptInFull = kept.undoable() && radius.deletesAll && !radius.lostBeyondFiles;
    const bool loses = radius.lost && !keptInFull;
    const bool irreversible = loses || radius.unmeasured || (judged.destructive && !measured);
    plan.risk = irreversible                                     ? Risk::High
                : judged.destructive && measured && !radius.lost ? Risk::Low
                                                                 : Risk::Medium;
    plan.summary = sentences.isEmpty() ? judged.why : sentences.join(QLatin1Char(' '));
    plan.diff = radius.diff;
    plan.targets = judged.targets;
    if (!plan.targets.contains(cwd))
        plan.targets.append(cwd);
    // The files inside the roots that it names, with their hashes now.
    json named = json::array();
    static const QRegularExpression separators(QStringLiteral("[\\s;&|<>()`$'\"]+"));
    for (const QString &word : command.split(separators, Qt::SkipEmptyParts)) {
        if (named.size() >= kMaxNamedFiles || !m_workspace)
            break;
        const QString path = absoluteIn(word, cwd);
        if (!m_workspace->confines(path) || !QFileInfo(path).isFile())
            continue;
        auto now = readFile(path);
        named.push_back(
            {{"path", path.toStdString()},
             {"sha256", now && now.value().exists ? sha256(now.value().bytes).toStdString() : ""}});
    }
    plan.blastRadius = {{"namedFiles", named},
                        {"asks", judged.toJson().at("asks")},
                        {"measured", radius.detail},
                        {"irreversible", irreversible},
                        {"mode", gateModeName(m_mode).toStdString()}};
    if (!undo.is_null())
        plan.blastRadius["undo"] = undo;
    QString files;
    for (const json &f : named)
        files += QStringLiteral("\n  %1  %2")
                     .arg(QString::fromStdString(f.at("sha256").get<std::string>()).left(12),
                          QString::fromStdString(f.at("path").get<std::string>()));
    QString reasons;
    for (const QString &why : judged.asks)
        reasons += QStringLiteral("\n  - ") + why;

    plan.prompt = QStringLiteral("%1 wants to run this with its own shell tool (not through Countersign):\n\n"
                                 "$ %2\n\nin %3\nWhy it asks:%4%5")
                      .arg(agent, command, cwd.isEmpty() ? QStringLiteral("(no folder given)") : cwd,
                           reasons.isEmpty() ? QStringLiteral(" a rule asks for it") : reasons,
                           files.isEmpty() ? QString() : QStringLiteral("\nFiles it names:") + files);
    return plan;
}

Result<Plan> AgentTool::planFileChange(const json &arguments) const
{
    const QString agent = agentTitle(arguments);
    const QString tool = QString::fromStdString(arguments.value("tool", ""));
    const QString path = QString::fromStdString(arguments.at("path").get<std::string>());
    if (path.isEmpty() || !FilePath::isAbsolute(path))
        return failure(
            QStringLiteral("%1's %2 names no absolute file (and no folder to find it in)").arg(agent, tool));
    auto now = readFile(path);
    if (!now)
        return failure(now.error());
    QByteArray after;
    if (m_kind == Kind::Write) {
        after = QByteArray::fromStdString(arguments.at("content").get<std::string>());
    } else {
        auto edited = applied(now.value().bytes, arguments.at("edits"), path);
        if (!edited)
            return failure(edited.error());
        after = std::move(edited).value();
    }
    Plan plan;
    plan.risk = Risk::Medium;
    plan.title =
        QStringLiteral("%1 %2 with %3's own %4")
            .arg(now.value().exists ? QStringLiteral("Change") : QStringLiteral("Create"), path, agent, tool);
    plan.diff = Git::unifiedDiff(path, now.value().bytes, after);
    plan.targets.append(path);
    plan.blastRadius = {{"files", 1},
                        {"bytesBefore", now.value().bytes.size()},
                        {"bytesAfter", after.size()},
                        {"beforeSha256", now.value().exists ? sha256(now.value().bytes).toStdString() : ""},
                        {"afterSha256", sha256(after).toStdString()},
                        {"inRoots", m_workspace && m_workspace->confines(path)}};
    plan.prompt =
        QStringLiteral("%1 wants to %2 this file with its own %3 tool (not through Countersign):\n%4")
            .arg(agent, now.value().exists ? QStringLiteral("change") : QStringLiteral("create"), tool, path);
    return plan;
}

} // namespace Countersign
