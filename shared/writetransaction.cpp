#include "writetransaction.h"

#include "database.h"
#include "storesql.h"

namespace Countersign {

WriteTransaction::WriteTransaction(Database &database) : m_database(database)
{
    // IMMEDIATE takes the write lock up front: two connections appending to the audit chain never
    // both read the same last link (a deferred BEGIN would take it only at the first write).
    if (auto begun = m_database.exec(StoreSql::kBeginImmediate); !begun)
        m_begun = failure(begun.error());
    else
        m_open = true;
}

WriteTransaction::~WriteTransaction()
{
    if (!m_open)
        return;
    // Its failure is not reported: it fails when SQLite has already rolled the transaction back
    // itself (some failed COMMITs do), and otherwise nothing here could do more; the next BEGIN on
    // this connection then fails and says why.
    (void)m_database.exec(StoreSql::kRollback);
}

Status WriteTransaction::commit()
{
    if (!m_open)
        return failure(m_begun ? QStringLiteral("database error: no transaction is open") : m_begun.error());
    if (auto committed = m_database.exec(StoreSql::kCommit); !committed)
        return failure(committed.error());
    m_open = false;
    return success();
}

} // namespace Countersign
