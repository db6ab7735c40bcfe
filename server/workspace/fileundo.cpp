#include "fileundo.h"

#include "auditstore.h"
#include "git.h"

#include <QFile>
#include <QRandomGenerator>
#include <QScopeGuard>

#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

namespace Countersign {

using json = nlohmann::json;

namespace {

QString digestOf(const json &value)
{
    return value.is_string() ? QString::fromStdString(value.get<std::string>()) : QString();
}

// One entry of an undo list, checked: a path and two digests, each a string or null.
struct Entry final
{
    QString path;
    QString before; // empty: the file did not exist
    QString after;  // empty: the change left no file
    int mode = -1;  // the permissions before (-1: not recorded)
};

std::optional<Entry> entryOf(const json &item)
{
    if (!item.is_object() || !item.value("path", json()).is_string())
        return std::nullopt;
    const json before = item.value("before", json());
    const json after = item.value("after", json());
    if ((!before.is_null() && !before.is_string()) || (!after.is_null() && !after.is_string()))
        return std::nullopt;
    const json mode = item.value("mode", json());
    return Entry{
        QString::fromStdString(item.at("path").get<std::string>()), digestOf(before), digestOf(after),
        mode.is_number_integer() && mode.get<int>() >= 0 && mode.get<int>() <= 07777 ? mode.get<int>() : -1};
}

QString describe(const SnapshotStore::FileNow &now)
{
    return now.exists ? QStringLiteral("%1 bytes, SHA-256 %2").arg(now.bytes.size()).arg(now.sha256.left(12))
                      : QStringLiteral("no file");
}

} // namespace

FileUndo::FileUndo(AuditStore &store, SnapshotStore &snapshots) : m_store(store), m_snapshots(snapshots) {}

json FileUndo::record(const QList<SnapshotStore::Kept> &kept)
{
    json list = json::array();
    for (const SnapshotStore::Kept &k : kept) {
        const auto now = SnapshotStore::read(k.path);
        json after = nullptr;
        if (now && now.value().exists)
            after = now.value().sha256.toStdString();
        else if (!now)
            after = "unreadable"; // never matches a digest: the revert is refused, never guessed
        json item = {{"path", k.path.toStdString()},
                     {"before", k.existed ? json(k.sha256.toStdString()) : json(nullptr)},
                     {"after", after}};
        if (k.existed && k.mode >= 0)
            item["mode"] = k.mode;
        list.push_back(std::move(item));
    }
    return list;
}

Result<json> FileUndo::undoList(const QString &nonce)
{
    // An agent's own tool reports its run through its hook; Countersign's own tools record what
    // they kept as they run.
    for (const QString &event : {QStringLiteral("agent-tool-ran"), QStringLiteral("tool-undo-kept")}) {
        auto ran = m_store.eventsOf(nonce, event);
        if (!ran)
            return failure(ran.error());
        for (auto it = ran.value().crbegin(); it != ran.value().crend(); ++it) {
            const json undo = it->value("undo", json());
            if (undo.is_array() && !undo.empty())
                return undo;
        }
    }
    return json();
}

Result<bool> FileUndo::hasUndo(const QString &nonce)
{
    auto list = undoList(nonce);
    if (!list)
        return failure(list.error());
    return !list.value().is_null();
}

Result<UndoPreview> FileUndo::preview(const QString &nonce)
{
    auto list = undoList(nonce);
    if (!list)
        return failure(list.error());
    if (list.value().is_null())
        return failure(
            QStringLiteral("%1 kept nothing to undo: an agent's write, edit or patch that ran with no "
                           "card, and a command that deletes or discards files whose card said so, keep "
                           "the files' previous content")
                .arg(nonce));
    UndoPreview preview;
    preview.nonce = nonce;
    auto reverted = m_store.eventsOf(nonce, QStringLiteral("agent-tool-reverted"));
    if (!reverted)
        return failure(reverted.error());
    if (!reverted.value().isEmpty())
        preview.refusal =
            QStringLiteral("it was reverted already, by %1")
                .arg(QString::fromStdString(reverted.value().last().value("by", std::string("?"))));
    for (const json &item : list.value()) {
        const auto entry = entryOf(item);
        if (!entry)
            return failure(QStringLiteral("the undo record of %1 is not readable").arg(nonce));
        preview.files.append(entry->path);
        const auto now = SnapshotStore::read(entry->path);
        if (!now) {
            if (preview.refusal.isEmpty())
                preview.refusal = now.error();
            continue;
        }
        const bool asLeft = entry->after.isEmpty() ? !now.value().exists
                                                   : now.value().exists && now.value().sha256 == entry->after;
        if (!asLeft && preview.refusal.isEmpty())
            preview.refusal =
                QStringLiteral(
                    "%1 changed since the agent's change: it now holds %2, not what the change left (%3)")
                    .arg(entry->path, describe(now.value()),
                         entry->after.isEmpty() ? QStringLiteral("no file")
                                                : QStringLiteral("SHA-256 %1").arg(entry->after.left(12)));
        QByteArray previous;
        if (!entry->before.isEmpty()) {
            auto kept = m_snapshots.content(entry->before);
            if (!kept) {
                if (preview.refusal.isEmpty())
                    preview.refusal = QStringLiteral("%1: %2").arg(entry->path, kept.error());
                continue;
            }
            previous = kept.value();
            if (previous.isNull())
                previous = QByteArray(""); // an empty file, not an absent one
        }
        preview.diff +=
            Git::unifiedDiff(entry->path, now.value().exists ? now.value().bytes : QByteArray(), previous);
    }
    return preview;
}

Result<QString> FileUndo::revert(const QString &nonce, const QString &by)
{
    auto checked = preview(nonce);
    if (!checked)
        return failure(checked.error());
    if (!checked.value().refusal.isEmpty())
        return failure(QStringLiteral("Nothing was reverted: %1.").arg(checked.value().refusal));
    auto list = undoList(nonce);
    if (!list)
        return failure(list.error());
    json restored = json::array();
    const auto stop = [&restored](const QString &why) {
        return failure(
            QStringLiteral("%1; %2 file(s) were restored before it").arg(why).arg(restored.size()));
    };
    for (const json &item : list.value()) {
        const auto entry = entryOf(item);
        if (!entry)
            return stop(QStringLiteral("the undo record of %1 is not readable").arg(nonce));
        // Everything below goes through this folder, opened without following a link: a folder
        // swapped for a link since the preview is refused, and one swapped after this open is not
        // where anything is written.
        QByteArray leaf;
        // A deletion's revert makes the folders it deleted again (a file the agent created goes
        // only where its folder still is).
        const int dir = SnapshotStore::openFolderOf(
            entry->path, &leaf,
            entry->before.isEmpty() ? SnapshotStore::Folders::MustExist : SnapshotStore::Folders::Make);
        if (dir < 0 && errno == ENOENT && entry->before.isEmpty()) { // nothing there to delete
            restored.push_back({{"path", entry->path.toStdString()}, {"restored", nullptr}});
            continue;
        }
        if (dir < 0)
            return stop(QStringLiteral("%1 cannot be reached without following a link (%2)")
                            .arg(entry->path, QString::fromLocal8Bit(std::strerror(errno))));
        const auto closeDir = qScopeGuard([dir] { ::close(dir); });
        auto now = SnapshotStore::readAt(dir, leaf);
        if (!now)
            return stop(QStringLiteral("%1: %2").arg(entry->path, now.error()));
        const bool asLeft = entry->after.isEmpty() ? !now.value().exists
                                                   : now.value().exists && now.value().sha256 == entry->after;
        if (!asLeft)
            return stop(QStringLiteral("%1 changed while it was being reverted").arg(entry->path));
        if (entry->before.isEmpty()) {
            if (now.value().exists && ::unlinkat(dir, leaf.constData(), 0) != 0)
                return stop(QStringLiteral("%1 could not be deleted").arg(entry->path));
        } else {
            auto bytes = m_snapshots.content(entry->before);
            if (!bytes)
                return stop(bytes.error());
            // Its permissions as they were (the mode is recorded in the chain, and the setuid,
            // setgid and sticky bits are never set back).
            const int mode = entry->mode >= 0     ? (entry->mode & 0777)
                             : now.value().exists ? now.value().mode
                                                  : 0600;
            if (auto written = SnapshotStore::replaceAt(dir, leaf, bytes.value(), mode); !written)
                return stop(QStringLiteral("%1 could not be written (%2)").arg(entry->path, written.error()));
        }
        restored.push_back(
            {{"path", entry->path.toStdString()},
             {"restored", entry->before.isEmpty() ? json(nullptr) : json(entry->before.toStdString())}});
    }
    if (auto recorded = m_store.recordEvent(QStringLiteral("agent-tool-reverted"), nonce,
                                            {{"by", by.toStdString()}, {"files", restored}});
        !recorded)
        return failure(QStringLiteral("the files were restored, but the revert could not be recorded: %1")
                           .arg(recorded.error()));
    return QStringLiteral("Reverted %1: %2")
        .arg(restored.size() == 1 ? QStringLiteral("1 file")
                                  : QStringLiteral("%1 files").arg(restored.size()),
             checked.value().files.join(QStringLiteral(", ")));
}

} // namespace Countersign
