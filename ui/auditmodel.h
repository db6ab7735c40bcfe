#pragma once

#include "auditfilter.h"
#include "auditquery.h"
#include "readerthread.h"
#include "result.h"

#include <QAbstractTableModel>
#include <QHash>
#include <QStringList>
#include <memory>

namespace Countersign {

class AuditWorker;
struct AuditListing;

// Every operation in the audit store, one row each, filtered and sorted in SQL (AuditQuery). The
// model holds the listing's order (one row id per row) and reads the shown columns a page of rows
// at a time as the view asks for them, each read to its end: no statement stays open on the
// window's connection (one would pin its snapshot and block its writes).
//
// Over a database file, each listing (the order and the chart's days) is read on a thread of the
// model's own through a read-only connection of its own, so sorts and searches that read all
// 100,000 rows do not hold up the window: the rows shown stay those of the previous listing until
// the new one arrives (isLoading()). Over ":memory:" (one connection, tests) everything is read at
// once. When a read fails the model is empty and queryError() says why.
class AuditModel final : public QAbstractTableModel
{
    Q_OBJECT
public:
    // The columns, as AuditQuery gives them.
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
    // Waits for a listing being read on the model's thread to end.
    ~AuditModel() override;
    Q_DISABLE_COPY_MOVE(AuditModel)

    void setFilter(const AuditFilter &filter);
    const AuditFilter &filter() const { return m_filter; }
    // Reads the listing again (new rows arrived). Emits refreshed once it is shown.
    void refresh();
    // Why the last listing, or a page of its rows, could not be read; empty when they were.
    const QString &queryError() const { return m_queryError; }
    // A listing is being read on the model's thread.
    bool isLoading() const { return m_loading; }
    // Approvals and declines per day through the filter, as listed with the rows (the chart's bars).
    const QList<DayCount> &days() const { return m_days; }

    int rowCount(const QModelIndex &parent = {}) const override;
    int columnCount(const QModelIndex &parent = {}) const override;
    QVariant data(const QModelIndex &index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;
    void sort(int column, Qt::SortOrder order) override;

    // The nonce of a row.
    QString idAt(int row) const;
    // A row's key (its operation's row id), which stays the operation's across listings; and the
    // row that holds a key now, -1 when none does.
    qint64 keyAt(int row) const;
    int rowOfKey(qint64 key) const;
    // The ids of every row the filter lets through, in view order.
    Result<QStringList> filteredIds() const;
    // Over a database file: writes the rows the filter lets through to path on the model's thread
    // (AuditExport::save) and ends in exported; false over ":memory:", where nothing was started.
    bool exportShown(const QString &path, bool asJson);

    // Read now: approvals and declines per day through the current filter.
    Result<QList<DayCount>> perDay() const;
    Result<QStringList> distinctClients() const;
    Result<QStringList> distinctTools() const;
    Result<QStringList> distinctPeople() const;
    Result<QStringList> distinctInstances() const;

    static QString decisionWords(const QString &status);

Q_SIGNALS:
    // After every listing is shown (a new filter, sort or refresh()), and when a page of rows could
    // not be read: error is empty when the reads succeeded, else queryError().
    void refreshed(const QString &error);
    void loadingChanged(bool loading);
    // An exportShown() ended: rows written to path, or error why none were.
    void exported(const QString &path, int rows, const QString &error);

private:
    AuditQuery::Column sortColumn() const { return static_cast<AuditQuery::Column>(m_sortColumn); }
    void startWorker(const QString &databasePath);
    void stopWorker();
    // Asks for the listing of the filter and sort (on the worker, or here).
    void list();
    void show(quint64 generation, const AuditListing &listing, const QString &error);
    void setLoading(bool loading);
    // The row, its page read if it was not; nullptr when the row is out of range.
    const AuditQuery::Row *rowAt(int row) const;

    static constexpr int kPageRows = 256;
    static constexpr int kPagesKept = 64;

    AuditQuery m_query;
    std::unique_ptr<ReaderThread> m_reader;
    AuditWorker *m_worker = nullptr; // lives on m_reader's thread
    AuditFilter m_filter;
    int m_sortColumn = Time;
    Qt::SortOrder m_sortOrder = Qt::DescendingOrder;
    quint64 m_generation = 0;      // of the newest listing asked for
    quint64 m_shownGeneration = 0; // of the listing shown
    bool m_loading = false;
    // The chart's days are to be read with the next listing (a new filter, new rows).
    bool m_daysWanted = true;
    QList<qint64> m_order;
    QList<DayCount> m_days;
    QString m_queryError;
    // Pages of the listing's rows read so far (kPageRows each, by page number), oldest read first.
    mutable QHash<int, QList<AuditQuery::Row>> m_pages;
    mutable QList<int> m_pagesRead;
};

} // namespace Countersign
