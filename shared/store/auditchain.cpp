#include "auditchain.h"

#include "canonicaljson.h"
#include "clock.h"
#include "database.h"
#include "receipt.h"
#include "storedvalue.h"
#include "storesql.h"
#include "writetransaction.h"

#include <nlohmann/json.hpp>

#include <utility>

#include <QHash>
#include <QMap>
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
    if (auto guarded = guardHeadOnce(transaction); !guarded)
        return guarded;
    auto last = head();
    if (!last)
        return failure(last.error());
    return insertRow(last.value().seq + 1, last.value().hash, event, nonce, detail);
}

// The head this process (or another holding the key) signed last must name the last row: rows
// written, cut or rewritten around the store since are recorded (kChangedAround) before anything
// else is, once per transaction, whether it appends or only signs. A head that was signed and is
// now gone, or a log cut below the head this process itself signed last, counts too.
Status AuditChain::guardHeadOnce(const WriteTransaction &transaction)
{
    if (m_headKey.isEmpty() || transaction.serial() == m_headCheckedIn)
        return success();
    m_headCheckedIn = transaction.serial();
    auto last = head();
    if (!last)
        return failure(last.error());
    auto problem = checkHead(last.value().seq, last.value().hash, m_headKey);
    if (!problem)
        return failure(problem.error());
    QString found = problem.value();
    if (found.isEmpty() && m_lastSigned && m_lastSigned->seq > 0) {
        auto held = hashAt(m_lastSigned->seq);
        if (!held)
            return failure(held.error());
        if (held.value() != m_lastSigned->hash)
            found = QStringLiteral(
                        "the log no longer holds row %1 as this Countersign signed it last (cut back, or "
                        "rewritten, to an older signed head)")
                        .arg(m_lastSigned->seq);
    }
    if (found.isEmpty())
        return success();
    qWarning("countersign: the audit log was changed around Countersign: %s", qPrintable(found));
    return insertRow(last.value().seq + 1, last.value().hash, QLatin1String(kChangedAround), QString(),
                     {{"problem", found.toStdString()}, {"lastSeq", last.value().seq}});
}

Status AuditChain::insertRow(qint64 seq, const QString &prev, const QString &event, const QString &nonce,
                             const json &detail, QString *hashOut)
{
    const qint64 at = m_clock.nowMs();
    const QString hash = hashLink(prev, hashedFields(seq, at, event, nonce, detail));
    auto inserted = m_database.exec(StoreSql::kAuditInsert, {seq, at, event, StoredValue::notNull(nonce),
                                                             StoredValue::jsonText(detail), prev, hash});
    if (!inserted)
        return failure(inserted.error());
    if (hashOut)
        *hashOut = hash;
    return success();
}

json AuditChain::headBody(const Head &head)
{
    return {{"kind", "countersign/audit-head"}, {"seq", head.seq}, {"hash", head.hash.toStdString()}};
}

json AuditChain::decisionBody(const QString &nonce, const QString &outcome, const QString &by,
                              const QString &reason, qint64 decidedMs)
{
    return {{"kind", "countersign/decision"},   {"nonce", nonce.toStdString()},
            {"outcome", outcome.toStdString()}, {"by", by.toStdString()},
            {"reason", reason.toStdString()},   {"decidedMs", decidedMs}};
}

Status AuditChain::signHead(const WriteTransaction &transaction, const ReceiptSigner &signer)
{
    Q_ASSERT(transaction.isOpen());
    // A transaction that only signs (a start with nothing to report) checks the head first too.
    if (auto guarded = guardHeadOnce(transaction); !guarded)
        return guarded;
    auto current = head();
    if (!current)
        return failure(current.error());
    auto updated =
        m_database.exec(StoreSql::kHeadSet, {StoredValue::jsonText(signer.sign(headBody(current.value())))});
    if (!updated)
        return failure(updated.error());
    m_pendingSigned = current.value(); // the last signed only once its transaction commits
    return success();
}

void AuditChain::committed()
{
    if (m_pendingSigned)
        m_lastSigned = std::exchange(m_pendingSigned, std::nullopt);
}

