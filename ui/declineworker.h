#pragma once

#include "declinequery.h"

#include <QObject>

#include <atomic>
#include <memory>

namespace Countersign {

class Database;

// Reads the Declines view's reports on the thread it lives in (moveToThread), through a read-only
// connection of its own to the store another connection reaches (Database::openReaderOf: the file,
// or the PostgreSQL database), so reads over a large or distant store never hold up the window.
// Asynchronous: each request ends in one reported signal, except a request that a newer one made
// stale before it started, which is dropped.
class DeclineWorker final : public QObject
{
    Q_OBJECT
public:
    // sourceConnection: the window's connection (of another thread) to the store.
    explicit DeclineWorker(QString sourceConnection);
    // Closes the connection: destroy it on its own thread (QThread::finished to deleteLater).
    ~DeclineWorker() override;
    Q_DISABLE_COPY_MOVE(DeclineWorker)

    // From any thread. generation: increasing; only the newest request not yet started runs.
    void request(quint64 generation, qint64 sinceMs, double cardMinimumSeconds);

Q_SIGNALS:
    // error empty: report holds the figures; else it is empty and error says why.
    void reported(quint64 generation, const Countersign::DeclineQuery::Report &report, const QString &error);
    // No connection of its own could be opened (the request is not answered): read elsewhere.
    void unavailable(const QString &error);

private:
    void run(quint64 generation, qint64 sinceMs, double cardMinimumSeconds);

    QString m_source;
    std::unique_ptr<Database> m_db;
    std::atomic<quint64> m_latest{0};
};

} // namespace Countersign
