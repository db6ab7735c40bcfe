#pragma once

#include <QDate>
#include <QSqlQueryModel>
#include <QStringList>

namespace Countersign {

// What the audit view shows: empty fields do not filter. Dates are UTC days, both ends included.
struct AuditFilter final
{
    QString decision; // an Operation status name: approved, declined, expired, superseded, allowed, denied,
                      // pending
    QString client;
    QString tool;
    QDate from;
    QDate to;
    QString text; // searched in tool, connection, client, plan, arguments and reason

    bool operator==(const AuditFilter &) const = default;
};

// Every operation in the audit store, one row each, filtered and sorted in SQL and fetched lazily
// (QSqlQueryModel's fetchMore), so 100,000 rows open and filter without loading them all.
class AuditModel final : public QSqlQueryModel
{
    Q_OBJECT
public:
    enum Column { Time, Client, Tool, Target, Decision, Who, Reason, Outcome, Id, ColumnCount };

    // connectionName: a QSqlDatabase connection of this thread (Database::connectionName()).
    explicit AuditModel(QString connectionName, QObject *parent = nullptr);
    Q_DISABLE_COPY_MOVE(AuditModel)

    void setFilter(const AuditFilter &filter);
    const AuditFilter &filter() const { return m_filter; }
    // Runs the query again (new rows arrived).
    void refresh();

    QVariant data(const QModelIndex &index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;
    void sort(int column, Qt::SortOrder order) override;

    QString idAt(int row) const;
    // The ids of every row the filter lets through (not only the fetched ones), in view order.
    QStringList filteredIds() const;

    struct DayCount
    {
        QDate day;
        int approved = 0;
        int declined = 0;
    };
    QList<DayCount> perDay() const;
    QStringList distinctClients() const;
    QStringList distinctTools() const;

    static QString decisionWords(const QString &status);

private:
    QString whereClause(QVariantList &bindings) const;
    QString orderClause() const;

    QString m_connectionName;
    AuditFilter m_filter;
    int m_sortColumn = Time;
    Qt::SortOrder m_sortOrder = Qt::DescendingOrder;
};

} // namespace Countersign
