#pragma once

#include "database.h"
#include "result.h"

namespace Countersign {

// One write transaction on a Database, scoped: the constructor begins it (Database::beginWrite: it
// holds the store's write lock from the start), commit() ends it, and the destructor rolls it back
// unless it was committed. Check begun() before writing: a transaction that did not begin holds
// nothing. The store's write calls take one as proof that they run inside it.
class WriteTransaction final
{
public:
    explicit WriteTransaction(Database &database, Durability durability = Durability::Synced);
    ~WriteTransaction();
    Q_DISABLE_COPY_MOVE(WriteTransaction)

    // Success, or why BEGIN failed (the file is read-only, another writer held the lock past the
    // busy timeout).
    const Status &begun() const { return m_begun; }
    // Begun, and neither committed nor rolled back yet.
    bool isOpen() const { return m_open; }
    // Makes every write since the constructor durable, or none of them: when COMMIT fails the
    // transaction stays open and the destructor rolls it back. Fails on a transaction not open.
    Status commit();
    // A number no other transaction of this process has had: what the store's write calls key
    // once-per-transaction checks on.
    quint64 serial() const { return m_serial; }

private:
    Database &m_database;
    Durability m_durability;
    Status m_begun = success();
    bool m_open = false;
    quint64 m_serial = 0;
};

} // namespace Countersign
