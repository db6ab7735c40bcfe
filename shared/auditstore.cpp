#include "auditstore.h"

#include "canonicaljson.h"
#include "clock.h"
#include "database.h"
#include "storesql.h"

#include <QSqlQuery>

namespace Countersign {

namespace {

using json = nlohmann::json;

json parseStored(const QVariant &value)
{
    const QByteArray text = value.toByteArray();
    json parsed = json::parse(text.cbegin(), text.cend(), nullptr, false);
    return parsed.is_discarded() ? json() : parsed;
}

// Qt binds a null QString as SQL NULL; every text column here is NOT NULL, and empty is a value.
QString nn(const QString &s)
{
    return s.isNull() ? QStringLiteral("") : s;
}

std::string text(const QString &s)
{
    return s.toStdString();
}

QString hashLink(const QString &prevHash, const json &row)
{
    return QString::fromLatin1(CanonicalJson::sha256Hex(
        prevHash.toLatin1() + '|' + QByteArray::fromStdString(CanonicalJson::serialize(row))));
}

Result<Operation> operationFromRow(const QSqlQuery &q)
{
    Operation op;
    op.nonce = q.value(0).toString();
    op.tool = q.value(1).toString();
    op.principal = q.value(2).toString();
    op.clientInfo = parseStored(q.value(3));
    op.arguments = parseStored(q.value(4));
    op.argsDigest = q.value(5).toString();
    auto plan = Plan::fromJson(parseStored(q.value(6)));
    if (!plan)
        return failure(QStringLiteral("operation %1: stored %2").arg(op.nonce, plan.error()));
    op.plan = std::move(plan).value();
    op.planDigest = q.value(7).toString();
    op.approvalMode =
        q.value(9).toString() == QLatin1String("client") ? ApprovalMode::Client : ApprovalMode::Console;
    op.rule = q.value(10).toString();
    op.traceparent = q.value(11).toString();
    op.createdMs = q.value(12).toLongLong();
    op.expiresMs = q.value(13).toLongLong();
    op.supersedes = q.value(14).toString();
    const auto status = parseStatus(q.value(15).toString());
    if (!status)
        return failure(
            QStringLiteral("operation %1: unknown status %2").arg(op.nonce, q.value(15).toString()));
    op.status = *status;
    return op;
}

} // namespace

AuditStore::AuditStore(Database &database, const Clock &clock) : m_db(database), m_clock(clock) {}

template <typename Fn> Status AuditStore::writeTransaction(Fn &&body)
{
    // IMMEDIATE takes the write lock up front: two connections appending to the chain never both
    // read the same last link.
    if (auto begun = m_db.exec(StoreSql::kBeginImmediate); !begun)
        return failure(begun.error());
    Status result = body();
    if (!result) {
        (void)m_db.exec(StoreSql::kRollback);
        return result;
    }
    if (auto committed = m_db.exec(StoreSql::kCommit); !committed) {
        (void)m_db.exec(StoreSql::kRollback);
        return failure(committed.error());
    }
    return success();
}

Status AuditStore::append(const char *event, const QString &nonce, const json &detail)
{
    auto last = m_db.exec(StoreSql::kAuditLast);
    if (!last)
        return failure(last.error());
    qint64 seq = 1;
    QString prev = QLatin1String(kGenesisHash);
    if (last.value().next()) {
        seq = last.value().value(0).toLongLong() + 1;
        prev = last.value().value(1).toString();
    }
    const qint64 at = m_clock.nowMs();
    const json row = {{"seq", seq}, {"at", at}, {"event", event}, {"nonce", text(nonce)}, {"detail", detail}};
    auto inserted =
        m_db.exec(StoreSql::kAuditInsert,
                  {seq, at, QString::fromLatin1(event), nn(nonce),
                   QString::fromStdString(CanonicalJson::serialize(detail)), prev, hashLink(prev, row)});
    if (!inserted)
        return failure(inserted.error());
    return success();
}

Status AuditStore::recordOperation(const Operation &op)
{
    return writeTransaction([&]() -> Status {
        auto inserted = m_db.exec(
            StoreSql::kOperationInsert,
            {nn(op.nonce), nn(op.tool), nn(op.principal),
             QString::fromStdString(CanonicalJson::serialize(op.clientInfo)),
             QString::fromStdString(CanonicalJson::serialize(op.arguments)), nn(op.argsDigest),
             QString::fromStdString(CanonicalJson::serialize(op.plan.toJson())), nn(op.planDigest),
             riskName(op.plan.risk),
             op.approvalMode == ApprovalMode::Client ? QStringLiteral("client") : QStringLiteral("console"),
             nn(op.rule), nn(op.traceparent), op.createdMs, op.expiresMs,
             op.supersedes.isEmpty() ? QVariant() : QVariant(op.supersedes), statusName(op.status)});
        if (!inserted)
            return failure(inserted.error());
        const char *event = op.status == Operation::Status::Pending ? "minted" : "settled-by-rule";
        return append(event, op.nonce,
                      {{"tool", text(op.tool)},
                       {"principal", text(op.principal)},
                       {"client", op.clientInfo},
                       {"argsDigest", text(op.argsDigest)},
                       {"planDigest", text(op.planDigest)},
                       {"status", text(statusName(op.status))},
                       {"rule", text(op.rule)},
                       {"expiresMs", op.expiresMs},
                       {"supersedes", text(op.supersedes)}});
    });
}

Result<std::optional<Operation>> AuditStore::operation(const QString &nonce)
{
    auto q = m_db.exec(StoreSql::kOperationByNonce, {nonce});
    if (!q)
        return failure(q.error());
    if (!q.value().next())
        return std::optional<Operation>();
    auto op = operationFromRow(q.value());
    if (!op)
        return failure(op.error());
    return std::optional<Operation>(std::move(op).value());
}

Result<QList<Operation>> AuditStore::pendingOperations()
{
    auto q = m_db.exec(StoreSql::kOperationsPending);
    if (!q)
        return failure(q.error());
    QList<Operation> out;
    while (q.value().next()) {
        auto op = operationFromRow(q.value());
        if (!op)
            return failure(op.error());
        out.append(std::move(op).value());
    }
    return out;
}

Result<int> AuditStore::pendingCount(const QString &principal)
{
    auto q = m_db.exec(StoreSql::kOperationsPendingFor, {principal, m_clock.nowMs()});
    if (!q)
        return failure(q.error());
    return q.value().next() ? q.value().value(0).toInt() : 0;
}

Result<Decision> AuditStore::decide(const QString &nonce, const Decision &decision)
{
    static constexpr Operation::Status kDecidable[] = {
        Operation::Status::Approved, Operation::Status::Declined, Operation::Status::Expired,
        Operation::Status::Superseded};
    if (std::find(std::begin(kDecidable), std::end(kDecidable), decision.outcome) == std::end(kDecidable))
        return failure(QStringLiteral("not a decision: %1").arg(statusName(decision.outcome)));
    Status written = writeTransaction([&]() -> Status {
        auto op = m_db.exec(StoreSql::kOperationByNonce, {nonce});
        if (!op)
            return failure(op.error());
        if (!op.value().next())
            return failure(QStringLiteral("no operation %1").arg(nonce));
        if (op.value().value(15).toString() != QLatin1String("pending"))
            return success(); // decided before: the stored decision stands
        auto inserted =
            m_db.exec(StoreSql::kDecisionInsert, {nonce, statusName(decision.outcome), nn(decision.by),
                                                  nn(decision.reason), decision.atMs});
        if (!inserted)
            return failure(inserted.error());
        if (inserted.value().numRowsAffected() != 1)
            return success();
        if (auto updated = m_db.exec(StoreSql::kOperationSetStatus, {statusName(decision.outcome), nonce});
            !updated)
            return failure(updated.error());
        return append(
            statusName(decision.outcome).toLatin1().constData(), nonce,
            {{"by", text(decision.by)}, {"reason", text(decision.reason)}, {"decidedMs", decision.atMs}});
    });
    if (!written)
        return failure(written.error());
    auto stored = this->decision(nonce);
    if (!stored)
        return failure(stored.error());
    if (!stored.value())
        return failure(QStringLiteral("operation %1 was settled without a decision (%2)")
                           .arg(nonce, QStringLiteral("rule")));
    return *stored.value();
}

Result<std::optional<Decision>> AuditStore::decision(const QString &nonce)
{
    auto q = m_db.exec(StoreSql::kDecisionByNonce, {nonce});
    if (!q)
        return failure(q.error());
    if (!q.value().next())
        return std::optional<Decision>();
    Decision d;
    d.outcome = parseStatus(q.value().value(0).toString()).value_or(Operation::Status::Declined);
    d.by = q.value().value(1).toString();
    d.reason = q.value().value(2).toString();
    d.atMs = q.value().value(3).toLongLong();
    return std::optional<Decision>(d);
}

Status AuditStore::supersede(const QString &nonce, const QString &byNonce)
{
    return writeTransaction([&]() -> Status {
        auto updated = m_db.exec(StoreSql::kOperationSupersede, {nonce});
        if (!updated)
            return failure(updated.error());
        if (updated.value().numRowsAffected() != 1)
            return success(); // settled otherwise already
        return append("superseded", nonce, {{"by", text(byNonce)}, {"reason", "the plan changed"}});
    });
}

Result<bool> AuditStore::claim(const QString &nonce)
{
    bool claimed = false;
    Status written = writeTransaction([&]() -> Status {
        auto inserted = m_db.exec(StoreSql::kClaimInsert, {nonce, m_clock.nowMs()});
        if (!inserted)
            return failure(inserted.error());
        claimed = inserted.value().numRowsAffected() == 1;
        if (!claimed)
            return success();
        return append("claimed", nonce, json::object());
    });
    if (!written)
        return failure(written.error());
    return claimed;
}

Status AuditStore::finishClaim(const QString &nonce, const json &result)
{
    return writeTransaction([&]() -> Status {
        const qint64 now = m_clock.nowMs();
        auto updated = m_db.exec(StoreSql::kClaimFinish,
                                 {now, QString::fromStdString(CanonicalJson::serialize(result)), nonce});
        if (!updated)
            return failure(updated.error());
        if (updated.value().numRowsAffected() != 1)
            return failure(QStringLiteral("claim %1 is missing or finished already").arg(nonce));
        const bool failed = result.value("isError", false);
        return append(failed ? "run-failed" : "run-succeeded", nonce,
                      {{"resultDigest", CanonicalJson::digest(result).toStdString()}});
    });
}

Result<std::optional<Claim>> AuditStore::claimOf(const QString &nonce)
{
    auto q = m_db.exec(StoreSql::kClaimByNonce, {nonce});
    if (!q)
        return failure(q.error());
    if (!q.value().next())
        return std::optional<Claim>();
    Claim c;
    c.claimedMs = q.value().value(0).toLongLong();
    c.finishedMs = q.value().value(1).isNull() ? 0 : q.value().value(1).toLongLong();
    if (c.finishedMs)
        c.result = parseStored(q.value().value(2));
    return std::optional<Claim>(std::move(c));
}

Result<QList<AuditStore::Interrupted>> AuditStore::reportInterrupted()
{
    QList<Interrupted> found;
    Status written = writeTransaction([&]() -> Status {
        auto q = m_db.exec(StoreSql::kClaimsInterruptedUnreported);
        if (!q)
            return failure(q.error());
        while (q.value().next())
            found.append({q.value().value(0).toString(), q.value().value(1).toString(),
                          q.value().value(2).toString(), q.value().value(3).toLongLong()});
        for (const Interrupted &run : found) {
            if (auto a = append("interrupted", run.nonce, {{"claimedMs", run.claimedMs}}); !a)
                return a;
        }
        return success();
    });
    if (!written)
        return failure(written.error());
    return found;
}

Result<AuditStore::ChainReport> AuditStore::verifyChain()
{
    auto q = m_db.exec(StoreSql::kAuditAll);
    if (!q)
        return failure(q.error());
    ChainReport report;
    QString prev = QLatin1String(kGenesisHash);
    qint64 expectedSeq = 1;
    while (q.value().next()) {
        const QSqlQuery &row = q.value();
        const qint64 seq = row.value(0).toLongLong();
        ++report.rows;
        const auto broken = [&](const QString &problem) {
            report.firstBrokenSeq = seq;
            report.problem = problem;
            return report;
        };
        if (seq != expectedSeq)
            return broken(
                QStringLiteral("row %1 follows row %2: rows are missing").arg(seq).arg(expectedSeq - 1));
        if (row.value(5).toString() != prev)
            return broken(QStringLiteral("row %1 does not link to the hash of row %2").arg(seq).arg(seq - 1));
        const QByteArray detailText = row.value(4).toByteArray();
        const json detail = json::parse(detailText.cbegin(), detailText.cend(), nullptr, false);
        if (detail.is_discarded())
            return broken(QStringLiteral("row %1: its detail is not JSON").arg(seq));
        const json fields = {{"seq", seq},
                             {"at", row.value(1).toLongLong()},
                             {"event", text(row.value(2).toString())},
                             {"nonce", text(row.value(3).toString())},
                             {"detail", detail}};
        const QString hash = hashLink(prev, fields);
        if (hash != row.value(6).toString())
            return broken(
                QStringLiteral("row %1 was altered: its hash does not match its contents").arg(seq));
        prev = hash;
        ++expectedSeq;
    }
    return report;
}

Result<QList<json>> AuditStore::report(bool full)
{
    auto q = m_db.exec(StoreSql::kOperationsReport);
    if (!q)
        return failure(q.error());
    QList<json> rows;
    while (q.value().next()) {
        const QSqlQuery &r = q.value();
        const json plan = parseStored(r.value(5));
        const json client = parseStored(r.value(3));
        const json result = parseStored(r.value(15));
        const bool claimed = !r.value(13).isNull();
        const bool finished = !r.value(14).isNull();
        QString outcome;
        if (!claimed)
            outcome = QStringLiteral("not run");
        else if (!finished)
            outcome = QStringLiteral("unknown (no end recorded: still running, or interrupted)");
        else
            outcome = result.value("isError", false) ? QStringLiteral("failed") : QStringLiteral("succeeded");
        json targets = plan.value("targets", json::array());
        json row = {{"time", r.value(0).toLongLong()},
                    {"id", text(r.value(1).toString())},
                    {"connection", text(r.value(2).toString())},
                    {"client", client.is_object() ? client.value("name", std::string()) : std::string()},
                    {"tool", text(r.value(4).toString())},
                    {"targets", targets},
                    {"risk", text(r.value(7).toString())},
                    {"rule", text(r.value(8).toString())},
                    {"decision", text(r.value(9).toString())},
                    {"decidedBy", text(r.value(10).toString())},
                    {"reason", text(r.value(11).toString())},
                    {"decidedAt", r.value(12).isNull() ? json() : json(r.value(12).toLongLong())},
                    {"outcome", text(outcome)},
                    {"supersedes", text(r.value(16).toString())}};
        if (full) {
            row["prompt"] = plan.value("prompt", std::string());
            row["plan"] = plan;
            row["arguments"] = parseStored(r.value(6));
            row["result"] = result;
        }
        rows.append(std::move(row));
    }
    return rows;
}

} // namespace Countersign
