#include "auditmodel.h"

#include <QDateTime>
#include <QLoggingCategory>
#include <QTextDocument>

Q_LOGGING_CATEGORY(lcAuditView, "countersign.audit")

namespace Countersign {

AuditModel::AuditModel(QString connectionName, QObject *parent)
    : QSqlQueryModel(parent), m_query(std::move(connectionName))
{
    refresh();
}

void AuditModel::refresh()
{
    auto rows = m_query.rows(m_filter, sortColumn(), m_sortOrder);
    if (rows) {
        m_queryError.clear();
        setQuery(std::move(rows).value());
    } else {
        // Empty rather than the previous rows: a table that looks current but is not would mislead.
        m_queryError = rows.error();
        qCWarning(lcAuditView, "the audit view's query failed: %s", qPrintable(m_queryError));
        clear();
    }
    Q_EMIT refreshed(m_queryError);
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
    if (role == Qt::ToolTipRole) {
        // A tooltip renders anything that looks like HTML; these cells hold what agents sent.
        const QString text = data(index, Qt::DisplayRole).toString();
        return text.isEmpty() ? QVariant() : QVariant(Qt::convertFromPlainText(text, Qt::WhiteSpaceNormal));
    }
    if (role == Qt::DisplayRole) {
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

Result<QStringList> AuditModel::filteredIds() const
{
    return m_query.ids(m_filter, sortColumn(), m_sortOrder);
}

Result<QList<AuditModel::DayCount>> AuditModel::perDay() const
{
    return m_query.perDay(m_filter);
}

Result<QStringList> AuditModel::distinctClients() const
{
    return m_query.distinctClients();
}

Result<QStringList> AuditModel::distinctTools() const
{
    return m_query.distinctTools();
}

} // namespace Countersign
