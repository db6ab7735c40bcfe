#include "auditquery.h"

#include "auditfilter.h"
#include "operation.h"
#include "policyevents.h"
#include "storedvalue.h"
#include "storesql.h"

#include <QDateTime>
#include <QSqlError>
#include <QSqlQuery>
#include <QSqlRecord>

#include <algorithm>
#include <limits>

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

bool isPostgres(const QString &connectionName)
{
    return QSqlDatabase::database(connectionName, false).driverName() == QLatin1String("QPSQL");
}

// The WHERE clause is assembled from constant fragments only; the filter's values are bound.
QString whereClause(const AuditFilter &filter, QVariantList &bindings, bool postgres)
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
    if (!filter.person.isEmpty()) {
        clauses.append(QLatin1String(StoreSql::kAuditWherePerson));
        bindings.append(reviewerFor(filter.person));
        bindings.append(reviewerFor(filter.person));
        bindings.append(filter.person);
    }
    if (!filter.instance.isEmpty()) {
        clauses.append(QLatin1String(StoreSql::kAuditWhereInstance));
        bindings.append(filter.instance);
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
        clauses.append(
            QLatin1String(postgres ? StoreSql::kPostgresAuditWhereText : StoreSql::kAuditWhereText));
        for (int i = 0; i < 6; ++i)
            bindings.append(likePattern(text));
    }
    return clauses.isEmpty() ? QString() : QStringLiteral(" WHERE ") + clauses.join(QStringLiteral(" AND "));
}

QString orderClause(AuditQuery::Column column, Qt::SortOrder order)
{
    // Ties by creation time, so the (status|tool|client, created_ms) indexes serve the sort, then by
    // row id, so every read of one filter and sort gives one order.
    return QStringLiteral(" ORDER BY %1 %2, o.created_ms %2, o.id %2")
        .arg(QLatin1String(StoreSql::kAuditSortKey[std::clamp(int(column), 0, int(AuditQuery::Outcome))]),
             order == Qt::AscendingOrder ? QStringLiteral("ASC") : QStringLiteral("DESC"));
}

// SQLite's own words ("no such table: operations"), without the driver's "Unable to fetch row".
QString sqliteMessage(const QSqlError &error)
{
    return error.databaseText().isEmpty() ? error.text() : error.databaseText();
}

QString sortedSql(const char *select, bool postgres, const AuditFilter &filter, AuditQuery::Column sortColumn,
                  Qt::SortOrder order, QVariantList &bindings)
{
    return QLatin1String(select) + whereClause(filter, bindings, postgres) + orderClause(sortColumn, order);
}

// A forward-only query, executed: the caller reads it to its end.
Result<QSqlQuery> run(const QString &connectionName, const QString &sql, const QVariantList &bindings)
{
    QSqlQuery query(QSqlDatabase::database(connectionName, false));
    query.setForwardOnly(true);
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

bool listsConfiguration(const AuditFilter &filter)
{
    return filter.decision == QLatin1String(PolicyEvents::kDecision);
}

// The configuration's changes the filter lets through, as rows (key: minus the chain's sequence
// number, so no operation's row id is one), oldest first. Few: read whole and filtered here. No
// client, tool or instance made one; the person is who decided it; the text is searched in what
// it changed and the file.
Result<QList<AuditQuery::Row>> policyRows(const QString &connectionName, const AuditFilter &filter)
{
    if (!filter.client.isEmpty() || !filter.tool.isEmpty() || !filter.instance.isEmpty())
        return QList<AuditQuery::Row>();
    auto query = run(connectionName, QLatin1String(StoreSql::kPolicyEvents), {});
    if (!query)
        return failure(query.error());
    QSqlQuery &rows = query.value();
    QList<AuditQuery::Row> out;
    const qint64 fromMs =
        filter.from.isValid() ? dayStartMs(filter.from) : std::numeric_limits<qint64>::min();
    const qint64 toMs =
        filter.to.isValid() ? dayStartMs(filter.to.addDays(1)) : std::numeric_limits<qint64>::max();
    while (rows.next()) {
        const qint64 seq = rows.value(0).toLongLong();
        const qint64 atMs = rows.value(1).toLongLong();
        const QByteArray text = rows.value(3).toByteArray();
        const nlohmann::json parsed = nlohmann::json::parse(text.cbegin(), text.cend(), nullptr, false);
        const nlohmann::json detail = parsed.is_object() ? parsed : nlohmann::json::object();
        const auto field = [&detail](const char *key) {
            const nlohmann::json value = detail.value(key, nlohmann::json());
            return value.is_string() ? QString::fromStdString(value.get<std::string>()) : QString();
        };
        const QString changes = PolicyEvents::changesText(detail);
        const QString search = filter.text.trimmed();
        if (atMs < fromMs || atMs >= toMs || (!filter.person.isEmpty() && field("by") != filter.person) ||
            (!search.isEmpty() && !changes.contains(search, Qt::CaseInsensitive) &&
             !field("file").contains(search, Qt::CaseInsensitive)))
            continue;
        AuditQuery::Row row;
        row.key = -seq;
        row.cells = {atMs,          QString(),     QStringLiteral("(configuration)"),
                     field("file"), rows.value(2), field("by"),
                     changes,       QString(),     PolicyEvents::idOf(seq)};
        out.append(std::move(row));
    }
    if (rows.lastError().isValid())
        return failure(QStringLiteral("database error: %1").arg(sqliteMessage(rows.lastError())));
    return out;
}

} // namespace

