#pragma once

#include "mcprequest.h"

#include <nlohmann/json.hpp>

#include <QHash>
#include <QString>

#include <functional>
#include <memory>
#include <optional>
#include <variant>

namespace Countersign {

// The 2025-11-25 tasks for tools/call (mcp-spec-2025-11-25, basic/utilities/tasks): a
// task-augmented call is answered at once with its task while the call itself goes on (the gate
// holds it until its card is decided or its ticket expires); the client polls tasks/get and takes
// the result with tasks/result, which blocks until the task ends. Each task belongs to the
// connection (bearer token) that created it: another connection's task is "not found" to it.
// Kept in memory: after a restart the client's next identical call joins the same card.
class ToolTasks final
{
public:
    using Clock = std::function<qint64()>;
    explicit ToolTasks(Clock now);
    Q_DISABLE_COPY_MOVE(ToolTasks)

    // A new task for a call of connection, kept ttlMs after it ends (the client's request clamped
    // to [kMinTtlMs, kMaxTtlMs]; kDefaultTtlMs when it asked for none). Its id, and the handle the
    // call's holder watches for a cancel. Nothing when the connection has kMaxWorking tasks working.
    struct Created final
    {
        QString taskId;
        std::shared_ptr<CallCancel> cancel;
    };
    std::optional<Created> create(qint64 connection, std::optional<qint64> requestedTtlMs);
    // The call ended: message is the JSON-RPC message it would have answered (result or error), kept
    // for tasks/result and handed to every tasks/result waiting on it. A cancelled task stays so.
    void finish(const QString &taskId, const nlohmann::json &message);

    // The task as tasks/get, tasks/list and CreateTaskResult show it; nothing when connection has
    // no task of that id.
    std::optional<nlohmann::json> describe(qint64 connection, const QString &taskId) const;
    // tasks/result: message (the JSON-RPC message with the related-task _meta on its result) now
    // when the task has ended, or when it ends. False when connection has no task of that id.
    using Waiter = std::function<void(const nlohmann::json &message)>;
    bool whenEnded(qint64 connection, const QString &taskId, Waiter waiter);
    // tasks/cancel: the task's state after, or the reason it cannot be cancelled (-32602 words).
    std::variant<nlohmann::json, QString> cancel(qint64 connection, const QString &taskId);
    // tasks/list, newest first, kPageSize at a time; cursor is the previous page's nextCursor.
    std::variant<nlohmann::json, QString> list(qint64 connection, const QString &cursor) const;

    static constexpr qint64 kMinTtlMs = 60'000;
    static constexpr qint64 kDefaultTtlMs = 30 * 60'000;
    static constexpr qint64 kMaxTtlMs = 24 * 3600'000LL;
    static constexpr qint64 kPollIntervalMs = 2000;
    static constexpr int kMaxWorking = 64; // per connection (the gate allows 50 waiting cards)
    static constexpr int kMaxKept = 256;   // per connection, ended ones dropped oldest first
    static constexpr int kPageSize = 50;
    static constexpr const char *kRelatedTaskKey = "io.modelcontextprotocol/related-task";

private:
    enum class Status { Working, Completed, Failed, Cancelled };
    struct Task final
    {
        QString id;
        qint64 connection = 0;
        qint64 createdMs = 0;
        qint64 updatedMs = 0;
        qint64 ttlMs = 0;
        quint64 order = 0; // creation order
        Status status = Status::Working;
        std::optional<nlohmann::json> message; // the call's answer, once it ended
        QList<Waiter> waiters;
        std::shared_ptr<CallCancel> cancel;
    };

    const Task *find(qint64 connection, const QString &taskId) const;
    nlohmann::json describe(const Task &task) const;
    nlohmann::json resultMessage(const Task &task) const;
    void sweep(qint64 connection);

    Clock m_now;
    QHash<QString, Task> m_tasks;
    quint64 m_order = 0;
};

} // namespace Countersign