Result<AuditChain::Head> AuditChain::head()
{
    auto last = m_database.exec(StoreSql::kAuditLast);
    if (!last)
        return failure(last.error());
    Head head;
    if (QSqlQuery &q = last.value(); q.next()) {
        head.seq = q.value(StoredValue::column(q.record(), "seq")).toLongLong();
        head.hash = q.value(StoredValue::column(q.record(), "hash")).toString();
    }
    return head;
}

Result<json> AuditChain::lastEvent(const QString &event)
{
    auto q = m_database.exec(StoreSql::kAuditLastEvent, {event});
    if (!q)
        return failure(q.error());
    if (!q.value().next())
        return json();
    const QByteArray text = q.value().value(0).toByteArray();
    return json::parse(text.cbegin(), text.cend(), nullptr, false);
}

Result<QString> AuditChain::hashAt(qint64 seq)
{
    auto q = m_database.exec(StoreSql::kAuditHashAt, {seq});
    if (!q)
        return failure(q.error());
    return q.value().next() ? q.value().value(0).toString() : QString();
}

Status AuditChain::checkpoint(const WriteTransaction &transaction, const ReceiptSigner &signer)
{
    Q_ASSERT(transaction.isOpen());
    auto current = head();
    if (!current)
        return failure(current.error());
    const json signedHead = signer.sign(headBody(current.value()));
    auto inserted = m_database.exec(StoreSql::kCheckpointInsert,
                                    {current.value().seq, StoredValue::jsonText(signedHead)});
    if (!inserted)
        return failure(inserted.error());
    return success();
}

namespace {

} // namespace

// A signed head (a checkpoint, or the log's head) signed with publicKey; or why not.
Result<AuditChain::Head> AuditChain::signedHead(const QByteArray &signedText, const QByteArray &publicKey)
{
    const json signedBody = json::parse(signedText.cbegin(), signedText.cend(), nullptr, false);
    if (!signedBody.is_object())
        return failure(QStringLiteral("not JSON"));
    if (auto ok = ReceiptSigner::verify(signedBody, publicKey); !ok)
        return failure(ok.error());
    const json seqField = signedBody.value("seq", json());
    const json hashField = signedBody.value("hash", json());
    if (signedBody.value("kind", json()) != "countersign/audit-head" || !seqField.is_number_integer() ||
        !hashField.is_string())
        return failure(QStringLiteral("it signs something else than a head"));
    return Head{seqField.get<qint64>(), QString::fromStdString(hashField.get<std::string>())};
}

namespace {

// A checkpoint row's signed head, when it is one signed with publicKey for seq; or why not.
Result<QString> checkpointHash(qint64 seq, const QByteArray &signedText, const QByteArray &publicKey)
{
    auto head = AuditChain::signedHead(signedText, publicKey);
    if (!head)
        return failure(QStringLiteral("checkpoint %1: %2").arg(seq).arg(head.error()));
    if (head.value().seq != seq)
        return failure(QStringLiteral("checkpoint %1 signs another row").arg(seq));
    return head.value().hash;
}

// A decision row's own signature: made with publicKey over this row's nonce, outcome, by, reason
// and time; or why not.
Status decisionSigned(const QString &nonce, const QString &event, const json &detail,
                      const QByteArray &publicKey)
{
    const json signedDecision = detail.is_object() ? detail.value("signed", json()) : json();
    if (!signedDecision.is_object())
        return failure(QStringLiteral("the %1 row for %2 carries no signature").arg(event, nonce));
    if (auto ok = ReceiptSigner::verify(signedDecision, publicKey); !ok)
        return failure(QStringLiteral("the %1 row for %2: %3").arg(event, nonce, ok.error()));
    const auto field = [&](const char *key) { return detail.value(key, json()); };
    const json expected = AuditChain::decisionBody(
        nonce, event, QString::fromStdString(field("by").is_string() ? field("by").get<std::string>() : ""),
        QString::fromStdString(field("reason").is_string() ? field("reason").get<std::string>() : ""),
        field("decidedMs").is_number_integer() ? field("decidedMs").get<qint64>() : -1);
    for (const auto &[key, value] : expected.items()) {
        if (signedDecision.value(key, json()) != value)
            return failure(QStringLiteral("the %1 row for %2 is not the decision its signature signs")
                               .arg(event, nonce));
    }
    return success();
}

} // namespace

