#include "workspacetools.h"

#include "commandrunner.h"
#include "gatedtool.h"
#include "git.h"
#include "pathtools.h"
#include "runcommand.h"
#include "tool.h"
#include "toolregistry.h"
#include "workspaceaction.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QSaveFile>

namespace Countersign {

namespace {

using json = nlohmann::json;
using WorkspaceArgs::descriptor;
using WorkspaceArgs::shown;
using WorkspaceArgs::str;

constexpr qsizetype kMaxEditBytes = 4 * 1024 * 1024; // files over this are refused for edit and write
constexpr qsizetype kMaxReadBytes = 1024 * 1024;     // read_file returns at most this much

Result<QByteArray> readLimited(const QString &path, qsizetype limit)
{
    QFile f(path);
    if (!QFileInfo(path).isFile())
        return failure(QStringLiteral("%1 is not a file").arg(path));
    if (f.size() > limit)
        return failure(
            QStringLiteral("%1 is %2 bytes, over the %3-byte limit").arg(path).arg(f.size()).arg(limit));
    if (!f.open(QIODevice::ReadOnly))
        return failure(QStringLiteral("cannot read %1: %2").arg(path, f.errorString()));
    return f.readAll();
}

std::pair<int, int> lineCounts(const QString &diff)
{
    int added = 0, removed = 0;
    for (const QStringView line : QStringView(diff).split(QLatin1Char('\n'))) {
        if (line.startsWith(QLatin1String("+++")) || line.startsWith(QLatin1String("---")))
            continue;
        if (line.startsWith(QLatin1Char('+')))
            ++added;
        else if (line.startsWith(QLatin1Char('-')))
            ++removed;
    }
    return {added, removed};
}

Status writeAtomically(const QString &path, const QByteArray &bytes)
{
    QSaveFile f(path);
    if (QFileInfo::exists(path))
        f.setDirectWriteFallback(false);
    if (!f.open(QIODevice::WriteOnly) || f.write(bytes) != bytes.size() || !f.commit())
        return failure(QStringLiteral("cannot write %1: %2").arg(path, f.errorString()));
    return success();
}

// ---- read_file, list_directory: allowed by default ------------------------------------------------

// Their plan, for when a rule makes them ask: the path, nothing changes.
Result<Plan> readOnlyPlan(const Workspace &ws, const json &args, const QString &verb)
{
    auto path = ws.resolve(str(args, "path"), Workspace::Must::Exist);
    if (!path)
        return failure(path.error());
    Plan p;
    p.title = QStringLiteral("%1 %2").arg(verb, shown(ws, path.value()));
    p.prompt = p.title + QLatin1Char('?');
    p.targets = {shown(ws, path.value())}; // what the human types to confirm
    p.blastRadius = {{"bytes", QFileInfo(path.value()).size()}, {"irreversible", false}};
    p.risk = Risk::Low;
    return p;
}

class ReadFile final : public WorkspaceAction
{
public:
    using WorkspaceAction::WorkspaceAction;
    QString name() const override { return QStringLiteral("read_file"); }
    json descriptor() const override
    {
        static const json kDescriptor = WorkspaceArgs::descriptor(
            "read_file", "Read a file", "Reads a text file inside the workspace roots.",
            {{"path", {{"type", "string"}}}}, {"path"}, true, false);
        return kDescriptor;
    }
    Verdict defaultVerdict(const json &) const override { return Verdict::Allow; }
    Result<Plan> planNow(const json &args) const override
    {
        return readOnlyPlan(m_ws, args, QStringLiteral("Read"));
    }
    json applyNow(const json &args) const override
    {
        auto path = m_ws.resolve(str(args, "path"), Workspace::Must::Exist);
        if (!path)
            return textResult(path.error(), true);
        QFile f(path.value());
        if (!QFileInfo(path.value()).isFile() || !f.open(QIODevice::ReadOnly))
            return textResult(QStringLiteral("cannot read %1").arg(str(args, "path")), true);
        const QByteArray bytes = f.read(kMaxReadBytes);
        if (Git::looksBinary(bytes))
            return textResult(QStringLiteral("binary, %1 bytes").arg(f.size()));
        QString text = QString::fromUtf8(bytes);
        if (f.size() > kMaxReadBytes)
            text += QStringLiteral("\n(truncated: the file is %1 bytes)").arg(f.size());
        return textResult(text);
    }
};

class ListDirectory final : public WorkspaceAction
{
public:
    using WorkspaceAction::WorkspaceAction;
    QString name() const override { return QStringLiteral("list_directory"); }
    json descriptor() const override
    {
        static const json kDescriptor = WorkspaceArgs::descriptor(
            "list_directory", "List a folder", "Lists a folder inside the workspace roots.",
            {{"path", {{"type", "string"}}}}, {"path"}, true, false);
        return kDescriptor;
    }
    Verdict defaultVerdict(const json &) const override { return Verdict::Allow; }
    Result<Plan> planNow(const json &args) const override
    {
        return readOnlyPlan(m_ws, args, QStringLiteral("List"));
    }
    json applyNow(const json &args) const override
    {
        auto path = m_ws.resolve(str(args, "path"), Workspace::Must::Exist);
        if (!path)
            return textResult(path.error(), true);
        if (!QFileInfo(path.value()).isDir())
            return textResult(QStringLiteral("%1 is not a folder").arg(str(args, "path")), true);
        QStringList lines;
        const auto entries =
            QDir(path.value())
                .entryInfoList(QDir::AllEntries | QDir::Hidden | QDir::System | QDir::NoDotAndDotDot,
                               QDir::Name | QDir::DirsFirst);
        for (const QFileInfo &e : entries) {
            if (lines.size() >= kMaxListed) {
                lines.append(QStringLiteral("… and %1 more").arg(entries.size() - kMaxListed));
                break;
            }
            lines.append(e.isDir() && !e.isSymLink()
                             ? e.fileName() + QLatin1Char('/')
                             : QStringLiteral("%1  %2 bytes").arg(e.fileName()).arg(e.size()));
        }
        return textResult(lines.isEmpty() ? QStringLiteral("(empty)") : lines.join(QLatin1Char('\n')));
    }
};

// ---- write_file, edit_file: the plan is the diff ---------------------------------------------------

Result<Plan> diffPlan(const Workspace &ws, const QString &resolved, const QByteArray &before, bool existed,
                      const QByteArray &after, const QString &verb, const QStringList &newFolders = {})
{
    Plan p;
    const QString rel = shown(ws, resolved);
    p.title = QStringLiteral("%1 %2").arg(verb, rel);
    p.targets = {rel};
    if (Git::looksBinary(before) || Git::looksBinary(after)) {
        p.diff = QStringLiteral("binary, %1 bytes → %2 bytes").arg(before.size()).arg(after.size());
    } else {
        p.diff = Git::unifiedDiff(rel, existed ? before : QByteArray(), after);
    }
    const auto [added, removed] = lineCounts(p.diff);
    p.summary = existed ? QStringLiteral("%1 lines added, %2 removed").arg(added).arg(removed)
                        : QStringLiteral("new file, %1 lines").arg(added);
    if (!newFolders.isEmpty()) {
        QStringList shownFolders;
        for (const QString &folder : newFolders)
            shownFolders << shown(ws, folder);
        p.summary +=
            newFolders.size() == 1
                ? QStringLiteral("; creates the folder %1").arg(shownFolders.first())
                : QStringLiteral("; creates the folders %1").arg(shownFolders.join(QStringLiteral(", ")));
    }
    p.prompt = QStringLiteral("%1? (%2)").arg(p.title, p.summary);
    const auto lost = existed ? Git::lossReport({resolved}) : Git::LossReport{};
    const bool unrecoverable = existed && lost.unrecoverable();
    p.blastRadius = {{"files", 1},
                     {"linesAdded", added},
                     {"linesRemoved", removed},
                     {"bytes", after.size()},
                     {"newFile", !existed},
                     {"newFolders", newFolders.size()},
                     {"irreversible", unrecoverable}};
    p.risk = !existed ? Risk::Low : unrecoverable ? Risk::High : Risk::Medium;
    return p;
}

class WriteFile final : public WorkspaceAction
{
public:
    using WorkspaceAction::WorkspaceAction;
    QString name() const override { return QStringLiteral("write_file"); }
    json descriptor() const override
    {
        static const json kDescriptor =
            WorkspaceArgs::descriptor("write_file", "Write a file",
                                      "Creates or replaces a file inside the workspace roots, creating the "
                                      "folders it needs.",
                                      {{"path", {{"type", "string"}}}, {"content", {{"type", "string"}}}},
                                      {"path", "content"}, false, true);
        return kDescriptor;
    }
    Result<Plan> planNow(const json &args) const override
    {
        auto path = m_ws.resolve(str(args, "path"), Workspace::Must::MayBeNewWithFolders);
        if (!path)
            return failure(path.error());
        const QByteArray after = str(args, "content").toUtf8();
        if (after.size() > kMaxEditBytes)
            return failure(QStringLiteral("the content is over the %1-byte limit").arg(kMaxEditBytes));
        const bool existed = QFileInfo::exists(path.value());
        QByteArray before;
        if (existed) {
            auto read = readLimited(path.value(), kMaxEditBytes);
            if (!read)
                return failure(read.error());
            before = read.value();
        }
        return diffPlan(m_ws, path.value(), before, existed, after,
                        existed ? QStringLiteral("Overwrite") : QStringLiteral("Create"),
                        Workspace::missingFolders(path.value()));
    }
    json applyNow(const json &args) const override
    {
        // Resolved again: a folder that became a link out of the roots since the plan is refused.
        auto path = m_ws.resolve(str(args, "path"), Workspace::Must::MayBeNewWithFolders);
        if (!path)
            return textResult(path.error(), true);
        if (const QString folder = QFileInfo(path.value()).absolutePath(); !QDir().mkpath(folder))
            return textResult(QStringLiteral("cannot create the folder %1").arg(folder), true);
        if (auto w = writeAtomically(path.value(), str(args, "content").toUtf8()); !w)
            return textResult(w.error(), true);
        return textResult(QStringLiteral("wrote %1").arg(str(args, "path")));
    }
    QStringList changedFiles(const json &args) const override
    {
        auto path = m_ws.resolve(str(args, "path"), Workspace::Must::MayBeNewWithFolders);
        return path ? QStringList{path.value()} : QStringList();
    }
};

// Applies the edits in order; each oldText must match exactly once in the text as it is then.
Result<QString> applyEdits(QString text, const json &edits)
{
    int n = 0;
    for (const json &edit : edits) {
        ++n;
        const QString oldText = QString::fromStdString(edit.value("oldText", std::string()));
        const QString newText = QString::fromStdString(edit.value("newText", std::string()));
        if (oldText.isEmpty())
            return failure(QStringLiteral("edit %1: oldText is empty").arg(n));
        const qsizetype count = text.count(oldText);
        if (count != 1)
            return failure(QStringLiteral("edit %1: oldText matches %2 times; it must match exactly once")
                               .arg(n)
                               .arg(count));
        text.replace(text.indexOf(oldText), oldText.size(), newText);
    }
    return text;
}

class EditFile final : public WorkspaceAction
{
public:
    using WorkspaceAction::WorkspaceAction;
    QString name() const override { return QStringLiteral("edit_file"); }
    json descriptor() const override
    {
        static const json edit = {
            {"type", "object"},
            {"properties", {{"oldText", {{"type", "string"}}}, {"newText", {{"type", "string"}}}}},
            {"required", {"oldText", "newText"}},
            {"additionalProperties", false}};
        static const json kDescriptor = WorkspaceArgs::descriptor(
            "edit_file", "Edit a file", "Replaces text in a file; each oldText must occur exactly once.",
            {{"path", {{"type", "string"}}},
             {"edits", {{"type", "array"}, {"items", edit}, {"minItems", 1}}}},
            {"path", "edits"}, false, true);
        return kDescriptor;
    }
    Result<QByteArray> edited(const json &args, QString *resolved, QByteArray *before) const
    {
        auto path = m_ws.resolve(str(args, "path"), Workspace::Must::Exist);
        if (!path)
            return failure(path.error());
        auto read = readLimited(path.value(), kMaxEditBytes);
        if (!read)
            return failure(read.error());
        if (Git::looksBinary(read.value()))
            return failure(QStringLiteral("%1 is binary (%2 bytes); edit_file changes text files only")
                               .arg(str(args, "path"))
                               .arg(read.value().size()));
        auto text = applyEdits(QString::fromUtf8(read.value()), args.value("edits", json::array()));
        if (!text)
            return failure(text.error());
        *resolved = path.value();
        *before = read.value();
        return text.value().toUtf8();
    }
    Result<Plan> planNow(const json &args) const override
    {
        QString resolved;
        QByteArray before;
        auto after = edited(args, &resolved, &before);
        if (!after)
            return failure(after.error());
        return diffPlan(m_ws, resolved, before, true, after.value(), QStringLiteral("Edit"));
    }
    json applyNow(const json &args) const override
    {
        QString resolved;
        QByteArray before;
        auto after = edited(args, &resolved, &before);
        if (!after)
            return textResult(after.error(), true);
        if (auto w = writeAtomically(resolved, after.value()); !w)
            return textResult(w.error(), true);
        return textResult(QStringLiteral("edited %1").arg(str(args, "path")));
    }
    QStringList changedFiles(const json &args) const override
    {
        auto path = m_ws.resolve(str(args, "path"), Workspace::Must::Exist);
        return path ? QStringList{path.value()} : QStringList();
    }
};

} // namespace

void WorkspaceTools::addTo(ToolRegistry &registry, const std::shared_ptr<const Workspace> &workspace,
                           CommandRunner &runner, Gate &gate, const std::shared_ptr<SnapshotStore> &snapshots)
{
    registry.add(std::make_unique<GatedTool>(std::make_shared<ReadFile>(workspace, nullptr), gate));
    registry.add(std::make_unique<GatedTool>(std::make_shared<ListDirectory>(workspace, nullptr), gate));
    registry.add(std::make_unique<GatedTool>(std::make_shared<WriteFile>(workspace, snapshots), gate));
    registry.add(std::make_unique<GatedTool>(std::make_shared<EditFile>(workspace, snapshots), gate));
    registry.add(std::make_unique<GatedTool>(PathTools::deletePath(workspace, snapshots), gate));
    registry.add(std::make_unique<GatedTool>(PathTools::movePath(workspace, snapshots), gate));
    registry.add(
        std::make_unique<GatedTool>(std::make_shared<RunCommand>(workspace, runner, snapshots), gate));
}

} // namespace Countersign
