#include "auditworker.h"

#include "auditexport.h"
#include "database.h"
#include "operationrecords.h"

namespace Countersign {

AuditWorker::AuditWorker(QString databasePath) : m_path(std::move(databasePath)) {}

AuditWorker::~AuditWorker() = default;

QString AuditWorker::read(const AuditQuery &query, const AuditFilter &filter, AuditQuery::Column sortColumn,
                          Qt::SortOrder order, bool withDays, AuditListing &listing)
{
    auto keys = query.order(filter, sortColumn, order);
    if (!keys)
        return keys.error();
    listing.order = std::move(keys).value();
    listing.withDays = withDays;
    if (withDays) {
        auto days = query.perDay(filter);
        if (!days)
            return days.error();
        listing.perDay = std::move(days).value();
    }
    return {};
}

void AuditWorker::request(quint64 generation, const AuditFilter &filter, AuditQuery::Column sortColumn,
                          Qt::SortOrder order, bool withDays)
{
    m_latest.store(generation);
    QMetaObject::invokeMethod(
        this,
        [this, generation, filter, sortColumn, order, withDays] {
            run(generation, filter, sortColumn, order, withDays);
        },
        Qt::QueuedConnection);
}

void AuditWorker::run(quint64 generation, const AuditFilter &filter, AuditQuery::Column sortColumn,
                      Qt::SortOrder order, bool withDays)
{
    if (generation != m_latest.load())
        return; // a newer request is queued behind this one
    if (!open())
        return;
    AuditListing listing;
    const QString error =
        read(AuditQuery(m_db->connectionName()), filter, sortColumn, order, withDays, listing);
    Q_EMIT listed(generation, error.isEmpty() ? listing : AuditListing(), error);
}

void AuditWorker::exportRows(const AuditFilter &filter, AuditQuery::Column sortColumn, Qt::SortOrder order,
                             const QString &path, bool asJson)
{
    QMetaObject::invokeMethod(
        this,
        [this, filter, sortColumn, order, path, asJson] {
            if (!open()) {
                Q_EMIT exported(path, 0, QStringLiteral("the audit log cannot be read"));
                return;
            }
            const auto ids = AuditQuery(m_db->connectionName()).ids(filter, sortColumn, order);
            if (!ids) {
                Q_EMIT exported(path, 0, ids.error());
                return;
            }
            auto rows = OperationRecords(*m_db).report(asJson);
            if (!rows) {
                Q_EMIT exported(path, 0, rows.error());
                return;
            }
            const auto saved = AuditExport::save(std::move(rows).value(), ids.value(), path, asJson);
            Q_EMIT exported(path, saved ? saved.value() : 0, saved ? QString() : saved.error());
        },
        Qt::QueuedConnection);
}

bool AuditWorker::open()
{
    if (m_db)
        return true;
    auto db = Database::open(m_path, Database::Access::ReadOnly);
    if (!db) {
        Q_EMIT unavailable(db.error());
        return false;
    }
    m_db = std::move(db).value();
    return true;
}

} // namespace Countersign