Result<bool> AuditChain::records(const QString &nonce, const QString &event)
{
    auto first = m_database.exec(StoreSql::kAuditFirstOf, {nonce, event});
    if (!first)
        return failure(first.error());
    return first.value().next();
}

Result<QList<json>> AuditChain::detailsOf(const QString &nonce, const QString &event)
{
    auto q = m_database.exec(StoreSql::kAuditDetailsOf, {nonce, event});
    if (!q)
        return failure(q.error());
    QList<json> details;
    while (q.value().next()) {
        const QByteArray text = q.value().value(1).toByteArray();
        json detail = json::parse(text.cbegin(), text.cend(), nullptr, false);
        if (detail.is_discarded())
            return failure(QStringLiteral("audit row %1 holds no JSON").arg(q.value().value(0).toLongLong()));
        details.append(std::move(detail));
    }
    return details;
}

Result<QList<AuditChain::EventRow>> AuditChain::eventsSince(const QString &event, qint64 sinceMs)
{
    auto q = m_database.exec(StoreSql::kAuditEventsSince, {event, sinceMs});
    if (!q)
        return failure(q.error());
    QList<EventRow> rows;
    while (q.value().next()) {
        const QByteArray text = q.value().value(3).toByteArray();
        json detail = json::parse(text.cbegin(), text.cend(), nullptr, false);
        if (detail.is_discarded())
            return failure(QStringLiteral("audit row %1 holds no JSON").arg(q.value().value(0).toLongLong()));
        rows.append(EventRow{q.value().value(1).toString(), q.value().value(2).toLongLong(),
                             std::move(detail), event, q.value().value(0).toLongLong()});
    }
    return rows;
}

Result<QList<AuditChain::EventRow>> AuditChain::eventsAfter(const QString &first, const QString &second,
                                                            qint64 afterSeq)
{
    auto q = m_database.exec(StoreSql::kAuditEventsAfter, {afterSeq, first, second});
    if (!q)
        return failure(q.error());
    QList<EventRow> rows;
    while (q.value().next()) {
        const QByteArray text = q.value().value(4).toByteArray();
        json detail = json::parse(text.cbegin(), text.cend(), nullptr, false);
        if (detail.is_discarded())
            return failure(QStringLiteral("audit row %1 holds no JSON").arg(q.value().value(0).toLongLong()));
        rows.append(EventRow{q.value().value(1).toString(), q.value().value(2).toLongLong(),
                             std::move(detail), q.value().value(3).toString(),
                             q.value().value(0).toLongLong()});
    }
    return rows;
}

Result<QStringList> AuditChain::signedReviewers(const QString &nonce, const QByteArray &publicKey)
{
    const QString event = QStringLiteral("reviewed");
    auto rows = detailsOf(nonce, event);
    if (!rows)
        return failure(rows.error());
    QStringList reviewers;
    for (const json &detail : rows.value()) {
        if (auto signedRow = decisionSigned(nonce, event, detail, publicKey); !signedRow)
            return failure(signedRow.error());
        reviewers.append(QString::fromStdString(detail.value("by", std::string())));
    }
    return reviewers;
}

