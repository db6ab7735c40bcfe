// The audit store's runs: the claim that lets an approved call run once, its end with the result,
// and the instances sharing the store that claimed them (a run claimed by a gone instance ended
// unrecorded). The rest of the store is in auditstore.cpp.
#include "auditstore.h"

#include "canonicaljson.h"
#include "clock.h"
#include "database.h"
#include "toolresult.h"
#include "writetransaction.h"

namespace Countersign {

using json = nlohmann::json;

Result<bool> AuditStore::claim(const QString &nonce)
{
    WriteTransaction transaction(m_db);
    if (!transaction.begun())
        return failure(transaction.begun().error());
    // The chain's record of a run counts, not the claims row alone: a run whose row was removed
    // around the store is claimed before all the same.
    auto ranBefore = m_chain->records(nonce, QStringLiteral("claimed"));
    if (!ranBefore)
        return failure(ranBefore.error());
    if (ranBefore.value()) {
        // Claimed already: its row must be there for the retry to find. A row removed around the
        // store is an error, never a reason to judge the call again (and again).
        auto row = m_claims->find(nonce);
        if (!row)
            return failure(row.error());
        if (!row.value())
            return failure(
                QStringLiteral("the audit chain records a run of %1, but its claims row is gone: the "
                               "store was changed around Countersign; it is not run again")
                    .arg(nonce));
        return false;
    }
    auto claimed = m_claims->insert(transaction, nonce, m_clock.nowMs(), m_instance);
    if (!claimed)
        return failure(claimed.error());
    if (claimed.value()) {
        if (auto appended = m_chain->append(transaction, QStringLiteral("claimed"), nonce, json::object());
            !appended)
            return failure(appended.error());
    }
    if (auto committed = commitSigned(transaction); !committed)
        return failure(committed.error());
    return claimed.value();
}

Status AuditStore::finishClaim(const QString &nonce, const json &result, Durability durability)
{
    WriteTransaction transaction(m_db, durability);
    if (!transaction.begun())
        return transaction.begun();
    auto finished = m_claims->finish(transaction, nonce, m_clock.nowMs(), result);
    if (!finished)
        return failure(finished.error());
    if (!finished.value())
        return failure(QStringLiteral("claim %1 is missing or finished already").arg(nonce));
    const bool failed = ToolResult::failed(result);
    if (auto appended = m_chain->append(
            transaction, failed ? QStringLiteral("run-failed") : QStringLiteral("run-succeeded"), nonce,
            {{"resultDigest", CanonicalJson::digest(result).toStdString()}});
        !appended)
        return appended;
    return commitSigned(transaction);
}

void AuditStore::setInstance(const QString &id, const QString &name)
{
    m_instance = id;
    m_instanceName = name;
    m_startedMs = m_clock.nowMs();
}

Status AuditStore::seen()
{
    if (m_instance.isEmpty())
        return success();
    return m_claims->instanceSeen(m_instance, m_instanceName, m_startedMs, m_clock.nowMs());
}

Status AuditStore::forget(const QString &id)
{
    return m_claims->instanceGone(id);
}

Result<bool> AuditStore::isAlive(const QString &id)
{
    auto seenMs = m_claims->instanceLastSeen(id);
    if (!seenMs)
        return failure(seenMs.error());
    return seenMs.value() > m_clock.nowMs() - kInstanceGoneMs;
}

Result<std::optional<Claim>> AuditStore::claimOf(const QString &nonce)
{
    auto claim = m_claims->find(nonce);
    if (!claim || !claim.value() || claim.value()->finishedMs == 0 || !m_signer)
        return claim;
    // A stored result is handed to the caller only as its run recorded it.
    const QString digest = QString::fromLatin1(CanonicalJson::digest(claim.value()->result));
    for (const char *event : {"run-succeeded", "run-failed"}) {
        auto rows = m_chain->detailsOf(nonce, QLatin1String(event));
        if (!rows)
            return failure(rows.error());
        for (const json &row : rows.value()) {
            if (row.value("resultDigest", std::string()) == digest.toStdString())
                return claim;
        }
    }
    return failure(QStringLiteral("the stored result of %1 is not the one its run recorded").arg(nonce));
}

Result<QList<AuditStore::Interrupted>> AuditStore::reportInterrupted()
{
    WriteTransaction transaction(m_db);
    if (!transaction.begun())
        return failure(transaction.begun().error());
    // Found and reported in one transaction: a second process starting at the same time finds
    // them reported, not reports them again.
    auto found = m_claims->interruptedUnreported(m_clock.nowMs() - kInstanceGoneMs);
    if (!found)
        return failure(found.error());
    for (const Interrupted &run : found.value()) {
        if (auto appended = m_chain->append(transaction, QStringLiteral("interrupted"), run.nonce,
                                            {{"claimedMs", run.claimedMs}});
            !appended)
            return failure(appended.error());
    }
    if (auto committed = commitSigned(transaction); !committed)
        return failure(committed.error());
    return found;
}

} // namespace Countersign
