#include "fileundo.h"

#include "auditstore.h"
#include "git.h"

#include <QFile>
#include <QHash>
#include <QRandomGenerator>
#include <QScopeGuard>

#include <algorithm>

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

} // namespace

// One entry of an undo list, checked: a path and two digests, each a string or null.
struct FileUndo::Entry final
{
    QString path;
    QString before; // empty: the file did not exist
    QString after;  // empty: the change left no file
    int mode = -1;  // the permissions before (-1: not recorded)
};

namespace {

std::optional<FileUndo::Entry> entryOf(const json &item)
{
    if (!item.is_object() || !item.value("path", json()).is_string())
        return std::nullopt;
    const json before = item.value("before", json());
    const json after = item.value("after", json());
    if ((!before.is_null() && !before.is_string()) || (!after.is_null() && !after.is_string()))
        return std::nullopt;
    const json mode = item.value("mode", json());
    return FileUndo::Entry{
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

Result<QList<FileUndo::Entry>> FileUndo::entriesOf(const QStringList &nonces, QString *refusal)
{
    // Each file once: what it held before the first change, what the last one left. A later
    // change that did not start from what the one before left (someone else changed the file in
    // between) would throw that work away: refused.
    QList<Entry> merged;
    for (const QString &nonce : nonces) {
        auto list = undoList(nonce);
        if (!list)
            return failure(list.error());
        if (list.value().is_null())
            return failure(
                QStringLiteral("%1 kept nothing to undo: an agent's write, edit or patch that ran with no "
                               "card, a shell command the net recorded, and a command that deletes or "
                               "discards files whose card said so, keep the files' previous content")
                    .arg(nonce));
        auto reverted = m_store.eventsOf(nonce, QStringLiteral("agent-tool-reverted"));
        if (!reverted)
            return failure(reverted.error());
        if (!reverted.value().isEmpty() && refusal->isEmpty())
            *refusal =
                QStringLiteral("%1 was reverted already, by %2")
                    .arg(nonces.size() == 1 ? QStringLiteral("it") : nonce,
                         QString::fromStdString(reverted.value().last().value("by", std::string("?"))));
        for (const json &item : list.value()) {
            const auto entry = entryOf(item);
            if (!entry)
                return failure(QStringLiteral("the undo record of %1 is not readable").arg(nonce));
            const auto same = std::find_if(merged.begin(), merged.end(),
                                           [&](const Entry &e) { return e.path == entry->path; });
            if (same == merged.end()) {
                merged.append(*entry);
                continue;
            }
            // Calls that overlapped share one record: both start from the same state.
            if (same->after != entry->before && same->before != entry->before && refusal->isEmpty())
                *refusal = QStringLiteral("%1 changed between the calls (not by them)").arg(entry->path);
            same->after = entry->after;
        }
    }
    return merged;
}

Result<UndoPreview> FileUndo::preview(const QString &nonce)
{
    return previewTurn({nonce});
}

Result<UndoPreview> FileUndo::previewTurn(const QStringList &nonces)
{
    if (nonces.isEmpty())
        return failure(QStringLiteral("no operation to undo"));
    QString refusal;
    auto entries = entriesOf(nonces, &refusal);
    if (!entries)
        return failure(entries.error());
    return previewOf(nonces, entries.value(), refusal, nullptr);
}

UndoPreview FileUndo::previewOf(const QStringList &nonces, const QList<Entry> &entries,
                                const QString &refusal, QHash<QString, QByteArray> *previousBytes)
{
    UndoPreview preview;
    preview.nonce = nonces.first();
    preview.nonces = nonces;
    preview.refusal = refusal;
    for (const Entry &entry : entries) {
        preview.files.append(entry.path);
        const auto now = SnapshotStore::read(entry.path);
        if (!now) {
            if (preview.refusal.isEmpty())
                preview.refusal = now.error();
            continue;
        }
        const bool asLeft = entry.after.isEmpty() ? !now.value().exists
                                                  : now.value().exists && now.value().sha256 == entry.after;
        if (!asLeft && preview.refusal.isEmpty())
            preview.refusal =
                QStringLiteral(
                    "%1 changed since the agent's change: it now holds %2, not what the change left (%3)")
                    .arg(entry.path, describe(now.value()),
                         entry.after.isEmpty() ? QStringLiteral("no file")
                                               : QStringLiteral("SHA-256 %1").arg(entry.after.left(12)));
        QByteArray previous;
        if (!entry.before.isEmpty()) {
            auto kept = m_snapshots.content(entry.before);
            if (!kept) {
                if (preview.refusal.isEmpty())
                    preview.refusal = QStringLiteral("%1: %2").arg(entry.path, kept.error());
                continue;
            }
            previous = kept.value();
            if (previous.isNull())
                previous = QByteArray(""); // an empty file, not an absent one
            if (previousBytes)
                previousBytes->insert(entry.before, previous);
        }
        preview.diff +=
            Git::unifiedDiff(entry.path, now.value().exists ? now.value().bytes : QByteArray(), previous);
    }
    return preview;
}

Result<QString> FileUndo::revert(const QString &nonce, const QString &by)
{
    return revertTurn({nonce}, by);
}

Result<QString> FileUndo::revertTurn(const QStringList &nonces, const QString &by)
{
    if (nonces.isEmpty())
        return failure(QStringLiteral("no operation to undo"));
    QString refusal;
    auto entries = entriesOf(nonces, &refusal);
    if (!entries)
        return failure(entries.error());
    // The check, and what the files held before, read before anything is kept: keeping what they
    // hold now may make the store drop old copies, and the ones this revert restores must not be
    // among them.
    QHash<QString, QByteArray> previous;
    const UndoPreview checked = previewOf(nonces, entries.value(), refusal, &previous);
    if (!checked.refusal.isEmpty())
        return failure(QStringLiteral("Nothing was reverted: %1.").arg(checked.refusal));
    // What each file holds now is kept first, so that a revert loses nothing either (a change made
    // meanwhile by someone else, a file created while the call ran): the chain names it.
    json replaced = json::array();
    for (const Entry &entry : entries.value()) {
        auto kept = m_snapshots.keep(entry.path);
        if (!kept)
            return failure(
                QStringLiteral("Nothing was reverted: what %1 holds now cannot be kept first (%2).")
                    .arg(entry.path, kept.error()));
        if (kept.value().existed)
            replaced.push_back(
                {{"path", entry.path.toStdString()}, {"sha256", kept.value().sha256.toStdString()}});
    }
    json restored = json::array();
    const auto stop = [&restored](const QString &why) {
        return failure(
            QStringLiteral("%1; %2 file(s) were restored before it").arg(why).arg(restored.size()));
    };
    for (const Entry &entry : entries.value()) {
        // Everything below goes through this folder, opened without following a link: a folder
        // swapped for a link since the preview is refused, and one swapped after this open is not
        // where anything is written.
        QByteArray leaf;
        // A deletion's revert makes the folders it deleted again (a file the agent created goes
        // only where its folder still is).
        const int dir = SnapshotStore::openFolderOf(entry.path, &leaf,
                                                    entry.before.isEmpty() ? SnapshotStore::Folders::MustExist
                                                                           : SnapshotStore::Folders::Make);
        if (dir < 0 && errno == ENOENT && entry.before.isEmpty()) { // nothing there to delete
            restored.push_back({{"path", entry.path.toStdString()}, {"restored", nullptr}});
            continue;
        }
        if (dir < 0)
            return stop(QStringLiteral("%1 cannot be reached without following a link (%2)")
                            .arg(entry.path, QString::fromLocal8Bit(std::strerror(errno))));
        const auto closeDir = qScopeGuard([dir] { ::close(dir); });
        auto now = SnapshotStore::readAt(dir, leaf);
        if (!now)
            return stop(QStringLiteral("%1: %2").arg(entry.path, now.error()));
        const bool asLeft = entry.after.isEmpty() ? !now.value().exists
                                                  : now.value().exists && now.value().sha256 == entry.after;
        if (!asLeft)
            return stop(QStringLiteral("%1 changed while it was being reverted").arg(entry.path));
        if (entry.before.isEmpty()) {
            if (now.value().exists && ::unlinkat(dir, leaf.constData(), 0) != 0)
                return stop(QStringLiteral("%1 could not be deleted").arg(entry.path));
        } else {
            const QByteArray bytes = previous.value(entry.before);
            // Its permissions as they were (the mode is recorded in the chain, and the setuid,
            // setgid and sticky bits are never set back).
            const int mode = entry.mode >= 0      ? (entry.mode & 0777)
                             : now.value().exists ? now.value().mode
                                                  : 0600;
            if (auto written = SnapshotStore::replaceAt(dir, leaf, bytes, mode); !written)
                return stop(QStringLiteral("%1 could not be written (%2)").arg(entry.path, written.error()));
        }
        restored.push_back(
            {{"path", entry.path.toStdString()},
             {"restored", entry.before.isEmpty() ? json(nullptr) : json(entry.before.toStdString())}});
    }
    json turn = json::array();
    for (const QString &nonce : nonces)
        turn.push_back(nonce.toStdString());
    for (const QString &nonce : nonces) {
        json detail = {{"by", by.toStdString()}, {"files", restored}, {"replaced", replaced}};
        if (nonces.size() > 1)
            detail["turn"] = turn;
        if (auto recorded = m_store.recordEvent(QStringLiteral("agent-tool-reverted"), nonce, detail);
            !recorded)
            return failure(QStringLiteral("the files were restored, but the revert could not be recorded: %1")
                               .arg(recorded.error()));
    }
    return QStringLiteral("Reverted %1: %2")
        .arg(restored.size() == 1 ? QStringLiteral("1 file")
                                  : QStringLiteral("%1 files").arg(restored.size()),
             checked.files.join(QStringLiteral(", ")));
}

Result<bool> FileUndo::hasTurn(const QString &nonce)
{
    auto ran = m_store.eventsOf(nonce, QStringLiteral("agent-tool-ran"));
    if (!ran)
        return failure(ran.error());
    return std::any_of(ran.value().cbegin(), ran.value().cend(), [](const json &detail) {
        const json undo = detail.value("undo", json());
        return !detail.value("session", std::string()).empty() && undo.is_array() && !undo.empty();
    });
}

Result<QStringList> FileUndo::turnOf(const QString &nonce)
{
    auto rows = m_store.eventsSince(QStringLiteral("agent-tool-ran"), 0);
    if (!rows)
        return failure(rows.error());
    const auto mine = std::find_if(rows.value().cbegin(), rows.value().cend(),
                                   [&](const AuditChain::EventRow &r) { return r.nonce == nonce; });
    if (mine == rows.value().cend())
        return failure(QStringLiteral("%1 is not a call of an agent's own tool").arg(nonce));
    const std::string session = mine->detail.value("session", std::string());
    const std::string connection = mine->detail.value("connection", std::string());
    if (session.empty())
        return QStringList{nonce};
    // The session's calls on that connection, oldest first, cut into turns at each pause.
    QList<AuditChain::EventRow> calls;
    for (const AuditChain::EventRow &r : rows.value()) {
        if (r.detail.value("session", std::string()) == session &&
            r.detail.value("connection", std::string()) == connection)
            calls.append(r);
    }
    qsizetype at = 0;
    while (at < calls.size() && calls[at].nonce != nonce)
        ++at;
    qsizetype first = at;
    qsizetype last = at;
    // The pause between two calls: from the one's report to the other's start (a long build is
    // one call, not a pause).
    const auto pause = [&calls](qsizetype next) {
        const qint64 started = calls[next].detail.value("startedMs", calls[next].atMs);
        return started - calls[next - 1].atMs;
    };
    while (first > 0 && pause(first) <= kTurnPauseMs)
        --first;
    while (last + 1 < calls.size() && pause(last + 1) <= kTurnPauseMs)
        ++last;
    QStringList turn;
    for (qsizetype i = first; i <= last; ++i) {
        const json undo = calls[i].detail.value("undo", json());
        if (undo.is_array() && !undo.empty() && !turn.contains(calls[i].nonce))
            turn.append(calls[i].nonce);
    }
    if (turn.isEmpty())
        return failure(QStringLiteral("the turn of %1 changed nothing that can be undone").arg(nonce));
    return turn;
}

Result<QStringList> FileUndo::turnOfSession(const QString &session, qint64 sinceMs)
{
    auto rows = m_store.eventsSince(QStringLiteral("agent-tool-ran"), sinceMs);
    if (!rows)
        return failure(rows.error());
    QString last; // without a time: the session's last turn
    QStringList connections;
    for (const AuditChain::EventRow &r : rows.value()) {
        if (r.detail.value("session", std::string()) != session.toStdString())
            continue;
        last = r.nonce;
        const QString connection = QString::fromStdString(r.detail.value("connection", std::string()));
        if (!connections.contains(connection))
            connections << connection;
    }
    // A session id is the client's word: another connection could send the same one.
    if (connections.size() > 1)
        return failure(QStringLiteral("session \"%1\" has calls on several connections (%2): undo one "
                                      "operation's turn instead (undo OPERATION --turn)")
                           .arg(session.left(80), connections.join(QStringLiteral(", "))));
    if (last.isEmpty())
        return failure(QStringLiteral("no call of session \"%1\" is recorded%2")
                           .arg(session.left(80), sinceMs > 0 ? QStringLiteral(" since then") : QString()));
    if (sinceMs <= 0)
        return turnOf(last);
    QStringList nonces;
    for (const AuditChain::EventRow &r : rows.value()) {
        const json undo = r.detail.value("undo", json());
        if (r.detail.value("session", std::string()) == session.toStdString() && undo.is_array() &&
            !undo.empty() && !nonces.contains(r.nonce))
            nonces.append(r.nonce);
    }
    if (nonces.isEmpty())
        return failure(QStringLiteral("session \"%1\" changed nothing since then that can be undone")
                           .arg(session.left(80)));
    return nonces;
}

} // namespace Countersign