Status AuditChain::certify(const QString &nonce, const QString &event, const json &expected,
                           const QByteArray &publicKey, Row kind)
{
    auto first = m_database.exec(StoreSql::kAuditFirstOf, {nonce, event});
    if (!first)
        return failure(first.error());
    if (!first.value().next())
        return failure(QStringLiteral("no %1 row for %2 in the audit log").arg(event, nonce));
    const qint64 seq = first.value().value(0).toLongLong();
    auto covering = m_database.exec(StoreSql::kCheckpointCovering, {seq});
    if (!covering)
        return failure(covering.error());
    if (!covering.value().next())
        return failure(QStringLiteral("no signed checkpoint covers audit row %1").arg(seq));
    const qint64 checkpointSeq = covering.value().value(0).toLongLong();
    auto signedHash = checkpointHash(checkpointSeq, covering.value().value(1).toByteArray(), publicKey);
    if (!signedHash)
        return failure(signedHash.error());
    auto rows = m_database.exec(StoreSql::kAuditFrom, {seq, checkpointSeq});
    if (!rows)
        return failure(rows.error());
    QSqlQuery &row = rows.value();
    const QSqlRecord record = row.record();
    qint64 expectedSeq = seq;
    QString prev;
    while (row.next()) {
        const qint64 at = row.value(StoredValue::column(record, "seq")).toLongLong();
        const QString prevHash = row.value(StoredValue::column(record, "prev_hash")).toString();
        const QByteArray detailText = row.value(StoredValue::column(record, "detail")).toByteArray();
        const json detail = json::parse(detailText.cbegin(), detailText.cend(), nullptr, false);
        if (at != expectedSeq || (!prev.isEmpty() && prevHash != prev) || detail.is_discarded())
            return failure(QStringLiteral("audit row %1 does not link").arg(at));
        const QString hash = hashLink(
            prevHash, hashedFields(at, row.value(StoredValue::column(record, "at_ms")).toLongLong(),
                                   row.value(StoredValue::column(record, "event")).toString(),
                                   row.value(StoredValue::column(record, "nonce")).toString(), detail));
        if (hash != row.value(StoredValue::column(record, "hash")).toString())
            return failure(QStringLiteral("audit row %1 was altered").arg(at));
        if (at == seq) {
            if (kind == Row::Decision) {
                if (auto signedRow = decisionSigned(nonce, event, detail, publicKey); !signedRow)
                    return signedRow;
            }
            for (const auto &[key, value] : expected.items()) {
                if (detail.value(key, json()) != value)
                    return failure(QStringLiteral("audit row %1 records another %2")
                                       .arg(at)
                                       .arg(QString::fromStdString(key)));
            }
        }
        prev = hash;
        ++expectedSeq;
    }
    if (expectedSeq != checkpointSeq + 1 || prev != signedHash.value())
        return failure(
            QStringLiteral("the signed checkpoint %1 does not match the audit log").arg(checkpointSeq));
    return success();
}

