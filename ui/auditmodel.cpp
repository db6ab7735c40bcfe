#include "auditmodel.h"

#include "storesql.h"

#include <QDateTime>
#include <QSqlError>
#include <QSqlQuery>
#include <QTimeZone>

namespace Countersign {

namespace {

qint64 dayStartMs(const QDate &day)
{
    return QDateTime(day, QTime(0, 0), Qt::UTC).toMSecsSinceEpoch();
}

QString likePattern(const QString &text)
{
    QString escaped = text;
    escaped.replace(QLatin1String("\\"), QLatin1String("\\\\"));
    escaped.replace(QLatin1String("%"), QLatin1String("\\%"));
    escaped.replace(QLatin1String("_"), QLatin1String("\\_"));
    return QLatin1Char('%') + escaped + QLatin1Char('%');
}

} // namespace

AuditModel::AuditModel(QString connectionName, QObject *parent)
    : QSqlQueryModel(parent), m_connectionName(std::move(connectionName))
{
    refresh();
}

QString AuditModel::whereClause(QVariantList &bindings) const
{
    QStringList clauses;
    if (!m_filter.decision.isEmpty()) {
        clauses.append(QLatin1String(StoreSql::kAuditWhereDecision));
        bindings.append(m_filter.decision);
    }
    if (!m_filter.client.isEmpty()) {
        clauses.append(QLatin1String(StoreSql::kAuditWhereClient));
        bindings.append(m_filter.client);
    }
    if (!m_filter.tool.isEmpty()) {
        clauses.append(QLatin1String(StoreSql::kAuditWhereTool));
        bindings.append(m_filter.tool);
    }
    if (m_filter.from.isValid()) {
        clauses.append(QLatin1String(StoreSql::kAuditWhereFrom));
        bindings.append(dayStartMs(m_filter.from));
    }
    if (m_filter.to.isValid()) {
        clauses.append(QLatin1String(StoreSql::kAuditWhereTo));
        bindings.append(dayStartMs(m_filter.to.addDays(1)));
    }
    if (!m_filter.text.trimmed().isEmpty()) {
        clauses.append(QLatin1String(StoreSql::kAuditWhereText));
        for (int i = 0; i < 6; ++i)
            bindings.append(likePattern(m_filter.text.trimmed()));
    }
    return clauses.isEmpty() ? QString() : QStringLiteral(" WHERE ") + clauses.join(QStringLiteral(" AND "));
}

QString AuditModel::orderClause() const
{
    // The tie-breaker is the creation time, so the (status|tool, created_ms) indexes serve the sort.
    return QStringLiteral(" ORDER BY %1 %2, o.created_ms %2")
        .arg(QLatin1String(StoreSql::kAuditOrder[std::clamp(m_sortColumn, 0, int(Outcome))]),
             m_sortOrder == Qt::AscendingOrder ? QStringLiteral("ASC") : QStringLiteral("DESC"));
}

void AuditModel::refresh()
{
    QVariantList bindings;
    const QString where = whereClause(bindings);
    const QString order = orderClause();
    QSqlQuery query(QSqlDatabase::database(m_connectionName, false));
    query.setForwardOnly(false);
    query.prepare(QLatin1String(StoreSql::kAuditViewSelect) + where + order);
    for (const QVariant &value : bindings)
        query.addBindValue(value);
    query.exec();
    setQuery(std::move(query));
}

void AuditModel::setFilter(const AuditFilter &filter)
{
    m_filter = filter;
    refresh();
}

void AuditModel::sort(int column, Qt::SortOrder order)
{
    if (column < 0 || column > Outcome)
        return;
    m_sortColumn = column;
    m_sortOrder = order;
    refresh();
}

QString AuditModel::decisionWords(const QString &status)
{
    if (status == QLatin1String("allowed"))
        return tr("allowed by rule");
    if (status == QLatin1String("denied"))
        return tr("denied by rule");
    return status;
}

QVariant AuditModel::data(const QModelIndex &index, int role) const
{
    if (!index.isValid())
        return {};
    if (role == Qt::DisplayRole || role == Qt::ToolTipRole) {
        const QVariant raw = QSqlQueryModel::data(index, Qt::DisplayRole);
        if (index.column() == Time)
            return QDateTime::fromMSecsSinceEpoch(raw.toLongLong())
                .toString(QStringLiteral("yyyy-MM-dd HH:mm:ss"));
        if (index.column() == Decision)
            return decisionWords(raw.toString());
        return raw;
    }
    if (role == Qt::UserRole)
        return QSqlQueryModel::data(index, Qt::DisplayRole); // raw values, for sorting and tests
    return {};
}

QVariant AuditModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
        return QSqlQueryModel::headerData(section, orientation, role);
    switch (section) {
    case Time:
        return tr("Time");
    case Client:
        return tr("Client");
    case Tool:
        return tr("Tool");
    case Target:
        return tr("Target");
    case Decision:
        return tr("Decision");
    case Who:
        return tr("Who");
    case Reason:
        return tr("Reason");
    case Outcome:
        return tr("Outcome");
    case Id:
        return tr("Id");
    default:
        return {};
    }
}

QString AuditModel::idAt(int row) const
{
    return QSqlQueryModel::data(index(row, Id)).toString();
}

QStringList AuditModel::filteredIds() const
{
    QVariantList bindings;
    const QString where = whereClause(bindings);
    QSqlQuery query(QSqlDatabase::database(m_connectionName, false));
    query.setForwardOnly(true);
    query.prepare(QLatin1String(StoreSql::kAuditViewSelect) + where + orderClause());
    for (const QVariant &value : bindings)
        query.addBindValue(value);
    QStringList ids;
    if (query.exec()) {
        while (query.next())
            ids.append(query.value(Id).toString());
    }
    return ids;
}

QList<AuditModel::DayCount> AuditModel::perDay() const
{
    QVariantList bindings;
    const QString where = whereClause(bindings);
    QSqlQuery query(QSqlDatabase::database(m_connectionName, false));
    query.prepare(QLatin1String(StoreSql::kAuditPerDaySelect) + where +
                  QLatin1String(StoreSql::kAuditPerDayGroup));
    for (const QVariant &value : bindings)
        query.addBindValue(value);
    QList<DayCount> out;
    if (query.exec()) {
        while (query.next())
            out.append({QDate(1970, 1, 1).addDays(query.value(0).toLongLong()), query.value(1).toInt(),
                        query.value(2).toInt()});
    }
    return out;
}

QStringList AuditModel::distinctClients() const
{
    QSqlQuery query(QSqlDatabase::database(m_connectionName, false));
    QStringList out;
    if (query.exec(QLatin1String(StoreSql::kDistinctClients))) {
        while (query.next())
            out.append(query.value(0).toString());
    }
    return out;
}

QStringList AuditModel::distinctTools() const
{
    QSqlQuery query(QSqlDatabase::database(m_connectionName, false));
    QStringList out;
    if (query.exec(QLatin1String(StoreSql::kDistinctTools))) {
        while (query.next())
            out.append(query.value(0).toString());
    }
    return out;
}

} // namespace Countersign
