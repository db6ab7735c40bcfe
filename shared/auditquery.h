#pragma once

#include "result.h"

#include <QDate>
#include <QList>
#include <QSqlQuery>
#include <QStringList>

namespace Countersign {

struct AuditFilter;

// The audit view's reads: the operations a filter lets through, sorted in SQL, and the figures
// around them (approvals and declines per day, the clients and tools seen). Each call prepares,
// binds and runs its statements on the connection; nothing is cached, so every call sees the rows
// committed by then. Failures are Errors with SQLite's words ("no such table: operations").
class AuditQuery final
{
public:
    // The columns of rows(), in order: time (ms since the epoch), client, tool, first target,
    // decision (the operation's status name), who decided, reason, outcome ("not run", "unknown",
    // "failed", "succeeded") and id (the nonce).
    enum Column { Time, Client, Tool, Target, Decision, Who, Reason, Outcome, Id, ColumnCount };

    struct DayCount final
    {
        QDate day;        // UTC
        int approved = 0; // approved by a person or allowed by a rule
        int declined = 0; // declined by a person or denied by a rule
    };

    // connectionName: a QSqlDatabase connection of this thread (Database::connectionName()).
    explicit AuditQuery(QString connectionName);

    // The rows the filter lets through, sorted by sortColumn (Time to Outcome; ties by time in the
    // same order): an executed, scrollable query positioned before the first row, for
    // QSqlQueryModel::setQuery, which then fetches rows as they are shown.
    Result<QSqlQuery> rows(const AuditFilter &filter, Column sortColumn, Qt::SortOrder order) const;
    // The ids of every row rows() would give, in the same order.
    Result<QStringList> ids(const AuditFilter &filter, Column sortColumn, Qt::SortOrder order) const;
    // Per UTC day with rows through the filter, oldest first.
    Result<QList<DayCount>> perDay(const AuditFilter &filter) const;
    // Every client and every tool in the store, sorted, whatever the filter.
    Result<QStringList> distinctClients() const;
    Result<QStringList> distinctTools() const;

private:
    QString m_connectionName;
};

} // namespace Countersign
