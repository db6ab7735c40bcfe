#pragma once

#include "auditfilter.h"
#include "auditquery.h"

#include <QObject>

#include <atomic>
#include <memory>

namespace Countersign {

class Database;

// What the audit view lists for one filter and sort: the order of its rows and, when asked for,
// the chart's days.
struct AuditListing final
{
    QList<qint64> order;                // row ids (AuditQuery::order)
    bool withDays = false;              // perDay was read
    QList<AuditQuery::DayCount> perDay; // AuditQuery::perDay
};

// Reads audit listings on the thread it lives in (moveToThread), through a read-only connection of
// its own to the database file, so the sorts and searches that read every row never hold up the
// window. Asynchronous: each request ends in one listed signal, except a request that a newer one
// made stale before it started, which is dropped.
class AuditWorker final : public QObject
{
    Q_OBJECT
public:
    explicit AuditWorker(QString databasePath);
    // Closes the connection: destroy it on its own thread (QThread::finished to deleteLater).
    ~AuditWorker() override;
    Q_DISABLE_COPY_MOVE(AuditWorker)

    // From any thread. generation: increasing; only the newest request not yet started runs.
    // withDays: read the chart's days too (a new filter, new rows), not only the order (a new sort).
    void request(quint64 generation, const AuditFilter &filter, AuditQuery::Column sortColumn,
                 Qt::SortOrder order, bool withDays);

    // From any thread: writes the rows filter lets through to path (AuditExport::save), after the
    // requests before it; ends in exported.
    void exportRows(const AuditFilter &filter, AuditQuery::Column sortColumn, Qt::SortOrder order,
                    const QString &path, bool asJson);

    // One listing, read through query (on its connection's thread): the error, or empty when
    // listing was filled. The worker's reads, and those of a model without a worker.
    static QString read(const AuditQuery &query, const AuditFilter &filter, AuditQuery::Column sortColumn,
                        Qt::SortOrder order, bool withDays, AuditListing &listing);

Q_SIGNALS:
    // error empty: listing holds the rows; else it is empty and error says why.
    void listed(quint64 generation, const Countersign::AuditListing &listing, const QString &error);
    // rows written to path, or error why none were.
    void exported(const QString &path, int rows, const QString &error);
    // The file could not be opened for reading (the request is not answered): read elsewhere.
    void unavailable(const QString &error);

private:
    void run(quint64 generation, const AuditFilter &filter, AuditQuery::Column sortColumn,
             Qt::SortOrder order, bool withDays);
    // The worker's connection, opened at its first use: false (and unavailable emitted) when it cannot be.
    bool open();

    QString m_path;
    std::unique_ptr<Database> m_db;
    std::atomic<quint64> m_latest{0};
};

} // namespace Countersign

Q_DECLARE_METATYPE(Countersign::AuditListing)
