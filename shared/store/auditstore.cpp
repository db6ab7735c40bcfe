#include "auditstore.h"
#include "storedvalue.h"

#include "auditcrosscheck.h"
#include "canonicaljson.h"
#include "clock.h"
#include "database.h"
#include "operationrecords.h"
#include "policyevents.h"
#include "receipt.h"
#include "storesql.h"
#include "writetransaction.h"

#include <algorithm>
#include <iterator>

namespace Countersign {

namespace {

using json = nlohmann::json;
using StoredValue::text;

// What the chain records of a new operation: every column that decides anything about it later
// (who may approve it, how, until when, what it shows). The gate reads an operation only when its
// row still holds these (AuditStore::operation), and audit verify compares the table with them.
json mintedFields(const Operation &op)
{
    return {{"tool", text(op.tool)},
            {"principal", text(op.principal)},
            {"client", op.clientInfo},
            {"argsDigest", text(op.argsDigest)},
            {"planDigest", text(op.planDigest)},
            {"rule", text(op.rule)},
            {"createdMs", op.createdMs},
            {"expiresMs", op.expiresMs},
            {"supersedes", text(op.supersedes)},
            {"approvalMode", op.approvalMode == ApprovalMode::Client ? "client" : "console"},
            {"risk", text(riskName(op.plan.risk))},
            {"people", op.review.people},
            {"ownerBarred", op.review.ownerBarred ? 1 : 0},
            {"owner", text(op.review.owner)}};
}

json mintedDetail(const Operation &op)
{
    json detail = mintedFields(op);
    detail["status"] = text(statusName(op.status));
    return detail;
}

// The chain row that records an operation's minting, by how it was settled.
QString mintedEvent(Operation::Status status)
{
    return status == Operation::Status::Allowed || status == Operation::Status::Denied
               ? QStringLiteral("settled-by-rule")
               : QStringLiteral("minted");
}

} // namespace

AuditStore::AuditStore(Database &database, const Clock &clock, const ReceiptSigner *signer)
    : m_db(database), m_clock(clock), m_signer(signer),
      m_operations(std::make_unique<OperationRecords>(database)),
      m_claims(std::make_unique<ClaimRecords>(database)),
      m_chain(std::make_unique<AuditChain>(database, clock))
{
    if (m_signer)
        m_chain->guardHead(m_signer->publicKey());
}

AuditStore::~AuditStore() = default;

// Each write below follows one pattern: begin, write, append the audit row that records the
// write, commit. Any failure returns before commit(), and the transaction's destructor rolls the
// write back with its audit row: the log never misses a write, nor records one that did not happen.

// Every write ends here: the chain's new head is signed in the same transaction (by a store with a
// key), so rows appended or cut around the store no longer match it.
Status AuditStore::commitSigned(WriteTransaction &transaction)
{
    if (m_signer) {
        if (auto signedHead = m_chain->signHead(transaction, *m_signer); !signedHead)
            return signedHead;
    }
    if (auto done = transaction.commit(); !done)
        return done;
    m_chain->committed();
    return success();
}

// A new operation and the chain row that records it ("minted" for a card, "settled-by-rule").
Status AuditStore::insertRecorded(const WriteTransaction &transaction, const Operation &op)
{
    if (op.instance.isEmpty() && !m_instanceName.isEmpty()) {
        Operation served = op;
        served.instance = m_instanceName;
        return insertRecorded(transaction, served);
    }
    if (auto inserted = m_operations->insert(transaction, op); !inserted)
        return inserted;
    const QString event = op.status == Operation::Status::Pending ? QStringLiteral("minted")
                                                                  : QStringLiteral("settled-by-rule");
    if (auto appended = m_chain->append(transaction, event, op.nonce, mintedDetail(op)); !appended)
        return appended;
    // A card is read back (by the gate and every console) only as its row here records it: a
    // checkpoint at the row keeps that check to this one row, however long the card waits.
    if (op.status == Operation::Status::Pending && m_signer)
        return m_chain->checkpoint(transaction, *m_signer);
    return success();
}

Status AuditStore::certified(const Operation &op)
{
    if (!m_signer)
        return success(); // a reader (audit verify, export) decides nothing on what it reads
    const auto differs = [&op](const QString &what) {
        return failure(
            QStringLiteral("operation %1 is not the one the audit log records: %2").arg(op.nonce, what));
    };
    if (op.plan.digest() != op.planDigest)
        return differs(QStringLiteral("its stored plan is not the plan its digest seals"));
    if (QString::fromLatin1(CanonicalJson::digest(op.arguments)) != op.argsDigest)
        return differs(QStringLiteral("its stored arguments are not the ones their digest seals"));
    if (auto row = m_chain->certify(op.nonce, mintedEvent(op.status), mintedFields(op), m_signer->publicKey(),
                                    AuditChain::Row::Plain);
        !row)
        return differs(row.error());
    auto reviewers = m_chain->signedReviewers(op.nonce, m_signer->publicKey());
    if (!reviewers)
        return differs(reviewers.error());
    QStringList inChain = reviewers.value();
    QStringList stored = op.review.approvedBy;
    inChain.sort();
    stored.sort();
    if (inChain != stored)
        return differs(QStringLiteral("its approvals (%1) are not the signed ones (%2)")
                           .arg(op.review.approvedBy.join(QStringLiteral(", ")),
                                reviewers.value().join(QStringLiteral(", "))));
    return success();
}

Status AuditStore::recordOperation(const Operation &op)
{
    WriteTransaction transaction(m_db);
    if (!transaction.begun())
        return transaction.begun();
    if (auto recorded = insertRecorded(transaction, op); !recorded)
        return recorded;
    return commitSigned(transaction);
}

Status AuditStore::recordClaimed(const Operation &op, Durability durability)
{
    WriteTransaction transaction(m_db, durability);
    if (!transaction.begun())
        return transaction.begun();
    if (auto recorded = insertRecorded(transaction, op); !recorded)
        return recorded;
    auto claimed = m_claims->insert(transaction, op.nonce, m_clock.nowMs(), m_instance);
    if (!claimed)
        return failure(claimed.error());
    if (!claimed.value())
        return failure(QStringLiteral("claim refused"));
    if (auto appended = m_chain->append(transaction, QStringLiteral("claimed"), op.nonce, json::object());
        !appended)
        return appended;
    return commitSigned(transaction);
}

Result<QString> AuditStore::recordCard(const Operation &card)
{
    WriteTransaction transaction(m_db);
    if (!transaction.begun())
        return failure(transaction.begun().error());
    auto earlier = m_operations->awaitingLike(card.principal, card.tool, card.argsDigest, m_clock.nowMs());
    if (!earlier)
        return failure(earlier.error());
    if (!earlier.value().isEmpty())
        return earlier.value();
    if (auto recorded = insertRecorded(transaction, card); !recorded)
        return failure(recorded.error());
    if (auto committed = commitSigned(transaction); !committed)
        return failure(committed.error());
    return card.nonce;
}

Result<std::optional<Operation>> AuditStore::operation(const QString &nonce)
{
    auto stored = m_operations->find(nonce);
    if (!stored || !stored.value())
        return stored;
    if (auto checked = certified(*stored.value()); !checked)
        return failure(checked.error());
    return stored;
}

Result<std::optional<Operation::Status>> AuditStore::status(const QString &nonce)
{
    return m_operations->status(nonce);
}

Result<std::optional<Operation>> AuditStore::storedOperation(const QString &nonce)
{
    return m_operations->find(nonce);
}

Result<QList<Operation>> AuditStore::pendingOperations(QStringList *refused)
{
    auto pending = m_operations->pending(refused);
    if (!pending)
        return pending;
    QList<Operation> cards;
    for (Operation &op : pending.value()) {
        if (auto checked = certified(op); !checked) {
            if (refused)
                refused->append(checked.error());
            continue;
        }
        cards.append(std::move(op));
    }
    return cards;
}

Result<int> AuditStore::pendingCount(const QString &principal)
{
    return m_operations->pendingCount(principal, m_clock.nowMs());
}

Result<int> AuditStore::countByRule(const QString &ruleStart)
{
    return m_operations->countByRule(ruleStart);
}

Status AuditStore::verifiedCard(const Operation &card)
{
    if (!m_signer)
        return failure(QStringLiteral("this store holds no key to check cards with"));
    if (auto certified = m_chain->certify(card.nonce, QStringLiteral("minted"),
                                          {{"tool", text(card.tool)},
                                           {"principal", text(card.principal)},
                                           {"argsDigest", text(card.argsDigest)},
                                           {"planDigest", text(card.planDigest)},
                                           {"expiresMs", card.expiresMs}},
                                          m_signer->publicKey(), AuditChain::Row::Plain);
        !certified)
        return failure(QStringLiteral("the card %1 is not the one the verified audit log records (%2)")
                           .arg(card.nonce, certified.error()));
    auto lapsed = m_chain->records(card.nonce, statusName(Operation::Status::TimedOut));
    if (!lapsed)
        return failure(lapsed.error());
    if (lapsed.value())
        return failure(QStringLiteral("the approval of %1 timed out in the audit log").arg(card.nonce));
    return success();
}

Result<bool> AuditStore::replace(const Operation &replacement)
{
    WriteTransaction transaction(m_db);
    if (!transaction.begun())
        return failure(transaction.begun().error());
    // Under the write lock: the claim check, the "not replaced before" check and the update hold
    // together, so racing retries make at most one replacement and never reopen a run.
    auto earlier = m_operations->replacementOf(replacement.supersedes);
    if (!earlier)
        return failure(earlier.error());
    if (!earlier.value().isEmpty())
        return false;
    auto superseded = m_operations->supersede(transaction, replacement.supersedes);
    if (!superseded)
        return failure(superseded.error());
    if (!superseded.value())
        return false;
    if (auto appended = m_chain->append(transaction, QStringLiteral("superseded"), replacement.supersedes,
                                        {{"by", text(replacement.nonce)}, {"reason", "the plan changed"}});
        !appended)
        return failure(appended.error());
    if (auto recorded = insertRecorded(transaction, replacement); !recorded)
        return failure(recorded.error());
    if (auto committed = commitSigned(transaction); !committed)
        return failure(committed.error());
    return true;
}

Result<QString> AuditStore::replacementOf(const QString &nonce)
{
    return m_operations->replacementOf(nonce);
}

Result<QString> AuditStore::awaitingLike(const QString &principal, const QString &tool,
                                         const QString &argsDigest)
{
    return m_operations->awaitingLike(principal, tool, argsDigest, m_clock.nowMs());
}

Status AuditStore::recordEvent(const QString &event, const json &detail)
{
    WriteTransaction transaction(m_db);
    if (!transaction.begun())
        return transaction.begun();
    if (auto appended = m_chain->append(transaction, event, QString(), detail); !appended)
        return appended;
    return commitSigned(transaction);
}

Status AuditStore::recordEvent(const QString &event, const QString &nonce, const json &detail)
{
    WriteTransaction transaction(m_db);
    if (!transaction.begun())
        return transaction.begun();
    if (auto appended = m_chain->append(transaction, event, nonce, detail); !appended)
        return appended;
    return commitSigned(transaction);
}

Result<QList<json>> AuditStore::eventsOf(const QString &nonce, const QString &event)
{
    return m_chain->detailsOf(nonce, event);
}

Result<std::optional<qint64>> AuditStore::decideByOf(const QString &nonce)
{
    auto seen = m_chain->detailsOf(nonce, QStringLiteral("card-seen"));
    if (!seen)
        return failure(seen.error());
    const json first = seen.value().isEmpty() ? json() : seen.value().first();
    const json ends = first.is_object() ? first.value("decideByMs", json()) : json();
    if (!ends.is_number_integer() || ends.get<qint64>() <= 0)
        return std::optional<qint64>();
    return std::optional<qint64>(ends.get<qint64>());
}

Result<QList<AuditChain::EventRow>> AuditStore::eventsAfter(const QString &first, const QString &second,
                                                            qint64 afterSeq)
{
    return m_chain->eventsAfter(first, second, afterSeq);
}

Result<QList<AuditChain::EventRow>> AuditStore::eventsSince(const QString &event, qint64 sinceMs)
{
    return m_chain->eventsSince(event, sinceMs);
}

Result<json> AuditStore::lastEvent(const QString &event)
{
    return m_chain->lastEvent(event);
}

Result<AuditStore::ChainReport> AuditStore::verifyChain(const QByteArray &publicKey)
{
    auto report = m_chain->verify(publicKey);
    if (!report || !report.value().problem.isEmpty())
        return report;
    if (auto problem = AuditCrossCheck::firstProblem(m_db); !problem)
        return failure(problem.error());
    else if (!problem.value().isEmpty())
        report.value().problem = problem.value();
    return report;
}

Result<AuditStore::Head> AuditStore::head()
{
    return m_chain->head();
}

Result<QString> AuditStore::hashAt(qint64 seq)
{
    return m_chain->hashAt(seq);
}

namespace {

// A configuration change as a row of the report: when, what happened to it (in the decision
// column), who decided it, and what it changed, in words.
json policyRow(qint64 seq, qint64 atMs, const QString &event, const json &detail, bool full)
{
    json row = {
        {"time", atMs},
        {"id", PolicyEvents::idOf(seq).toStdString()},
        {"tool", "(configuration)"},
        {"targets", json::array({detail.is_object() ? detail.value("file", std::string()) : std::string()})},
        {"decision", event.toStdString()},
        {"decidedBy", detail.is_object() ? detail.value("by", std::string()) : std::string()},
        {"reason", PolicyEvents::changesText(detail).toStdString()}};
    if (full)
        row["policyChange"] = detail;
    return row;
}

} // namespace

Result<QList<json>> AuditStore::report(bool full)
{
    auto rows = m_operations->report(full);
    if (!rows)
        return rows;
    // The configuration's changes, in the chain, among the calls by time.
    auto q = m_db.exec(StoreSql::kPolicyEvents);
    if (!q)
        return failure(q.error());
    QList<json> merged;
    qsizetype next = 0;
    while (q.value().next()) {
        const qint64 atMs = q.value().value(1).toLongLong();
        const QByteArray text = q.value().value(3).toByteArray();
        const json detail = json::parse(text.cbegin(), text.cend(), nullptr, false);
        while (next < rows.value().size() && rows.value()[next].value("time", qint64(0)) <= atMs)
            merged.append(std::move(rows.value()[next++]));
        merged.append(policyRow(q.value().value(0).toLongLong(), atMs, q.value().value(2).toString(),
                                detail.is_discarded() ? json() : detail, full));
    }
    while (next < rows.value().size())
        merged.append(std::move(rows.value()[next++]));
    return merged;
}

} // namespace Countersign
