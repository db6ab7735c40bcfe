#include "agenttool.h"

#include "agenttoolinternal.h"
#include "blastradius.h"
#include "filepath.h"
#include "git.h"
#include "snapshotstore.h"
#include "undoplan.h"
#include "workspace.h"

#include <QCryptographicHash>
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QLocale>
#include <QRegularExpression>

#include <algorithm>
#include <cerrno>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

namespace Countersign {

using json = nlohmann::json;
using AgentToolInternal::absoluteIn;
using AgentToolInternal::shortened;

namespace {

// Why the file's previous content cannot be kept for an undo (a write over it then asks): not a
// regular file, or larger than the snapshot store keeps. Empty when it can (or it does not exist).
QString unkeepable(const QString &path)
{
    const QFileInfo info(path);
    if (!info.exists() && !info.isSymLink())
        return {};
    if (info.isSymLink() || !info.isFile())
        return QStringLiteral("writes %1, which is not a regular file: its previous content cannot be kept "
                              "for an undo")
            .arg(path);
    struct stat st;
    if (::lstat(QFile::encodeName(path).constData(), &st) == 0 && st.st_nlink > 1)
        return QStringLiteral(
                   "writes %1, which has other hard links: its previous content is not kept for an "
                   "undo")
            .arg(path);
    if (info.size() > SnapshotStore::kMaxFileBytes)
        return QStringLiteral("writes %1 (%2 MiB): a file over %3 MiB is not kept for an undo")
            .arg(path)
            .arg(info.size() >> 20)
            .arg(SnapshotStore::kMaxFileBytes >> 20);
    return {};
}

constexpr qsizetype kMaxCommand = 64 * 1024;

const char *kindName(AgentTool::Kind kind)
{
    switch (kind) {
    case AgentTool::Kind::Shell:
        return "shell";
    case AgentTool::Kind::Write:
        return "write";
    case AgentTool::Kind::Edit:
        return "edit";
    case AgentTool::Kind::Patch:
        return "patch";
    case AgentTool::Kind::Mcp:
        return "mcp";
    case AgentTool::Kind::Read:
        return "read";
    case AgentTool::Kind::Other:
        return "other";
    }
    return "other";
}

Result<QString> requiredString(const json &input, std::initializer_list<const char *> keys, qsizetype max)
{
    // Two spellings of one argument (file_path and path) that disagree: which one the client acts
    // on is not Countersign's to guess.
    const char *first = nullptr;
    for (const char *key : keys) {
        const auto it = input.find(key);
        if (it == input.end())
            continue;
        if (first && *it != input.at(first))
            return failure(QStringLiteral("tool_input has both %1 and %2, and they differ")
                               .arg(QLatin1String(first), QLatin1String(key)));
        first = first ? first : key;
    }
    for (const char *key : keys) {
        const auto it = input.find(key);
        if (it == input.end())
            continue;
        if (!it->is_string())
            return failure(QStringLiteral("tool_input.%1 is not a string").arg(QLatin1String(key)));
        const QString value = QString::fromStdString(it->get<std::string>());
        if (value.size() > max)
            return failure(QStringLiteral("tool_input.%1 is longer than %2 characters")
                               .arg(QLatin1String(key))
                               .arg(max));
        return value;
    }
    return failure(QStringLiteral("tool_input has no %1").arg(QLatin1String(*keys.begin())));
}

// The argv of a command that is a plain list of words (letters, digits and _ . / = : @ % + , -),
// and nothing for anything a shell would read more into: quotes, $, `, ;, &, |, <, >, (, ), *, ?,
// ~, #, !, {, }, [, ], a backslash or a line break. A rule's argvPrefix matches only that argv, so
// "git status; rm -rf ~" or "bash -c '...'" can never match an allow rule written for git status.
std::optional<QStringList> plainWords(const QString &command)
{
    // \z, not $: $ also matches just before a final line break ("git push\n").
    static const QRegularExpression plain(QStringLiteral("\\A[A-Za-z0-9_./=:@%+,\\- \\t]*\\z"));
    if (!plain.match(command).hasMatch())
        return std::nullopt;
    const QStringList words =
        command.split(QRegularExpression(QStringLiteral("[ \\t]+")), Qt::SkipEmptyParts);
    if (words.isEmpty())
        return std::nullopt;
    return words;
}

// The edits of a Claude Code Edit or MultiEdit, or a Gemini CLI replace, as [{old, new, all}].
// multi: the tool takes a list of edits (Claude Code's MultiEdit); every other edit tool takes
// one, in its top-level fields, and an "edits" list beside them is refused: the client would apply
// the top-level edit while the card showed the list.
Result<json> editsOf(const json &input, bool multi)
{
    json edits = json::array();
    const auto one = [&edits](const json &edit) -> Status {
        const auto old = edit.find("old_string");
        const auto replacement = edit.find("new_string");
        if (old == edit.end() || !old->is_string() || replacement == edit.end() || !replacement->is_string())
            return failure(QStringLiteral("an edit needs old_string and new_string, both strings"));
        const bool all =
            edit.value("replace_all", false) == true ||
            (edit.contains("expected_replacements") && edit.value("expected_replacements", 1) != 1);
        edits.push_back({{"old", *old}, {"new", *replacement}, {"all", all}});
        return success();
    };
    if (const auto list = input.find("edits"); list != input.end() || multi) {
        if (!multi)
            return failure(QStringLiteral("tool_input has an edits list, which this tool does not take"));
        if (list == input.end() || !list->is_array() || list->empty() || list->size() > 256)
            return failure(QStringLiteral("tool_input.edits is not a list of 1 to 256 edits"));
        for (const json &edit : *list) {
            if (!edit.is_object())
                return failure(QStringLiteral("tool_input.edits holds something that is not an edit"));
            if (auto ok = one(edit); !ok)
                return failure(ok.error());
        }
        return Result<json>(edits);
    }
    if (auto ok = one(input); !ok)
        return failure(ok.error());
    return Result<json>(edits);
}

} // namespace

AgentTool::Kind AgentTool::kindOf(const QString &tool)
{
    static const QStringList shells = {QStringLiteral("Bash"), QStringLiteral("run_shell_command"),
                                       QStringLiteral("shell"), QStringLiteral("local_shell"),
                                       QStringLiteral("exec_command")};
    static const QStringList writes = {QStringLiteral("Write"), QStringLiteral("write_file")};
    static const QStringList edits = {QStringLiteral("Edit"), QStringLiteral("MultiEdit"),
                                      QStringLiteral("replace"), QStringLiteral("edit")};
    static const QStringList reads = {QStringLiteral("Read"),
                                      QStringLiteral("Glob"),
                                      QStringLiteral("Grep"),
                                      QStringLiteral("LS"),
                                      QStringLiteral("read_file"),
                                      QStringLiteral("list_directory"),
                                      QStringLiteral("glob"),
                                      QStringLiteral("search_file_content"),
                                      QStringLiteral("read_many_files"),
                                      QStringLiteral("grep_search"),
                                      QStringLiteral("grep"),
                                      QStringLiteral("rg")};
    if (shells.contains(tool))
        return Kind::Shell;
    if (writes.contains(tool))
        return Kind::Write;
    if (edits.contains(tool))
        return Kind::Edit;
    if (tool == QLatin1String("apply_patch"))
        return Kind::Patch;
    if (tool.startsWith(QLatin1String("mcp__")))
        return Kind::Mcp;
    if (reads.contains(tool))
        return Kind::Read;
    return Kind::Other;
}

Result<json> AgentTool::arguments(const HookCall &call)
{
    json args = {{"agent", HookClients::name(call.client).toStdString()},
                 {"tool", call.tool.toStdString()},
                 {"cwd", call.cwd.toStdString()}};
    const json &input = call.input;
    switch (kindOf(call.tool)) {
    case Kind::Shell: {
        auto command = requiredString(input, {"command", "cmd"}, kMaxCommand);
        if (!command)
            return failure(command.error());
        args["command"] = command.value().toStdString();
        // Gemini CLI runs the command in dir_path (from its folder), Codex in workdir, Qwen Code in
        // directory: that is the folder the card names and the read-only check reads. A call that
        // names two different folders is refused: which one the client runs in is not known here.
        QString folder;
        for (const char *key : {"dir_path", "workdir", "directory"}) {
            const auto dir = input.find(key);
            if (dir == input.end() || !dir->is_string() || dir->empty())
                continue;
            const QString named = absoluteIn(QString::fromStdString(dir->get<std::string>()), call.cwd);
            if (!folder.isEmpty() && named != folder)
                return failure(
                    QStringLiteral("the call names two folders to run in (%1 and %2)").arg(folder, named));
            folder = named;
        }
        if (!folder.isEmpty())
            args["cwd"] = folder.toStdString();
        if (auto words = plainWords(command.value())) {
            json argv = json::array();
            for (const QString &w : *words)
                argv.push_back(w.toStdString());
            args["argv"] = std::move(argv);
        }
        break;
    }
    case Kind::Write: {
        auto path = requiredString(input, {"file_path", "path"}, 4096);
        if (!path)
            return failure(path.error());
        auto content = requiredString(input, {"content"}, kMaxFileBytes);
        if (!content)
            return failure(content.error());
        args["path"] = absoluteIn(path.value(), call.cwd).toStdString();
        args["content"] = content.value().toStdString();
        break;
    }
    case Kind::Edit: {
        auto path = requiredString(input, {"file_path", "path"}, 4096);
        if (!path)
            return failure(path.error());
        auto edits = editsOf(input, call.tool == QLatin1String("MultiEdit"));
        if (!edits)
            return failure(edits.error());
        args["path"] = absoluteIn(path.value(), call.cwd).toStdString();
        args["edits"] = std::move(edits).value();
        break;
    }
    case Kind::Patch: {
        auto patch = requiredString(input, {"command", "patch", "input"}, kMaxFileBytes);
        if (!patch)
            return failure(patch.error());
        args["patch"] = patch.value().toStdString();
        break;
    }
    case Kind::Mcp: {
        const QStringList parts = call.tool.mid(5).split(QStringLiteral("__"));
        args["server"] = parts.value(0).toStdString();
        args["name"] = parts.mid(1).join(QStringLiteral("__")).toStdString();
        args["arguments"] = input;
        break;
    }
    case Kind::Read:
    case Kind::Other:
        args["input"] = input;
        break;
    }
    // Whatever else the client sent with a shell command, a write, an edit or a patch (Claude Code's
    // dangerouslyDisableSandbox, a timeout, a field this version does not know) is part of the call
    // as the card shows it and as its approval is bound: another value is another call.
    static const QStringList consumed = {QStringLiteral("command"),
                                         QStringLiteral("cmd"),
                                         QStringLiteral("description"),
                                         QStringLiteral("dir_path"),
                                         QStringLiteral("workdir"),
                                         QStringLiteral("directory"),
                                         QStringLiteral("file_path"),
                                         QStringLiteral("path"),
                                         QStringLiteral("content"),
                                         QStringLiteral("old_string"),
                                         QStringLiteral("new_string"),
                                         QStringLiteral("replace_all"),
                                         QStringLiteral("expected_replacements"),
                                         QStringLiteral("edits"),
                                         QStringLiteral("patch"),
                                         QStringLiteral("input")};
    if (const Kind kind = kindOf(call.tool);
        input.is_object() && kind != Kind::Mcp && kind != Kind::Read && kind != Kind::Other) {
        json more = json::object();
        for (auto it = input.begin(); it != input.end(); ++it) {
            if (!consumed.contains(QString::fromStdString(it.key())))
                more[it.key()] = it.value();
        }
        if (!more.empty())
            args["more"] = std::move(more);
    }
    return Result<json>(std::move(args));
}

AgentTool::AgentTool(Kind kind, std::shared_ptr<const Workspace> workspace, QStringList countersignServers,
                     GateMode mode)
    : m_kind(kind), m_workspace(std::move(workspace)), m_countersignServers(std::move(countersignServers)),
      m_mode(mode)
{
}

CommandJudge AgentTool::judge() const
{
    return CommandJudge(m_workspace.get(), m_mode, QDir::homePath());
}

QStringList AgentTool::patchTargets(const QString &patch, const QString &cwd, bool *deletes)
{
    static const QRegularExpression file(
        QStringLiteral("^\\*\\*\\* (Add|Update|Delete) File: (.+)$|^\\*\\*\\* Move to: (.+)$"),
        QRegularExpression::MultilineOption);
    QStringList targets;
    *deletes = false;
    for (auto it = file.globalMatch(patch); it.hasNext();) {
        const auto m = it.next();
        if (m.captured(1) == QLatin1String("Delete"))
            *deletes = true;
        const QString path = (m.captured(2).isEmpty() ? m.captured(3) : m.captured(2)).trimmed();
        targets.append(absoluteIn(path, cwd));
    }
    return targets;
}

QString AgentTool::name() const
{
    return QStringLiteral("agent:") + QLatin1String(kindName(m_kind));
}

json AgentTool::descriptor() const
{
    return {{"name", name().toStdString()},
            {"description", "An agent's own tool, through its pre-tool hook"},
            {"inputSchema", {{"type", "object"}}},
            {"annotations",
             {{"readOnlyHint", m_kind == Kind::Read},
              {"destructiveHint", m_kind != Kind::Read},
              {"idempotentHint", false}}}};
}

PathSpellings AgentTool::pathSpellings(const json &arguments) const
{
    if (m_kind != Kind::Write && m_kind != Kind::Edit)
        return {};
    const QString path = QString::fromStdString(arguments.value("path", std::string()));
    if (path.isEmpty())
        return {};
    // Where it leads, links followed; none (no allow rule matches) when nothing of it exists.
    return {{QStringLiteral("path"), Workspace::spellings(m_workspace.get(), path)}};
}

QStringList AgentTool::targetsOf(const json &arguments) const
{
    const auto text = [&arguments](const char *key) {
        return QString::fromStdString(arguments.value(key, ""));
    };
    switch (m_kind) {
    case Kind::Shell:
        return {shortened(text("command"), 400)};
    case Kind::Write:
    case Kind::Edit:
        return {text("path")};
    case Kind::Patch: {
        bool deletes = false;
        return patchTargets(text("patch"), text("cwd"), &deletes);
    }
    case Kind::Mcp:
        return {QStringLiteral("%1: %2").arg(text("server"), text("name"))};
    case Kind::Read: {
        // Every path it names (a decoy key beside the real one is named too), and its pattern.
        const json input = arguments.value("input", json::object());
        QStringList named;
        if (!input.is_object())
            return named;
        for (const char *key :
             {"file_path", "path", "absolute_path", "dir_path", "directory", "notebook_path", "pattern"}) {
            if (const auto it = input.find(key); it != input.end() && it->is_string())
                named.append(QString::fromStdString(it->get<std::string>()));
        }
        if (const auto it = input.find("paths"); it != input.end() && it->is_array()) {
            for (const json &p : *it) {
                if (p.is_string() && named.size() < 50)
                    named.append(QString::fromStdString(p.get<std::string>()));
            }
        }
        return named;
    }
    case Kind::Other:
        break;
    }
    return {};
}

Verdict AgentTool::defaultVerdict(const json &arguments) const
{
    return byDefault(arguments).verdict;
}

GatedAction::Default AgentTool::byDefault(const json &arguments) const
{
    const QString cwd = QString::fromStdString(arguments.value("cwd", ""));
    const auto judged = [](const CommandJudge::Judgement &j) { return Default{j.verdict, j.why}; };
    switch (m_kind) {
    case Kind::Mcp:
        if (m_countersignServers.contains(QString::fromStdString(arguments.value("server", ""))))
            return {Verdict::Allow, QStringLiteral("this console's own MCP server, gated as MCP calls")};
        return {Verdict::Ask, QStringLiteral("another MCP server's tool")};
    case Kind::Shell: {
        if (cwd.isEmpty() || !FilePath::isAbsolute(cwd))
            return {Verdict::Ask, QStringLiteral("the command's folder is not known")};
        return judged(judge().line(QString::fromStdString(arguments.value("command", "")), cwd));
    }
    case Kind::Read: {
        // The file or folder it reads (Claude Code's file_path and path, Gemini CLI's absolute_path,
        // dir_path and paths), or the folder it runs in.
        const json &input = arguments.value("input", json::object());
        QStringList paths;
        if (input.is_object()) {
            for (const char *key :
                 {"file_path", "absolute_path", "path", "dir_path", "directory", "notebook_path"}) {
                if (const auto it = input.find(key); it != input.end() && it->is_string() && !it->empty())
                    paths.append(absoluteIn(QString::fromStdString(it->get<std::string>()), cwd));
            }
            if (const auto it = input.find("paths"); it != input.end()) {
                if (!it->is_array())
                    return {Verdict::Ask, QStringLiteral("paths is not a list")};
                for (const json &p : *it) {
                    if (!p.is_string())
                        return {Verdict::Ask, QStringLiteral("paths holds something that is not a path")};
                    const QString path = QString::fromStdString(p.get<std::string>());
                    paths.append(absoluteIn(path, cwd));
                }
            }
        } else {
            return {Verdict::Ask, QStringLiteral("the tool's input is not an object")};
        }
        if (paths.isEmpty())
            paths.append(cwd);
        const CommandJudge j = judge();
        for (const QString &path : paths) {
            if (path.isEmpty() || !FilePath::isAbsolute(path))
                return {Verdict::Ask, QStringLiteral("reads a path whose folder is not known")};
            const CommandJudge::Judgement read = j.read(path);
            if (read.verdict != Verdict::Allow)
                return judged(read);
        }
        return {Verdict::Allow, QStringLiteral("reads only")};
    }
    case Kind::Write:
    case Kind::Edit: {
        const QString path = QString::fromStdString(arguments.value("path", std::string()));
        if (path.isEmpty() || !FilePath::isAbsolute(path))
            return {Verdict::Ask, QStringLiteral("writes a file whose folder is not known")};
        const Default written = judged(judge().write(path));
        if (written.verdict == Verdict::Allow) {
            if (const QString why = unkeepable(path); !why.isEmpty())
                return {Verdict::Ask, why};
        }
        return written;
    }
    case Kind::Patch: {
        bool deletes = false;
        const QStringList targets =
            patchTargets(QString::fromStdString(arguments.value("patch", std::string())), cwd, &deletes);
        if (deletes)
            return {Verdict::Ask, QStringLiteral("the patch deletes a file")};
        if (targets.isEmpty())
            return {Verdict::Ask, QStringLiteral("the patch names no file Countersign can read")};
        const CommandJudge j = judge();
        for (const QString &path : targets) {
            if (path.isEmpty() || !FilePath::isAbsolute(path))
                return {Verdict::Ask, QStringLiteral("the patch writes a file whose folder is not known")};
            const CommandJudge::Judgement write = j.write(path);
            if (write.verdict != Verdict::Allow)
                return judged(write);
            if (const QString why = unkeepable(path); !why.isEmpty())
                return {Verdict::Ask, why};
        }
        return {Verdict::Allow, QStringLiteral("the patch writes inside the workspace roots")};
    }
    case Kind::Other:
        break;
    }
    return {Verdict::Ask, QStringLiteral("a tool Countersign does not know")};
}

QStringList AgentTool::reaches(const json &arguments) const
{
    QStringList paths;
    if (m_kind == Kind::Shell) {
        const QString cwd = QString::fromStdString(arguments.value("cwd", ""));
        if (!FilePath::isAbsolute(cwd))
            return {};
        const CommandJudge::Judgement judged =
            judge().line(QString::fromStdString(arguments.value("command", "")), cwd);
        if (judged.destructive)
            paths = judged.targets;
    } else if (m_kind == Kind::Write || m_kind == Kind::Edit || m_kind == Kind::Patch) {
        paths = writtenPaths(arguments);
    }
    // A whole root (a reset of the work tree, a clean of the folder) names no narrower intent than
    // working there: what comes after it is not "the same again".
    if (m_workspace)
        paths.removeIf(
            [this](const QString &p) { return m_workspace->roots().contains(QDir::cleanPath(p)); });
    return paths;
}

QStringList AgentTool::writtenPaths(const json &arguments) const
{
    switch (m_kind) {
    case Kind::Shell: {
        const QString cwd = QString::fromStdString(arguments.value("cwd", ""));
        if (!FilePath::isAbsolute(cwd))
            return {};
        const QString command = QString::fromStdString(arguments.value("command", ""));
        // Measured as its card measured it: the writes the card asks about included (judged
        // again only for a line that writes: most quiet commands do not).
        const QList<Shell::Effect> effects = Shell::CommandEffects::ofLine(command, {cwd, QDir::homePath()});
        const bool writes = std::any_of(effects.cbegin(), effects.cend(), [](const Shell::Effect &e) {
            return e.kind == Shell::Effect::Kind::Writes;
        });
        const BlastRadius radius = BlastRadius::of(
            effects, QDir::homePath(), writes ? judge().line(command, cwd).targets : QStringList());
        return UndoPlan::ofRadius(radius, m_workspace.get()).files;
    }
    case Kind::Write:
    case Kind::Edit: {
        const QString path = QString::fromStdString(arguments.value("path", std::string()));
        return FilePath::isAbsolute(path) ? QStringList{QDir::cleanPath(path)} : QStringList();
    }
    case Kind::Patch: {
        bool deletes = false;
        QStringList paths;
        for (const QString &path :
             patchTargets(QString::fromStdString(arguments.value("patch", std::string())),
                          QString::fromStdString(arguments.value("cwd", "")), &deletes)) {
            if (FilePath::isAbsolute(path))
                paths.append(QDir::cleanPath(path));
        }
        return paths;
    }
    default:
        return {};
    }
}

void AgentTool::apply(const json &arguments, ApplyDone done)
{
    Q_UNUSED(arguments)
    done({{"content",
           json::array({{{"type", "text"}, {"text", "Allowed: the agent runs it with its own tool."}}})}});
}

} // namespace Countersign
