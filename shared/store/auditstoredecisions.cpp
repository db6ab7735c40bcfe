// The audit store's decisions: a card decided (approved, declined, expired, superseded), an
// approval that lapsed timed out, each one only while the card is still pending and only as the
// signed chain records it; and the decision read back, trusted only when the verified chain holds
// it. The rest of the store is in auditstore.cpp, its runs in auditstoreruns.cpp.
#include "auditstore.h"

#include "clock.h"
#include "database.h"
#include "operationrecords.h"
#include "receipt.h"
#include "storedvalue.h"
#include "storesql.h"
#include "writetransaction.h"

#include <algorithm>

namespace Countersign {

using json = nlohmann::json;
using StoredValue::text;

Result<Decision> AuditStore::decide(const QString &nonce, const Decision &decision)
{
    static constexpr Operation::Status kDecidable[] = {
        Operation::Status::Approved, Operation::Status::Declined, Operation::Status::Expired,
        Operation::Status::Abandoned, Operation::Status::Superseded};
    if (std::find(std::begin(kDecidable), std::end(kDecidable), decision.outcome) == std::end(kDecidable))
        return failure(QStringLiteral("not a decision: %1").arg(statusName(decision.outcome)));
    auto written = storeDecision(nonce, decision);
    if (!written)
        return failure(written.error());
    if (written.value()) // one approval of several: the card waits for the next person
        return Decision{Operation::Status::Pending, decision.by, QString(), decision.atMs};
    // Read back after the commit: when another decision won, it is the one in force.
    auto stored = this->decision(nonce);
    if (!stored)
        return failure(stored.error());
    if (!stored.value())
        return failure(QStringLiteral("operation %1 was settled without a decision (%2)")
                           .arg(nonce, QStringLiteral("rule")));
    return *stored.value();
}

Result<QStringList> AuditStore::timeOutLapsedApprovals()
{
    // Each sweep reads only what expired since the last one (none can be approved after its
    // expiry); the first reads all.
    const qint64 now = m_clock.nowMs();
    auto seen = m_operations->approvedLapsed(m_lapsedUntilMs, now);
    if (!seen)
        return seen;
    if (seen.value().isEmpty()) {
        m_lapsedUntilMs = now;
        return seen;
    }
    WriteTransaction transaction(m_db);
    if (!transaction.begun())
        return failure(transaction.begun().error());
    auto lapsed = m_operations->approvedLapsed(m_lapsedUntilMs, now); // again under the write lock
    if (!lapsed)
        return failure(lapsed.error());
    for (const QString &nonce : lapsed.value()) {
        if (auto marked = markTimedOut(transaction, nonce, now); !marked)
            return failure(marked.error());
    }
    if (auto committed = commitSigned(transaction); !committed)
        return failure(committed.error());
    m_lapsedUntilMs = now;
    return lapsed;
}

Status AuditStore::markTimedOut(const WriteTransaction &transaction, const QString &nonce, qint64 atMs)
{
    if (auto set = m_operations->setStatus(transaction, nonce, Operation::Status::TimedOut); !set)
        return failure(set.error());
    if (auto appended =
            m_chain->append(transaction, statusName(Operation::Status::TimedOut), nonce, {{"atMs", atMs}});
        !appended)
        return failure(appended.error());
    return success();
}

Result<bool> AuditStore::timeOutApproval(const QString &nonce)
{
    WriteTransaction transaction(m_db);
    if (!transaction.begun())
        return failure(transaction.begun().error());
    auto status = m_operations->status(nonce); // under the write lock
    if (!status)
        return failure(status.error());
    auto claim = m_claims->find(nonce);
    if (!claim)
        return failure(claim.error());
    if (!status.value() || *status.value() != Operation::Status::Approved || claim.value())
        return false;
    if (auto marked = markTimedOut(transaction, nonce, m_clock.nowMs()); !marked)
        return failure(marked.error());
    if (auto committed = commitSigned(transaction); !committed)
        return failure(committed.error());
    return true;
}

Result<bool> AuditStore::storeDecision(const QString &nonce, const Decision &decision)
{
    if (!m_signer)
        return failure(QStringLiteral("this store holds no signing key: it cannot record a decision"));
    WriteTransaction transaction(m_db);
    if (!transaction.begun())
        return failure(transaction.begun().error());
    const auto committed = [&transaction](bool oneOfSeveral) -> Result<bool> {
        if (auto done = transaction.commit(); !done)
            return failure(done.error());
        return oneOfSeveral;
    };
    // The status is read under the write lock, so no other decision can land between the read and
    // the insert.
    auto pending = m_operations->isPending(nonce);
    if (!pending)
        return failure(pending.error());
    if (!pending.value())
        return committed(false); // decided before: the stored decision stands
    Decision inForce = decision;
    // Once seen, a card's time to decide ends ttlSeconds later (its card-seen row says when): an
    // approval after that, from any process or surface, is stored as the expiry it is, since the
    // gate would never run it.
    if (decision.outcome == Operation::Status::Approved) {
        auto ends = decideByOf(nonce);
        if (!ends)
            return failure(ends.error());
        if (ends.value() && decision.atMs >= *ends.value())
            inForce = Decision{Operation::Status::Expired, QStringLiteral("server"),
                               QStringLiteral("the time to decide ended before the approval"), decision.atMs};
    }
    if (inForce.outcome == Operation::Status::Approved) {
        auto approved = approveUnder(transaction, nonce, decision);
        if (!approved)
            return failure(approved.error());
        if (approved.value().isEmpty()) { // recorded; the next person's approval decides
            if (auto signedHead = m_chain->checkpoint(transaction, *m_signer); !signedHead)
                return failure(signedHead.error());
            if (auto done = commitSigned(transaction); !done)
                return failure(done.error());
            return true;
        }
        inForce.by = approved.value();
    }
    auto inserted = m_operations->insertDecision(transaction, nonce, inForce);
    if (!inserted)
        return failure(inserted.error());
    if (!inserted.value())
        return committed(false);
    if (auto updated = m_operations->setStatus(transaction, nonce, inForce.outcome); !updated)
        return failure(updated.error());
    // The decision row carries its own signature: a row forged around the store (even one a later
    // checkpoint would cover) has none that verifies.
    const json signedDecision = m_signer->sign(AuditChain::decisionBody(
        nonce, statusName(inForce.outcome), inForce.by, inForce.reason, inForce.atMs));
    if (auto appended = m_chain->append(transaction, statusName(inForce.outcome), nonce,
                                        {{"by", text(inForce.by)},
                                         {"reason", text(inForce.reason)},
                                         {"decidedMs", inForce.atMs},
                                         {"signed", signedDecision}});
        !appended)
        return failure(appended.error());
    if (auto signedHead = m_chain->checkpoint(transaction, *m_signer); !signedHead)
        return failure(signedHead.error());
    if (auto done = commitSigned(transaction); !done)
        return failure(done.error());
    return false;
}

Result<QString> AuditStore::approveUnder(const WriteTransaction &transaction, const QString &nonce,
                                         const Decision &approval)
{
    auto op = operation(nonce); // with the approvals given so far, read under the write lock
    if (!op)
        return failure(op.error());
    if (!op.value())
        return failure(QStringLiteral("no operation %1").arg(nonce));
    const Review &review = op.value()->review;
    if (const QString refused = review.refusal(approval.by); !refused.isEmpty())
        return failure(refused);
    if (review.people <= 1)
        return approval.by;
    if (auto recorded = m_operations->insertReview(transaction, nonce, approval.by, approval.atMs); !recorded)
        return failure(recorded.error());
    const json signedApproval = m_signer->sign(
        AuditChain::decisionBody(nonce, QStringLiteral("reviewed"), approval.by, {}, approval.atMs));
    if (auto appended = m_chain->append(transaction, QStringLiteral("reviewed"), nonce,
                                        {{"by", text(approval.by)},
                                         {"decidedMs", approval.atMs},
                                         {"people", review.people},
                                         {"signed", signedApproval}});
        !appended)
        return failure(appended.error());
    const QStringList approvedBy = review.approvedBy + QStringList{approval.by};
    if (approvedBy.size() < review.people)
        return QString();
    return approvedBy.join(QStringLiteral(", "));
}

Result<std::optional<Decision>> AuditStore::decision(const QString &nonce)
{
    return m_operations->decision(nonce);
}

Result<std::optional<Decision>> AuditStore::verifiedDecision(const QString &nonce)
{
    auto stored = m_operations->decision(nonce);
    if (!stored || !stored.value())
        return stored;
    if (!m_signer)
        return failure(QStringLiteral("this store holds no key to check decisions with"));
    const Decision &d = *stored.value();
    if (auto certified = m_chain->certify(
            nonce, statusName(d.outcome),
            {{"by", text(d.by)}, {"reason", text(d.reason)}, {"decidedMs", d.atMs}}, m_signer->publicKey());
        !certified)
        return failure(QStringLiteral("the decision on %1 is not in the verified audit log (%2)")
                           .arg(nonce, certified.error()));
    return stored;
}

} // namespace Countersign
