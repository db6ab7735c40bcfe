#include "claimrecords.h"

#include "database.h"
#include "storedvalue.h"
#include "storesql.h"
#include "writetransaction.h"

#include <nlohmann/json.hpp>

#include <QSqlRecord>

namespace Countersign {

using StoredValue::column;

ClaimRecords::ClaimRecords(Database &database) : m_database(database) {}

Result<bool> ClaimRecords::insert(const WriteTransaction &transaction, const QString &nonce, qint64 claimedMs)
{
    Q_ASSERT(transaction.isOpen());
    // INSERT OR IGNORE: the primary key on the nonce lets exactly one caller claim the run, and
    // only while the operation is approved or allowed.
    auto inserted = m_database.exec(StoreSql::kClaimInsert, {nonce, claimedMs, nonce});
    if (!inserted)
        return failure(inserted.error());
    return inserted.value().numRowsAffected() == 1;
}

Result<bool> ClaimRecords::finish(const WriteTransaction &transaction, const QString &nonce,
                                  qint64 finishedMs, const nlohmann::json &result)
{
    Q_ASSERT(transaction.isOpen());
    auto updated =
        m_database.exec(StoreSql::kClaimFinish, {finishedMs, StoredValue::jsonText(result), nonce});
    if (!updated)
        return failure(updated.error());
    return updated.value().numRowsAffected() == 1;
}

Result<std::optional<Claim>> ClaimRecords::find(const QString &nonce)
{
    auto q = m_database.exec(StoreSql::kClaimByNonce, {nonce});
    if (!q)
        return failure(q.error());
    QSqlQuery &row = q.value();
    if (!row.next())
        return std::optional<Claim>();
    const QSqlRecord record = row.record();
    const QVariant finishedMs = row.value(column(record, "finished_ms"));
    Claim c;
    c.claimedMs = row.value(column(record, "claimed_ms")).toLongLong();
    c.finishedMs = finishedMs.isNull() ? 0 : finishedMs.toLongLong();
    if (c.finishedMs)
        c.result = StoredValue::parseJson(row.value(column(record, "result")));
    return std::optional<Claim>(std::move(c));
}

Result<QList<ClaimRecords::Interrupted>> ClaimRecords::interruptedUnreported()
{
    auto q = m_database.exec(StoreSql::kClaimsInterruptedUnreported);
    if (!q)
        return failure(q.error());
    QSqlQuery &row = q.value();
    const QSqlRecord record = row.record();
    const int nonceAt = column(record, "nonce");
    const int toolAt = column(record, "tool");
    const int targetAt = column(record, "target");
    const int claimedMsAt = column(record, "claimed_ms");
    QList<Interrupted> found;
    while (row.next())
        found.append({row.value(nonceAt).toString(), row.value(toolAt).toString(),
                      row.value(targetAt).toString(), row.value(claimedMsAt).toLongLong()});
    return found;
}

} // namespace Countersign
