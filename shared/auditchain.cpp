#include "auditchain.h"

#include "canonicaljson.h"
#include "clock.h"
#include "database.h"
#include "storedvalue.h"
#include "storesql.h"
#include "writetransaction.h"

#include <nlohmann/json.hpp>

#include <QSqlRecord>

namespace Countersign {

namespace {

using json = nlohmann::json;

// The hashed fields are the row's canonical JSON, so the hash does not depend on how SQLite or
// this code formats numbers or orders keys.
json hashedFields(qint64 seq, qint64 atMs, const QString &event, const QString &nonce, const json &detail)
{
    return {{"seq", seq},
            {"at", atMs},
            {"event", event.toStdString()},
            {"nonce", nonce.toStdString()},
            {"detail", detail}};
}

QString hashLink(const QString &prevHash, const json &fields)
{
    return QString::fromLatin1(CanonicalJson::sha256Hex(
        prevHash.toLatin1() + '|' + QByteArray::fromStdString(CanonicalJson::serialize(fields))));
}

} // namespace

AuditChain::AuditChain(Database &database, const Clock &clock) : m_database(database), m_clock(clock) {}

Status AuditChain::append(const WriteTransaction &transaction, const QString &event, const QString &nonce,
                          const json &detail)
{
    Q_ASSERT(transaction.isOpen());
    auto last = m_database.exec(StoreSql::kAuditLast);
    if (!last)
        return failure(last.error());
    qint64 seq = 1;
    QString prev = QLatin1String(kGenesisHash);
    if (QSqlQuery &q = last.value(); q.next()) {
        seq = q.value(StoredValue::column(q.record(), "seq")).toLongLong() + 1;
        prev = q.value(StoredValue::column(q.record(), "hash")).toString();
    }
    const qint64 at = m_clock.nowMs();
    const QString hash = hashLink(prev, hashedFields(seq, at, event, nonce, detail));
    auto inserted = m_database.exec(StoreSql::kAuditInsert, {seq, at, event, StoredValue::notNull(nonce),
                                                             StoredValue::jsonText(detail), prev, hash});
    if (!inserted)
        return failure(inserted.error());
    return success();
}

Result<AuditChain::Report> AuditChain::verify()
{
    auto q = m_database.exec(StoreSql::kAuditAll);
    if (!q)
        return failure(q.error());
    QSqlQuery &row = q.value();
    // Positions looked up once: the log can hold millions of rows.
    const QSqlRecord record = row.record();
    const int seqAt = StoredValue::column(record, "seq");
    const int atMsAt = StoredValue::column(record, "at_ms");
    const int eventAt = StoredValue::column(record, "event");
    const int nonceAt = StoredValue::column(record, "nonce");
    const int detailAt = StoredValue::column(record, "detail");
    const int prevHashAt = StoredValue::column(record, "prev_hash");
    const int hashAt = StoredValue::column(record, "hash");

    Report report;
    QString prev = QLatin1String(kGenesisHash);
    qint64 expectedSeq = 1;
    while (row.next()) {
        const qint64 seq = row.value(seqAt).toLongLong();
        ++report.rows;
        const auto broken = [&](const QString &problem) {
            report.firstBrokenSeq = seq;
            report.problem = problem;
            return report;
        };
        if (seq != expectedSeq)
            return broken(
                QStringLiteral("row %1 follows row %2: rows are missing").arg(seq).arg(expectedSeq - 1));
        if (row.value(prevHashAt).toString() != prev)
            return broken(QStringLiteral("row %1 does not link to the hash of row %2").arg(seq).arg(seq - 1));
        const QByteArray detailText = row.value(detailAt).toByteArray();
        const json detail = json::parse(detailText.cbegin(), detailText.cend(), nullptr, false);
        if (detail.is_discarded())
            return broken(QStringLiteral("row %1: its detail is not JSON").arg(seq));
        const QString hash =
            hashLink(prev, hashedFields(seq, row.value(atMsAt).toLongLong(), row.value(eventAt).toString(),
                                        row.value(nonceAt).toString(), detail));
        if (hash != row.value(hashAt).toString())
            return broken(
                QStringLiteral("row %1 was altered: its hash does not match its contents").arg(seq));
        prev = hash;
        ++expectedSeq;
    }
    return report;
}

} // namespace Countersign