Result<AuditChain::Report> AuditChain::verify(const QByteArray &publicKey)
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
    // The checkpoints first, so that only the hashes of their rows are kept during the walk.
    QMap<qint64, QByteArray> checkpoints;
    {
        auto all = m_database.exec(StoreSql::kCheckpointAll);
        if (!all)
            return failure(all.error());
        while (all.value().next())
            checkpoints.insert(all.value().value(0).toLongLong(), all.value().value(1).toByteArray());
    }
    QHash<qint64, QString> hashes;
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
        if (checkpoints.contains(seq))
            hashes.insert(seq, hash);
        ++expectedSeq;
    }
    if (publicKey.isEmpty() && !checkpoints.isEmpty()) {
        report.firstBrokenSeq = checkpoints.firstKey();
        report.problem =
            QStringLiteral("the log holds %1 signed checkpoints and there is no key to check them "
                           "with (pass --public-key)")
                .arg(checkpoints.size());
        return report;
    }
    for (auto it = checkpoints.cbegin(); it != checkpoints.cend(); ++it) {
        const qint64 seq = it.key();
        ++report.checkpoints;
        auto signedHash = checkpointHash(seq, it.value(), publicKey);
        QString problem;
        if (!signedHash)
            problem = signedHash.error();
        else if (!hashes.contains(seq))
            problem =
                QStringLiteral("the signed checkpoint at row %1 names a row that is gone: the log was cut "
                               "after it")
                    .arg(seq);
        else if (hashes.value(seq) != signedHash.value())
            problem = QStringLiteral("rows up to %1 were rewritten: the signed checkpoint holds another hash")
                          .arg(seq);
        if (!problem.isEmpty()) {
            report.firstBrokenSeq = seq;
            report.problem = problem;
            return report;
        }
    }
    if (auto problem = checkHead(expectedSeq - 1, prev, publicKey); !problem) {
        return failure(problem.error());
    } else if (!problem.value().isEmpty()) {
        report.firstBrokenSeq = expectedSeq - 1;
        report.problem = problem.value();
        return report;
    }
    // A write that found the log changed around Countersign recorded it: the change stays found.
    auto changed = m_database.exec(StoreSql::kAuditChangedAround, {QLatin1String(kChangedAround)});
    if (!changed)
        return failure(changed.error());
    if (QSqlQuery &c = changed.value(); c.next()) {
        const QByteArray detailText = c.value(1).toByteArray();
        const json detail = json::parse(detailText.cbegin(), detailText.cend(), nullptr, false);
        report.firstBrokenSeq = c.value(0).toLongLong();
        report.problem = QStringLiteral("the log was changed around Countersign before row %1 (found by the "
                                        "write that recorded row %1): %2")
                             .arg(report.firstBrokenSeq)
                             .arg(detail.is_object() && detail.value("problem", json()).is_string()
                                      ? QString::fromStdString(detail.at("problem").get<std::string>())
                                      : QStringLiteral("(no detail)"));
        return report;
    }
    // Every decision since signing began carries its own signature.
    auto decisions = m_database.exec(StoreSql::kAuditDecisionRows);
    if (!decisions)
        return failure(decisions.error());
    while (decisions.value().next()) {
        const QSqlQuery &d = decisions.value();
        const QByteArray detailText = d.value(3).toByteArray();
        const json detail = json::parse(detailText.cbegin(), detailText.cend(), nullptr, false);
        if (auto ok = decisionSigned(d.value(1).toString(), d.value(2).toString(), detail, publicKey); !ok) {
            report.firstBrokenSeq = d.value(0).toLongLong();
            report.problem = ok.error();
            return report;
        }
    }
    return report;
}

// The signed head after the last write: it must name the last row, with its hash.
Result<QString> AuditChain::checkHead(qint64 lastSeq, const QString &lastHash, const QByteArray &publicKey)
{
    auto q = m_database.exec(StoreSql::kHeadGet);
    if (!q)
        return failure(q.error());
    if (!q.value().next())
        return QStringLiteral("the log's signed head is missing");
    const qint64 unsignedUntil = q.value().value(0).toLongLong();
    if (q.value().value(1).isNull()) {
        // Signing began with the first checkpoint: a head that is gone since was removed.
        auto checkpoints = m_database.exec(StoreSql::kCheckpointAny);
        if (!checkpoints)
            return failure(checkpoints.error());
        if (checkpoints.value().next())
            return QStringLiteral(
                "the log's signed head was removed (its signed checkpoints show it was signed)");
    }
    if (q.value().value(1).isNull())
        return lastSeq > unsignedUntil
                   ? QStringLiteral("rows after %1 were written, and the log's head was never signed")
                         .arg(unsignedUntil)
                   : QString();
    if (publicKey.isEmpty())
        return QStringLiteral(
            "the log's head is signed and there is no key to check it with (pass --public-key)");
    auto head = signedHead(q.value().value(1).toByteArray(), publicKey);
    if (!head)
        return QStringLiteral("the log's head: %1").arg(head.error());
    if (head.value().seq > lastSeq)
        return QStringLiteral("the log was cut after row %1: its signed head is row %2")
            .arg(lastSeq)
            .arg(head.value().seq);
    if (head.value().seq < lastSeq)
        return QStringLiteral("rows %1 to %2 were written around Countersign: its signed head is row %3")
            .arg(head.value().seq + 1)
            .arg(lastSeq)
            .arg(head.value().seq);
    if (head.value().hash != lastHash)
        return QStringLiteral("the log was rewritten: its signed head holds another hash for row %1")
            .arg(lastSeq);
    return QString();
}

} // namespace Countersign
