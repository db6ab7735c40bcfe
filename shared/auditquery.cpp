#include "auditquery.h"

#include "auditfilter.h"
#include "storedvalue.h"
#include "storesql.h"

#include <QDateTime>
#include <QSqlError>
#include <QSqlRecord>

#include <algorithm>

namespace Countersign {

namespace {

qint64 dayStartMs(const QDate &day)
{
    return QDateTime(day, QTime(0, 0), Qt::UTC).toMSecsSinceEpoch();
}

// The search is literal: LIKE's wildcards and the escape character in the text match themselves.
QString likePattern(const QString &text)
{
    QString escaped = text;
    escaped.replace(QLatin1String("\\"), QLatin1String("\\\\"));
    escaped.replace(QLatin1String("%"), QLatin1String("\\%"));
    escaped.replace(QLatin1String("_"), QLatin1String("\\_"));
    return QLatin1Char('%') + escaped + QLatin1Char('%');
}

// The WHERE clause is assembled from constant fragments only; the filter's values are bound.
QString whereClause(const AuditFilter &filter, QVariantList &bindings)
{
    QStringList clauses;
    if (!filter.decision.isEmpty()) {
        clauses.append(QLatin1String(StoreSql::kAuditWhereDecision));
        bindings.append(filter.decision);
    }
    if (!filter.client.isEmpty()) {
        clauses.append(QLatin1String(StoreSql::kAuditWhereClient));
        bindings.append(filter.client);
    }
    if (!filter.tool.isEmpty()) {
        clauses.append(QLatin1String(StoreSql::kAuditWhereTool));
        bindings.append(filter.tool);
    }
    if (filter.from.isValid()) {
        clauses.append(QLatin1String(StoreSql::kAuditWhereFrom));
        bindings.append(dayStartMs(filter.from));
    }
    if (filter.to.isValid()) {
        clauses.append(QLatin1String(StoreSql::kAuditWhereTo));
        bindings.append(dayStartMs(filter.to.addDays(1)));
    }
    if (const QString text = filter.text.trimmed(); !text.isEmpty()) {
        clauses.append(QLatin1String(StoreSql::kAuditWhereText));
        for (int i = 0; i < 6; ++i)
            bindings.append(likePattern(text));
    }
    return clauses.isEmpty() ? QString() : QStringLiteral(" WHERE ") + clauses.join(QStringLiteral(" AND "));
}

QString orderClause(AuditQuery::Column column, Qt::SortOrder order)
{
    // The tie-breaker is the creation time, so the (status|tool|client, created_ms) indexes serve
    // the sort.
    return QStringLiteral(" ORDER BY %1 %2, o.created_ms %2")
        .arg(QLatin1String(StoreSql::kAuditOrder[std::clamp(int(column), 0, int(AuditQuery::Outcome))]),
             order == Qt::AscendingOrder ? QStringLiteral("ASC") : QStringLiteral("DESC"));
}

// SQLite's own words ("no such table: operations"), without the driver's "Unable to fetch row".
QString sqliteMessage(const QSqlError &error)
{
    return error.databaseText().isEmpty() ? error.text() : error.databaseText();
}

QString rowsSql(const AuditFilter &filter, AuditQuery::Column sortColumn, Qt::SortOrder order,
                QVariantList &bindings)
{
    return QLatin1String(StoreSql::kAuditViewSelect) + whereClause(filter, bindings) +
           orderClause(sortColumn, order);
}

Result<QSqlQuery> run(const QString &connectionName, const QString &sql, const QVariantList &bindings,
                      bool forwardOnly)
{
    QSqlQuery query(QSqlDatabase::database(connectionName, false));
    query.setForwardOnly(forwardOnly);
    if (!query.prepare(sql))
        return failure(QStringLiteral("database error: %1").arg(sqliteMessage(query.lastError())));
    for (const QVariant &value : bindings)
        query.addBindValue(value);
    if (!query.exec())
        return failure(QStringLiteral("database error: %1").arg(sqliteMessage(query.lastError())));
    return query;
}

// The named column of every row, as text.
Result<QStringList> textColumn(Result<QSqlQuery> query, const char *name)
{
    if (!query)
        return failure(query.error());
    QSqlQuery &rows = query.value();
    const int at = StoredValue::column(rows.record(), name);
    QStringList out;
    while (rows.next())
        out.append(rows.value(at).toString());
    return out;
}

} // namespace

AuditQuery::AuditQuery(QString connectionName) : m_connectionName(std::move(connectionName)) {}

Result<QSqlQuery> AuditQuery::rows(const AuditFilter &filter, Column sortColumn, Qt::SortOrder order) const
{
    QVariantList bindings;
    const QString sql = rowsSql(filter, sortColumn, order, bindings);
    // Scrollable: QSqlQueryModel seeks back and forth in it as the view scrolls.
    return run(m_connectionName, sql, bindings, false);
}

Result<QStringList> AuditQuery::ids(const AuditFilter &filter, Column sortColumn, Qt::SortOrder order) const
{
    QVariantList bindings;
    const QString sql = rowsSql(filter, sortColumn, order, bindings);
    return textColumn(run(m_connectionName, sql, bindings, true), "nonce");
}

Result<QList<AuditQuery::DayCount>> AuditQuery::perDay(const AuditFilter &filter) const
{
    QVariantList bindings;
    const QString where = whereClause(filter, bindings);
    auto query =
        run(m_connectionName,
            QLatin1String(StoreSql::kAuditPerDaySelect) + where + QLatin1String(StoreSql::kAuditPerDayGroup),
            bindings, true);
    if (!query)
        return failure(query.error());
    QSqlQuery &rows = query.value();
    const QSqlRecord record = rows.record();
    const int dayAt = StoredValue::column(record, "day");
    const int approvedAt = StoredValue::column(record, "approved");
    const int declinedAt = StoredValue::column(record, "declined");
    QList<DayCount> out;
    while (rows.next())
        out.append({QDate(1970, 1, 1).addDays(rows.value(dayAt).toLongLong()), rows.value(approvedAt).toInt(),
                    rows.value(declinedAt).toInt()});
    return out;
}

Result<QStringList> AuditQuery::distinctClients() const
{
    return textColumn(run(m_connectionName, QLatin1String(StoreSql::kDistinctClients), {}, true), "client");
}

Result<QStringList> AuditQuery::distinctTools() const
{
    return textColumn(run(m_connectionName, QLatin1String(StoreSql::kDistinctTools), {}, true), "tool");
}

} // namespace Countersign
