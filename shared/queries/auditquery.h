#pragma once

#include "result.h"

#include <QDate>
#include <QList>
#include <QStringList>
#include <QVariant>

namespace Countersign {

struct AuditFilter;

// The audit view's reads: the order of the operations a filter lets through, sorted in SQL, the
// shown columns of any of them, and the figures around them (approvals and declines per day, the
// clients and tools seen). Each call prepares, binds and runs its statements on the connection and
// reads them to their end, so no statement stays open afterwards; nothing is cached, so every call
// sees the rows committed by then. Failures are Errors with SQLite's words ("no such table:
// operations"). Calls run on the thread that owns the connection, and several threads may each
// read through their own connection to one file.
class AuditQuery final
{
public:
    // The shown columns, in order: time (ms since the epoch), client, tool, first target, decision
    // (the operation's status name), who decided, reason, outcome ("waiting" while pending, then
    // "not run", "unknown", "failed" or "succeeded") and id (the nonce).
    enum Column { Time, Client, Tool, Target, Decision, Who, Reason, Outcome, Id, ColumnCount };

    struct DayCount final
    {
        QDate day;        // UTC
        int approved = 0; // approved by a person or allowed by a rule
        int declined = 0; // declined by a person or denied by a rule
    };

    // One operation as the view shows it.
    struct Row final
    {
        qint64 key = 0;        // the operation's row id, as order() gives it
        QList<QVariant> cells; // ColumnCount values, in Column order
    };

    // connectionName: a QSqlDatabase connection of this thread (Database::connectionName()).
    explicit AuditQuery(QString connectionName);

    // The row ids of every operation the filter lets through, sorted by sortColumn (Time to
    // Outcome; ties by time, then by row id, in the same order). Time, client, tool and decision
    // are read in an index's order; the other columns are computed and sorted for every row.
    Result<QList<qint64>> order(const AuditFilter &filter, Column sortColumn, Qt::SortOrder order) const;
    // The rows with these row ids (from order()), in no particular order; ids that name no row are
    // left out.
    Result<QList<Row>> rowsWithKeys(const QList<qint64> &keys) const;
    // The nonces of every operation order() would give, in the same order.
    Result<QStringList> ids(const AuditFilter &filter, Column sortColumn, Qt::SortOrder order) const;
    // Per UTC day with rows through the filter, oldest first.
    Result<QList<DayCount>> perDay(const AuditFilter &filter) const;
    // Every client and every tool in the store, sorted, whatever the filter.
    Result<QStringList> distinctClients() const;
    Result<QStringList> distinctTools() const;
    // Every person (AuditFilter::person) and every instance named in the store, sorted.
    Result<QStringList> distinctPeople() const;
    Result<QStringList> distinctInstances() const;

private:
    QString m_connectionName;
};

} // namespace Countersign
