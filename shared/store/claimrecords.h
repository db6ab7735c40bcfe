#pragma once

#include "operation.h"
#include "result.h"

#include <nlohmann/json_fwd.hpp>

#include <QList>

#include <optional>

namespace Countersign {

class Database;
class WriteTransaction;

// The claims table: one run per ticket. A claim is stored when the run starts and finished with
// the tool's result when it ends; a claim with no end is a run that is still going, or that the
// process stopped during.
class ClaimRecords final
{
public:
    // A run claimed but with no recorded end, found at start-up: the process stopped during it.
    struct Interrupted final
    {
        QString nonce;
        QString tool;
        QString target; // the plan's first target, if any
        qint64 claimedMs = 0;
    };

    explicit ClaimRecords(Database &database);
    Q_DISABLE_COPY_MOVE(ClaimRecords)

    // true: the claim is the caller's; false: the nonce was claimed before, or its operation is not
    // approved or allowed (a superseded card), and nothing changed.
    Result<bool> insert(const WriteTransaction &transaction, const QString &nonce, qint64 claimedMs,
                        const QString &instance);
    // Records the end of a claimed run. false: there is no such claim, or it has finished already.
    Result<bool> finish(const WriteTransaction &transaction, const QString &nonce, qint64 finishedMs,
                        const nlohmann::json &result);
    Result<std::optional<Claim>> find(const QString &nonce);
    // The claims with no end and no "interrupted" row in the audit log, oldest first, but for those
    // of an instance seen after aliveSinceMs (its run may still be going).
    Result<QList<Interrupted>> interruptedUnreported(qint64 aliveSinceMs);

    // The instances that claim runs: one seen at seenMs (a heartbeat, not part of the audit chain),
    // one gone, and when one was last seen (0 when never or gone).
    Status instanceSeen(const QString &id, const QString &name, qint64 startedMs, qint64 seenMs);
    Status instanceGone(const QString &id);
    Result<qint64> instanceLastSeen(const QString &id);

private:
    Database &m_database;
};

} // namespace Countersign
