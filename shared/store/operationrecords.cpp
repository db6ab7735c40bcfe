#include "operationrecords.h"

#include "database.h"
#include "storedvalue.h"
#include "storesql.h"
#include "toolresult.h"
#include "writetransaction.h"

#include <nlohmann/json.hpp>

#include <QSqlRecord>

namespace Countersign {

namespace {

using json = nlohmann::json;
using StoredValue::column;
using StoredValue::text;

// The positions of the operations columns in a result, looked up by name once per result.
struct OperationColumns final
{
    explicit OperationColumns(const QSqlRecord &r)
        : nonce(column(r, "nonce")), tool(column(r, "tool")), principal(column(r, "principal")),
          clientInfo(column(r, "client_info")), arguments(column(r, "arguments")),
          argsDigest(column(r, "args_digest")), plan(column(r, "plan")), planDigest(column(r, "plan_digest")),
          risk(column(r, "risk")), approvalMode(column(r, "approval_mode")), rule(column(r, "rule")),
          traceparent(column(r, "traceparent")), createdMs(column(r, "created_ms")),
          expiresMs(column(r, "expires_ms")), supersedes(column(r, "supersedes")),
          status(column(r, "status")), people(column(r, "people")), ownerBarred(column(r, "owner_barred")),
          owner(column(r, "owner")), instance(column(r, "instance"))
    {
    }
    int nonce, tool, principal, clientInfo, arguments, argsDigest, plan, planDigest, risk, approvalMode, rule,
        traceparent, createdMs, expiresMs, supersedes, status, people, ownerBarred, owner, instance;
};

Result<Operation> operationFromRow(const QSqlQuery &q, const OperationColumns &at)
{
    Operation op;
    op.nonce = q.value(at.nonce).toString();
    op.tool = q.value(at.tool).toString();
    op.principal = q.value(at.principal).toString();
    op.clientInfo = StoredValue::parseJson(q.value(at.clientInfo));
    op.arguments = StoredValue::parseJson(q.value(at.arguments));
    op.argsDigest = q.value(at.argsDigest).toString();
    auto plan = Plan::fromJson(StoredValue::parseJson(q.value(at.plan)));
    if (!plan)
        return failure(QStringLiteral("operation %1: stored %2").arg(op.nonce, plan.error()));
    op.plan = std::move(plan).value();
    op.planDigest = q.value(at.planDigest).toString();
    // The risk column repeats the plan's risk for SQL filters; the plan's own is the one read, and
    // a row where the two differ was written around the store.
    if (const QString risk = q.value(at.risk).toString(); risk != riskName(op.plan.risk))
        return failure(QStringLiteral("operation %1: its stored risk (%2) is not its plan's (%3)")
                           .arg(op.nonce, risk, riskName(op.plan.risk)));
    op.approvalMode = q.value(at.approvalMode).toString() == QLatin1String("client") ? ApprovalMode::Client
                                                                                     : ApprovalMode::Console;
    op.rule = q.value(at.rule).toString();
    op.traceparent = q.value(at.traceparent).toString();
    op.createdMs = q.value(at.createdMs).toLongLong();
    op.expiresMs = q.value(at.expiresMs).toLongLong();
    op.supersedes = q.value(at.supersedes).toString();
    const QString statusText = q.value(at.status).toString();
    const auto status = parseStatus(statusText);
    if (!status)
        return failure(QStringLiteral("operation %1: unknown status %2").arg(op.nonce, statusText));
    op.status = *status;
    op.review.people = q.value(at.people).toInt();
    op.review.ownerBarred = q.value(at.ownerBarred).toInt() != 0;
    op.review.owner = q.value(at.owner).toString();
    op.instance = q.value(at.instance).toString();
    return op;
}

} // namespace

OperationRecords::OperationRecords(Database &database) : m_database(database) {}

Status OperationRecords::insert(const WriteTransaction &transaction, const Operation &op)
{
    Q_ASSERT(transaction.isOpen());
    using StoredValue::notNull;
    auto inserted = m_database.exec(
        StoreSql::kOperationInsert,
        {notNull(op.nonce),
         notNull(op.tool),
         notNull(op.principal),
         StoredValue::jsonText(op.clientInfo),
         StoredValue::jsonText(op.arguments),
         notNull(op.argsDigest),
         StoredValue::jsonText(op.plan.toJson()),
         notNull(op.planDigest),
         riskName(op.plan.risk),
         op.approvalMode == ApprovalMode::Client ? QStringLiteral("client") : QStringLiteral("console"),
         notNull(op.rule),
         notNull(op.traceparent),
         op.createdMs,
         op.expiresMs,
         op.supersedes.isEmpty() ? QVariant() : QVariant(op.supersedes),
         statusName(op.status),
         op.review.people,
         op.review.ownerBarred ? 1 : 0,
         op.review.owner.isEmpty() ? QVariant() : QVariant(op.review.owner),
         op.instance.isEmpty() ? QVariant() : QVariant(op.instance)});
    if (!inserted)
        return failure(inserted.error());
    return success();
}

Status OperationRecords::insertReview(const WriteTransaction &transaction, const QString &nonce,
                                      const QString &reviewer, qint64 atMs)
{
    Q_ASSERT(transaction.isOpen());
    if (auto inserted =
            m_database.exec(StoreSql::kReviewInsert, {nonce, StoredValue::notNull(reviewer), atMs});
        !inserted)
        return failure(inserted.error());
    return success();
}

Result<std::optional<Operation>> OperationRecords::find(const QString &nonce)
{
    auto q = m_database.exec(StoreSql::kOperationByNonce, {nonce});
    if (!q)
        return failure(q.error());
    if (!q.value().next())
        return std::optional<Operation>();
    auto op = operationFromRow(q.value(), OperationColumns(q.value().record()));
    if (!op)
        return failure(op.error());
    auto reviews = m_database.exec(StoreSql::kReviewsOf, {nonce});
    if (!reviews)
        return failure(reviews.error());
    while (reviews.value().next())
        op.value().review.approvedBy.append(reviews.value().value(0).toString());
    return std::optional<Operation>(std::move(op).value());
}

namespace {

Result<QString> firstNonce(Database &database, const char *sql, const QVariantList &bindings)
{
    auto q = database.exec(sql, bindings);
    if (!q)
        return failure(q.error());
    return q.value().next() ? q.value().value(0).toString() : QString();
}

} // namespace

Result<QString> OperationRecords::replacementOf(const QString &nonce)
{
    return firstNonce(m_database, StoreSql::kOperationReplacement, {nonce});
}

Result<QString> OperationRecords::awaitingLike(const QString &principal, const QString &tool,
                                               const QString &argsDigest, qint64 nowMs)
{
    return firstNonce(m_database, StoreSql::kOperationAwaitingSame, {principal, tool, argsDigest, nowMs});
}

Result<QList<Operation>> OperationRecords::pending(QStringList *unreadable)
{
    auto q = m_database.exec(StoreSql::kOperationsPending);
    if (!q)
        return failure(q.error());
    const OperationColumns at(q.value().record());
    QList<Operation> out;
    while (q.value().next()) {
        auto op = operationFromRow(q.value(), at);
        if (!op) {
            if (unreadable)
                unreadable->append(QStringLiteral("a waiting operation cannot be read: %1").arg(op.error()));
            continue;
        }
        out.append(std::move(op).value());
    }
    auto reviews = m_database.exec(StoreSql::kReviewsPending);
    if (!reviews)
        return failure(reviews.error());
    const int nonceAt = column(reviews.value().record(), "nonce");
    const int reviewerAt = column(reviews.value().record(), "reviewer");
    while (reviews.value().next()) {
        const QString nonce = reviews.value().value(nonceAt).toString();
        for (Operation &op : out) {
            if (op.nonce == nonce)
                op.review.approvedBy.append(reviews.value().value(reviewerAt).toString());
        }
    }
    return out;
}

Result<int> OperationRecords::pendingCount(const QString &principal, qint64 nowMs)
{
    auto q = m_database.exec(StoreSql::kOperationsPendingFor, {principal, nowMs});
    if (!q)
        return failure(q.error());
    QSqlQuery &row = q.value();
    return row.next() ? row.value(column(row.record(), "pending")).toInt() : 0;
}

Result<int> OperationRecords::countByRule(const QString &ruleStart)
{
    auto q = m_database.exec(StoreSql::kOperationsByRule, {int(ruleStart.size()), ruleStart});
    if (!q)
        return failure(q.error());
    QSqlQuery &row = q.value();
    return row.next() ? row.value(column(row.record(), "decided")).toInt() : 0;
}

Result<std::optional<Operation::Status>> OperationRecords::status(const QString &nonce)
{
    auto q = m_database.exec(StoreSql::kOperationStatus, {nonce});
    if (!q)
        return failure(q.error());
    QSqlQuery &row = q.value();
    if (!row.next())
        return std::optional<Operation::Status>();
    const QString name = row.value(column(row.record(), "status")).toString();
    const auto parsed = parseStatus(name);
    if (!parsed)
        return failure(QStringLiteral("operation %1: unknown status %2").arg(nonce, name));
    return std::optional<Operation::Status>(*parsed);
}

Result<bool> OperationRecords::isPending(const QString &nonce)
{
    auto q = m_database.exec(StoreSql::kOperationStatus, {nonce});
    if (!q)
        return failure(q.error());
    QSqlQuery &row = q.value();
    if (!row.next())
        return failure(QStringLiteral("no operation %1").arg(nonce));
    return row.value(column(row.record(), "status")).toString() == QLatin1String("pending");
}

Status OperationRecords::setStatus(const WriteTransaction &transaction, const QString &nonce,
                                   Operation::Status status)
{
    Q_ASSERT(transaction.isOpen());
    if (auto updated = m_database.exec(StoreSql::kOperationSetStatus, {statusName(status), nonce}); !updated)
        return failure(updated.error());
    return success();
}

Result<QStringList> OperationRecords::approvedLapsed(qint64 sinceMs, qint64 nowMs)
{
    auto q = m_database.exec(StoreSql::kOperationsApprovedLapsed, {nowMs, sinceMs});
    if (!q)
        return failure(q.error());
    QStringList out;
    while (q.value().next())
        out.append(q.value().value(0).toString());
    return out;
}

Result<bool> OperationRecords::supersede(const WriteTransaction &transaction, const QString &nonce)
{
    Q_ASSERT(transaction.isOpen());
    auto updated = m_database.exec(StoreSql::kOperationSupersede, {nonce});
    if (!updated)
        return failure(updated.error());
    return updated.value().numRowsAffected() == 1;
}

Result<bool> OperationRecords::insertDecision(const WriteTransaction &transaction, const QString &nonce,
                                              const Decision &decision)
{
    Q_ASSERT(transaction.isOpen());
    // INSERT OR IGNORE: the primary key on the nonce keeps the first decision, whoever stored it.
    auto inserted = m_database.exec(StoreSql::kDecisionInsert,
                                    {nonce, statusName(decision.outcome), StoredValue::notNull(decision.by),
                                     StoredValue::notNull(decision.reason), decision.atMs});
    if (!inserted)
        return failure(inserted.error());
    return inserted.value().numRowsAffected() == 1;
}

Result<std::optional<Decision>> OperationRecords::decision(const QString &nonce)
{
    auto q = m_database.exec(StoreSql::kDecisionByNonce, {nonce});
    if (!q)
        return failure(q.error());
    QSqlQuery &row = q.value();
    if (!row.next())
        return std::optional<Decision>();
    const QSqlRecord record = row.record();
    Decision d;
    d.outcome =
        parseStatus(row.value(column(record, "outcome")).toString()).value_or(Operation::Status::Declined);
    d.by = row.value(column(record, "decided_by")).toString();
    d.reason = row.value(column(record, "reason")).toString();
    d.atMs = row.value(column(record, "decided_ms")).toLongLong();
    return std::optional<Decision>(d);
}

Result<QList<json>> OperationRecords::report(bool full)
{
    auto q = m_database.exec(StoreSql::kOperationsReport);
    if (!q)
        return failure(q.error());
    QSqlQuery &r = q.value();
    const QSqlRecord record = r.record();
    const int createdMsAt = column(record, "created_ms");
    const int nonceAt = column(record, "nonce");
    const int principalAt = column(record, "principal");
    const int clientInfoAt = column(record, "client_info");
    const int toolAt = column(record, "tool");
    const int planAt = column(record, "plan");
    const int argumentsAt = column(record, "arguments");
    const int riskAt = column(record, "risk");
    const int ruleAt = column(record, "rule");
    const int statusAt = column(record, "status");
    const int decidedByAt = column(record, "decided_by");
    const int reasonAt = column(record, "reason");
    const int decidedMsAt = column(record, "decided_ms");
    const int claimedMsAt = column(record, "claimed_ms");
    const int finishedMsAt = column(record, "finished_ms");
    const int resultAt = column(record, "result");
    const int supersedesAt = column(record, "supersedes");
    const int instanceAt = column(record, "instance");
    const int ownerAt = column(record, "owner");

    QList<json> rows;
    while (r.next()) {
        const json plan = StoredValue::parseJson(r.value(planAt));
        const json client = StoredValue::parseJson(r.value(clientInfoAt));
        const json result = StoredValue::parseJson(r.value(resultAt));
        const bool claimed = !r.value(claimedMsAt).isNull();
        const bool finished = !r.value(finishedMsAt).isNull();
        QString outcome;
        if (!claimed && r.value(statusAt).toString() == QLatin1String("pending"))
            outcome = QStringLiteral("waiting"); // as the audit view says: undecided, not refused
        else if (!claimed)
            outcome = QStringLiteral("not run");
        else if (!finished)
            outcome = QStringLiteral("unknown (no end recorded: still running, or interrupted)");
        else
            outcome = ToolResult::failed(result) ? QStringLiteral("failed") : QStringLiteral("succeeded");
        json targets = plan.value("targets", json::array());
        json row = {
            {"time", r.value(createdMsAt).toLongLong()},
            {"id", text(r.value(nonceAt).toString())},
            {"connection", text(r.value(principalAt).toString())},
            {"client", client.is_object() ? client.value("name", std::string()) : std::string()},
            {"tool", text(r.value(toolAt).toString())},
            {"targets", targets},
            {"risk", text(r.value(riskAt).toString())},
            {"rule", text(r.value(ruleAt).toString())},
            {"decision", text(r.value(statusAt).toString())},
            {"decidedBy", text(r.value(decidedByAt).toString())},
            {"reason", text(r.value(reasonAt).toString())},
            {"decidedAt", r.value(decidedMsAt).isNull() ? json() : json(r.value(decidedMsAt).toLongLong())},
            {"outcome", text(outcome)},
            {"supersedes", text(r.value(supersedesAt).toString())},
            {"instance", text(r.value(instanceAt).toString())},
            {"owner", text(r.value(ownerAt).toString())}};
        if (full) {
            row["prompt"] = plan.value("prompt", std::string());
            row["plan"] = plan;
            row["arguments"] = StoredValue::parseJson(r.value(argumentsAt));
            row["result"] = result;
        }
        rows.append(std::move(row));
    }
    return rows;
}

} // namespace Countersign
