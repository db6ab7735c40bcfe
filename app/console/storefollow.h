#pragma once

namespace Countersign {

class ApprovalQueue;
class Database;

// How the window's queue follows cards that other connections write to its store: raised there, or
// decided there (in another console of a team, by countersign-test-decide, by the server thread).
// Both keep timers owned by the queue, which must not outlive db.

// PostgreSQL: woken by the store's notifications, and every 2 s in case one is lost.
void followSharedStore(Database &db, ApprovalQueue *queue);
// SQLite: twice a second, read again only when another connection committed since.
void followSqliteFile(Database &db, ApprovalQueue *queue);

} // namespace Countersign