AuditQuery::AuditQuery(QString connectionName) : m_connectionName(std::move(connectionName)) {}

Result<QList<qint64>> AuditQuery::order(const AuditFilter &filter, Column sortColumn,
                                        Qt::SortOrder order) const
{
    if (listsConfiguration(filter)) { // by time whatever the column: they differ in little else
        auto rows = policyRows(m_connectionName, filter);
        if (!rows)
            return failure(rows.error());
        QList<qint64> keys;
        for (const Row &row : rows.value())
            keys.append(row.key);
        if (order == Qt::DescendingOrder)
            std::reverse(keys.begin(), keys.end());
        Q_UNUSED(sortColumn)
        return keys;
    }
    QVariantList bindings;
    const QString sql = sortedSql(StoreSql::kAuditOrderSelect, isPostgres(m_connectionName), filter,
                                  sortColumn, order, bindings);
    auto query = run(m_connectionName, sql, bindings);
    if (!query)
        return failure(query.error());
    QSqlQuery &rows = query.value();
    QList<qint64> keys;
    while (rows.next())
        keys.append(rows.value(0).toLongLong());
    if (rows.lastError().isValid())
        return failure(QStringLiteral("database error: %1").arg(sqliteMessage(rows.lastError())));
    return keys;
}

Result<QList<AuditQuery::Row>> AuditQuery::rowsWithKeys(const QList<qint64> &keys) const
{
    if (keys.isEmpty())
        return QList<Row>();
    if (keys.first() < 0) { // the configuration's changes (order() lists them alone)
        auto rows = policyRows(m_connectionName, AuditFilter{});
        if (!rows)
            return failure(rows.error());
        QList<Row> out;
        for (Row &row : rows.value()) {
            if (keys.contains(row.key))
                out.append(std::move(row));
        }
        return out;
    }
    // The ids as one JSON array, bound once (json_each), whatever their number.
    QByteArray array = "[";
    for (const qint64 key : keys)
        array += QByteArray::number(key) + ',';
    array.back() = ']';
    auto query = run(m_connectionName,
                     QLatin1String(isPostgres(m_connectionName) ? StoreSql::kPostgresAuditRowsSelect
                                                                : StoreSql::kAuditRowsSelect),
                     {QString::fromLatin1(array)});
    if (!query)
        return failure(query.error());
    QSqlQuery &rows = query.value();
    QList<Row> out;
    out.reserve(keys.size());
    while (rows.next()) {
        Row row;
        row.cells.reserve(ColumnCount);
        for (int column = 0; column < ColumnCount; ++column)
            row.cells.append(rows.value(column));
        row.key = rows.value(ColumnCount).toLongLong();
        out.append(std::move(row));
    }
    if (rows.lastError().isValid())
        return failure(QStringLiteral("database error: %1").arg(sqliteMessage(rows.lastError())));
    return out;
}

Result<QStringList> AuditQuery::ids(const AuditFilter &filter, Column sortColumn, Qt::SortOrder order) const
{
    if (listsConfiguration(filter)) {
        auto rows = policyRows(m_connectionName, filter);
        if (!rows)
            return failure(rows.error());
        QStringList out;
        for (const Row &row : rows.value())
            out.append(row.cells.value(Id).toString());
        if (order == Qt::DescendingOrder)
            std::reverse(out.begin(), out.end());
        Q_UNUSED(sortColumn)
        return out;
    }
    QVariantList bindings;
    const QString sql = sortedSql(StoreSql::kAuditNoncesSelect, isPostgres(m_connectionName), filter,
                                  sortColumn, order, bindings);
    return textColumn(run(m_connectionName, sql, bindings), "nonce");
}

Result<QList<AuditQuery::DayCount>> AuditQuery::perDay(const AuditFilter &filter) const
{
    if (listsConfiguration(filter)) // no call was approved or declined among them
        return QList<DayCount>();
    QVariantList bindings;
    const QString where = whereClause(filter, bindings, isPostgres(m_connectionName));
    auto query =
        run(m_connectionName,
            QLatin1String(StoreSql::kAuditPerDaySelect) + where + QLatin1String(StoreSql::kAuditPerDayGroup),
            bindings);
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
    return textColumn(run(m_connectionName, QLatin1String(StoreSql::kDistinctClients), {}), "client");
}

Result<QStringList> AuditQuery::distinctTools() const
{
    return textColumn(run(m_connectionName, QLatin1String(StoreSql::kDistinctTools), {}), "tool");
}

Result<QStringList> AuditQuery::distinctPeople() const
{
    return textColumn(run(m_connectionName, QLatin1String(StoreSql::kDistinctPeople), {}), "person");
}

Result<QStringList> AuditQuery::distinctInstances() const
{
    return textColumn(run(m_connectionName, QLatin1String(StoreSql::kDistinctInstances), {}), "instance");
}

} // namespace Countersign
