#pragma once

#include "auditfilter.h"
#include "auditquery.h"
#include "result.h"

#include <QSqlQueryModel>
#include <QStringList>

namespace Countersign {

// Every operation in the audit store, one row each, filtered and sorted in SQL (AuditQuery) and
// fetched lazily (QSqlQueryModel's fetchMore), so 100,000 rows open and filter without loading
// them all. When the query fails the model is empty and queryError() says why.
class AuditModel final : public QSqlQueryModel
{
    Q_OBJECT
public:
    // The columns, as AuditQuery::rows() gives them.
    enum Column {
        Time = AuditQuery::Time,
        Client = AuditQuery::Client,
        Tool = AuditQuery::Tool,
        Target = AuditQuery::Target,
        Decision = AuditQuery::Decision,
        Who = AuditQuery::Who,
        Reason = AuditQuery::Reason,
        Outcome = AuditQuery::Outcome,
        Id = AuditQuery::Id,
        ColumnCount = AuditQuery::ColumnCount
    };
    using DayCount = AuditQuery::DayCount;

    // connectionName: a QSqlDatabase connection of this thread (Database::connectionName()).
    explicit AuditModel(QString connectionName, QObject *parent = nullptr);
    Q_DISABLE_COPY_MOVE(AuditModel)

    void setFilter(const AuditFilter &filter);
    const AuditFilter &filter() const { return m_filter; }
    // Runs the query again (new rows arrived). Emits refreshed.
    void refresh();
    // Why the last refresh failed; empty when it succeeded.
    const QString &queryError() const { return m_queryError; }

    QVariant data(const QModelIndex &index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;
    void sort(int column, Qt::SortOrder order) override;

    QString idAt(int row) const;
    // The ids of every row the filter lets through (not only the fetched ones), in view order.
    Result<QStringList> filteredIds() const;

    // Approvals and declines per day through the current filter (the chart's bars).
    Result<QList<DayCount>> perDay() const;
    Result<QStringList> distinctClients() const;
    Result<QStringList> distinctTools() const;

    static QString decisionWords(const QString &status);

Q_SIGNALS:
    // After every refresh (a new filter, sort or explicit refresh()): error is empty when the
    // query succeeded, else queryError().
    void refreshed(const QString &error);

private:
    AuditQuery::Column sortColumn() const { return static_cast<AuditQuery::Column>(m_sortColumn); }

    AuditQuery m_query;
    AuditFilter m_filter;
    int m_sortColumn = Time;
    Qt::SortOrder m_sortOrder = Qt::DescendingOrder;
    QString m_queryError;
};

} // namespace Countersign
