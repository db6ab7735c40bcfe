#include "writetransaction.h"

#include "database.h"
#include "storesql.h"

#include <QLoggingCategory>

Q_DECLARE_LOGGING_CATEGORY(lcStore) // database.cpp

namespace Countersign {

WriteTransaction::WriteTransaction(Database &database, Durability durability) : m_database(database)
{
    // synchronous is the connection's setting, read at each COMMIT: set for this transaction only
    // (it cannot change inside one), and put back by end().
    if (durability == Durability::Relaxed) {
        if (auto relaxed = m_database.exec(StoreSql::kSyncRelaxed); !relaxed) {
            m_begun = failure(relaxed.error()); // inside another transaction, for one
            return;
        }
        m_relaxed = true;
    }
    // IMMEDIATE takes the write lock up front: two connections appending to the audit chain never
    // both read the same last link (a deferred BEGIN would take it only at the first write).
    if (auto begun = m_database.exec(StoreSql::kBeginImmediate); !begun) {
        m_begun = failure(begun.error());
        end(nullptr, nullptr);
    } else {
        m_open = true;
    }
}

WriteTransaction::~WriteTransaction()
{
    if (!m_open)
        return;
    // Its failure is not reported: it fails when SQLite has already rolled the transaction back
    // itself (some failed COMMITs do), and otherwise nothing here could do more; the next BEGIN on
    // this connection then fails and says why.
    end(StoreSql::kRollback, nullptr);
}

Status WriteTransaction::commit()
{
    if (!m_open)
        return failure(m_begun ? QStringLiteral("database error: no transaction is open") : m_begun.error());
    Status committed = success();
    end(StoreSql::kCommit, &committed);
    return committed;
}

// Runs COMMIT or ROLLBACK (statement; none when BEGIN failed) and puts the connection's
// durability back. A COMMIT that fails leaves the transaction open for the destructor.
void WriteTransaction::end(const char *statement, Status *outcome)
{
    if (statement) {
        auto ended = m_database.exec(statement);
        if (!ended && outcome) {
            *outcome = failure(ended.error());
            return;
        }
        m_open = false;
    }
    if (m_relaxed) {
        m_relaxed = false;
        // Every later commit on this connection would be relaxed too: say so loudly.
        if (auto restored = m_database.exec(StoreSql::kSyncFull); !restored) {
            qCCritical(lcStore) << "cannot restore synchronous commits:" << restored.error();
            if (outcome)
                *outcome = failure(restored.error());
        }
    }
}

} // namespace Countersign
