#include "auditworker.h"

#include "database.h"

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
    if (!m_db) {
        auto db = Database::open(m_path, Database::Access::ReadOnly);
        if (!db) {
            Q_EMIT unavailable(db.error());
            return;
        }
        m_db = std::move(db).value();
    }
    AuditListing listing;
    const QString error =
        read(AuditQuery(m_db->connectionName()), filter, sortColumn, order, withDays, listing);
    Q_EMIT listed(generation, error.isEmpty() ? listing : AuditListing(), error);
}

} // namespace Countersign
