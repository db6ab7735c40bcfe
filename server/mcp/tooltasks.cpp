#include "tooltasks.h"

#include <QDateTime>

#include <sodium.h>

#include <algorithm>
#include <limits>

namespace Countersign {

using json = nlohmann::json;

namespace {

std::string isoTime(qint64 ms)
{
    return QDateTime::fromMSecsSinceEpoch(ms, Qt::UTC).toString(Qt::ISODateWithMs).toStdString();
}

// 128 random bits: a task id is never guessed (each is also bound to its connection).
QString newTaskId()
{
    unsigned char bytes[16];
    randombytes_buf(bytes, sizeof bytes);
    return QString::fromLatin1(QByteArray(reinterpret_cast<const char *>(bytes), sizeof bytes).toHex());
}

const char *statusName(int status)
{
    static const char *const kNames[] = {"working", "completed", "failed", "cancelled"};
    return kNames[status];
}

} // namespace

ToolTasks::ToolTasks(Clock now) : m_now(std::move(now)) {}

std::optional<ToolTasks::Created> ToolTasks::create(qint64 connection, std::optional<qint64> requestedTtlMs)
{
    sweep(connection);
    const auto working = std::count_if(m_tasks.cbegin(), m_tasks.cend(), [connection](const Task &t) {
        return t.connection == connection && !t.message;
    });
    if (working >= kMaxWorking)
        return std::nullopt;
    Task task;
    task.id = newTaskId();
    task.connection = connection;
    task.createdMs = task.updatedMs = m_now();
    task.ttlMs = std::clamp(requestedTtlMs.value_or(kDefaultTtlMs), kMinTtlMs, kMaxTtlMs);
    task.order = ++m_order;
    task.cancel = std::make_shared<CallCancel>();
    Created created{task.id, task.cancel};
    m_tasks.insert(task.id, std::move(task));
    return created;
}

void ToolTasks::finish(const QString &taskId, const json &message)
{
    auto it = m_tasks.find(taskId);
    if (it == m_tasks.end() || it->message)
        return;
    it->message = message;
    it->updatedMs = m_now();
    // A tool result with isError (declined, expired, nothing run) is "completed": the call
    // completed with that answer, and the client takes it with tasks/result. "failed" is kept for
    // a JSON-RPC error. (The 2025-11-25 text counts isError as failed, but the TypeScript SDK's
    // task stream then reports "Task failed" without ever reading the result, so a decline's
    // reason would not reach the model; the tasks extension that replaced these, SEP-2663, and
    // VS Code's own task receiver settle a tool error as completed.)
    if (it->status == Status::Working)
        it->status = message.contains("error") ? Status::Failed : Status::Completed;
    const QList<Waiter> waiters = std::exchange(it->waiters, {});
    const json answer = resultMessage(*it);
    for (const Waiter &waiter : waiters)
        waiter(answer);
}

const ToolTasks::Task *ToolTasks::find(qint64 connection, const QString &taskId) const
{
    const auto it = m_tasks.constFind(taskId);
    return it != m_tasks.cend() && it->connection == connection ? &*it : nullptr;
}

json ToolTasks::describe(const Task &task) const
{
    json out = {{"taskId", task.id.toStdString()},
                {"status", statusName(int(task.status))},
                {"createdAt", isoTime(task.createdMs)},
                {"lastUpdatedAt", isoTime(task.updatedMs)},
                {"ttl", task.ttlMs}};
    switch (task.status) {
    case Status::Working:
        out["statusMessage"] = "Waiting for a human to approve or decline it in the Countersign window";
        out["pollInterval"] = kPollIntervalMs;
        break;
    case Status::Cancelled:
        out["statusMessage"] = "Cancelled by the client";
        break;
    default:
        break;
    }
    return out;
}

std::optional<json> ToolTasks::describe(qint64 connection, const QString &taskId) const
{
    const Task *task = find(connection, taskId);
    if (!task)
        return std::nullopt;
    return describe(*task);
}

// What the call answered, with the task named in its result's _meta (an error as it was).
json ToolTasks::resultMessage(const Task &task) const
{
    json message = *task.message;
    if (auto result = message.find("result"); result != message.end() && result->is_object())
        (*result)["_meta"][kRelatedTaskKey] = {{"taskId", task.id.toStdString()}};
    return message;
}

bool ToolTasks::whenEnded(qint64 connection, const QString &taskId, Waiter waiter)
{
    if (!find(connection, taskId))
        return false;
    Task &task = m_tasks[taskId];
    if (task.message)
        waiter(resultMessage(task));
    else
        task.waiters.append(std::move(waiter));
    return true;
}

std::variant<json, QString> ToolTasks::cancel(qint64 connection, const QString &taskId)
{
    if (!find(connection, taskId))
        return QStringLiteral("Failed to cancel task: Task not found");
    Task &task = m_tasks[taskId];
    if (task.status != Status::Working)
        return QStringLiteral("Cannot cancel task: already in terminal status '%1'")
            .arg(QLatin1String(statusName(int(task.status))));
    task.status = Status::Cancelled;
    task.updatedMs = m_now();
    const json state = describe(task);
    const auto handle = task.cancel; // ends the call's hold; its answer may come at once (finish)
    handle->cancel();
    return state;
}

std::variant<json, QString> ToolTasks::list(qint64 connection, const QString &cursor) const
{
    quint64 before = std::numeric_limits<quint64>::max();
    if (!cursor.isEmpty()) {
        bool ok = false;
        before = QByteArray::fromBase64(cursor.toLatin1()).toULongLong(&ok);
        if (!ok || before == 0)
            return QStringLiteral("Invalid params: unknown cursor");
    }
    QList<const Task *> mine;
    for (const Task &task : m_tasks) {
        if (task.connection == connection && task.order < before)
            mine.append(&task);
    }
    std::sort(mine.begin(), mine.end(), [](const Task *a, const Task *b) { return a->order > b->order; });
    json tasks = json::array();
    for (qsizetype i = 0; i < mine.size() && i < kPageSize; ++i)
        tasks.push_back(describe(*mine[i]));
    json out = {{"tasks", std::move(tasks)}};
    if (mine.size() > kPageSize)
        out["nextCursor"] = QByteArray::number(mine[kPageSize - 1]->order).toBase64().toStdString();
    return out;
}

// Ended tasks past their ttl go, and the oldest ended ones beyond kMaxKept for the connection.
void ToolTasks::sweep(qint64 connection)
{
    const qint64 now = m_now();
    QList<const Task *> ended;
    for (auto it = m_tasks.begin(); it != m_tasks.end();) {
        if (it->message && it->waiters.isEmpty() && now - it->createdMs >= it->ttlMs) {
            it = m_tasks.erase(it);
            continue;
        }
        if (it->connection == connection && it->message)
            ended.append(&*it);
        ++it;
    }
    if (ended.size() < kMaxKept)
        return;
    std::sort(ended.begin(), ended.end(), [](const Task *a, const Task *b) { return a->order < b->order; });
    QStringList drop;
    for (qsizetype i = 0; i + kMaxKept <= ended.size(); ++i)
        drop.append(ended[i]->id);
    for (const QString &id : drop)
        m_tasks.remove(id);
}

} // namespace Countersign
