#include "declineworker.h"

#include "database.h"

namespace Countersign {

DeclineWorker::DeclineWorker(QString sourceConnection) : m_source(std::move(sourceConnection)) {}

DeclineWorker::~DeclineWorker() = default;

void DeclineWorker::request(quint64 generation, qint64 sinceMs, double cardMinimumSeconds)
{
    m_latest.store(generation);
    QMetaObject::invokeMethod(
        this,
        [this, generation, sinceMs, cardMinimumSeconds] { run(generation, sinceMs, cardMinimumSeconds); },
        Qt::QueuedConnection);
}

void DeclineWorker::run(quint64 generation, qint64 sinceMs, double cardMinimumSeconds)
{
    if (generation != m_latest.load())
        return; // a newer request is queued behind this one
    if (!m_db) {
        auto db = Database::openReaderOf(m_source);
        if (!db) {
            Q_EMIT unavailable(db.error());
            return;
        }
        m_db = std::move(db).value();
    }
    auto report = DeclineQuery(m_db->connectionName()).report(sinceMs, cardMinimumSeconds);
    if (!report)
        Q_EMIT reported(generation, {}, report.error());
    else
        Q_EMIT reported(generation, report.value(), {});
}

} // namespace Countersign
