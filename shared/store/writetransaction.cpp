#include "writetransaction.h"

#include <atomic>

namespace Countersign {

WriteTransaction::WriteTransaction(Database &database, Durability durability)
    : m_database(database), m_durability(durability)
{
    static std::atomic<quint64> next{0};
    m_serial = ++next;
    if (auto begun = m_database.beginWrite(durability); !begun)
        m_begun = failure(begun.error());
    else
        m_open = true;
}

WriteTransaction::~WriteTransaction()
{
    if (!m_open)
        return;
    // Its failure is not reported: it fails when the database has already rolled the transaction
    // back itself (some failed COMMITs do), and otherwise nothing here could do more; the next
    // BEGIN on this connection then fails and says why.
    (void)m_database.endWrite(false, m_durability);
}

Status WriteTransaction::commit()
{
    if (!m_open)
        return failure(m_begun ? QStringLiteral("database error: no transaction is open") : m_begun.error());
    if (auto committed = m_database.endWrite(true, m_durability); !committed)
        return committed; // still open: the destructor rolls it back
    m_open = false;
    return success();
}

} // namespace Countersign
