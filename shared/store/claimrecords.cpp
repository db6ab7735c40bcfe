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

Result<bool> ClaimRecords::insert(const WriteTransaction &transaction, const QString &nonce, qint64 claimedMs,
                                  const QString &instance)
{
    Q_ASSERT(transaction.isOpen());
    // ON CONFLICT DO NOTHING: the primary key on the nonce lets exactly one caller (of every
    // instance sharing the store) claim the run, and only while the operation is approved or allowed.
    auto inserted = m_database.exec(
        StoreSql::kClaimInsert,
        {nonce, claimedMs, instance.isEmpty() ? QVariant(QMetaType(QMetaType::QString)) : instance, nonce});
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
    c.instance = row.value(column(record, "instance")).toString();
    return std::optional<Claim>(std::move(c));
}

Status ClaimRecords::instanceSeen(const QString &id, const QString &name, qint64 startedMs, qint64 seenMs)
{
    if (auto r = m_database.exec(StoreSql::kInstanceSeen, {id, name, startedMs, seenMs}); !r)
        return failure(r.error());
    return success();
}

Status ClaimRecords::instanceGone(const QString &id)
{
    if (auto r = m_database.exec(StoreSql::kInstanceGone, {id}); !r)
        return failure(r.error());
    return success();
}

Result<qint64> ClaimRecords::instanceLastSeen(const QString &id)
{
    auto q = m_database.exec(StoreSql::kInstanceLastSeen, {id});
    if (!q)
        return failure(q.error());
    return q.value().next() ? q.value().value(0).toLongLong() : 0;
}

Result<QList<ClaimRecords::Interrupted>> ClaimRecords::interruptedUnreported(qint64 aliveSinceMs)
{
    auto q = m_database.exec(StoreSql::kClaimsInterruptedUnreported, {aliveSinceMs});
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
