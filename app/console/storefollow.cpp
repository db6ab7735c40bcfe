#include "storefollow.h"

#include "approvalqueue.h"
#include "database.h"

#include <QTimer>

#include <cstdio>

namespace Countersign {

// A store other instances share (PostgreSQL): the queue follows it, so a card any instance raises
// shows here and a card decided anywhere goes. Woken by the store's notifications (every write
// transaction sends one at its commit), coalesced over 50 ms; and every 2 s whatever happens, in
// case a notification is lost (a dropped connection).
void followSharedStore(Database &db, ApprovalQueue *queue)
{
    auto *soon = new QTimer(queue);
    soon->setSingleShot(true);
    soon->setInterval(50);
    auto *fallback = new QTimer(queue);
    fallback->setInterval(2000);
    const auto sync = [queue] {
        if (auto synced = queue->sync(); !synced)
            Q_EMIT queue->storeError(QStringLiteral("cannot read the shared store: %1").arg(synced.error()));
    };
    QObject::connect(soon, &QTimer::timeout, queue, sync);
    QObject::connect(fallback, &QTimer::timeout, queue, sync);
    fallback->start();
    if (auto listening = db.onChange(queue,
                                     [soon] {
                                         if (!soon->isActive())
                                             soon->start();
                                     });
        !listening)
        std::fprintf(stderr, "countersign: warning: %s (polling every 2 s instead)\n",
                     qPrintable(listening.error()));
}

// A SQLite file: other processes write it too (countersign-test-decide, a second console on a copy
// of the folder, a script over the chain). Twice a second the queue asks SQLite whether another
// connection committed since (PRAGMA data_version: one statement, no table read) and only then
// reads the cards again, so a card decided or raised elsewhere shows here within half a second.
void followSqliteFile(Database &db, ApprovalQueue *queue)
{
    auto *poll = new QTimer(queue);
    poll->setInterval(500);
    QObject::connect(poll, &QTimer::timeout, queue, [&db, queue, last = db.dataVersion()]() mutable {
        const std::optional<qint64> now = db.dataVersion();
        if (!now || now == last)
            return;
        last = now;
        if (auto synced = queue->sync(); !synced)
            Q_EMIT queue->storeError(QStringLiteral("cannot read the store: %1").arg(synced.error()));
    });
    poll->start();
}

} // namespace Countersign
