#pragma once

#include "operation.h"
#include "result.h"

#include <nlohmann/json.hpp>

#include <QList>

#include <optional>

namespace Countersign {

class Clock;
class Database;

// The gate's records in SQLite: operations, decisions (the first stored wins), claims (one run per
// ticket) and the audit log, whose rows form a hash chain (each row's hash covers the previous
// row's hash and its own fields). Every write and its audit row commit together. One instance per
// thread, over that thread's Database.
class AuditStore final
{
public:
    AuditStore(Database &database, const Clock &clock);
    Q_DISABLE_COPY_MOVE(AuditStore)

    // A new operation: pending (a card), or allowed/denied by a rule.
    Status recordOperation(const Operation &operation);
    Result<std::optional<Operation>> operation(const QString &nonce);
    // Pending operations, newest first (what the queue shows after a restart).
    Result<QList<Operation>> pendingOperations();
    // How many unexpired cards a connection has waiting.
    Result<int> pendingCount(const QString &principal);

    // Stores the decision unless one is stored already, and returns the decision in force: the
    // caller's, or the earlier one that won. Only a pending operation can be decided.
    Result<Decision> decide(const QString &nonce, const Decision &decision);
    Result<std::optional<Decision>> decision(const QString &nonce);
    // The plan changed after the card was shown: the old operation is superseded by a new one.
    Status supersede(const QString &nonce, const QString &byNonce);

    // Claims the single run of a ticket. true: this caller must run it; false: it was claimed before.
    Result<bool> claim(const QString &nonce);
    Status finishClaim(const QString &nonce, const nlohmann::json &result);
    Result<std::optional<Claim>> claimOf(const QString &nonce);

    // A run claimed but with no recorded end, found at start-up: the process stopped during it.
    struct Interrupted final
    {
        QString nonce;
        QString tool;
        QString target; // the plan's first target, if any
        qint64 claimedMs = 0;
    };
    // The interrupted runs not reported before, oldest first; each is now reported (an
    // "interrupted" row in the audit log), so the next start does not report it again. Call at
    // start-up, before this installation's server runs anything.
    Result<QList<Interrupted>> reportInterrupted();

    struct ChainReport final
    {
        qint64 rows = 0;
        qint64 firstBrokenSeq = 0; // 0: the chain holds
        QString problem;
    };
    Result<ChainReport> verifyChain();

    // One JSON object per operation, oldest first: time, client, tool, targets, decision, who,
    // reason, outcome; with full = true also the prompt, plan, arguments and stored result.
    Result<QList<nlohmann::json>> report(bool full);

    static constexpr const char *kGenesisHash =
        "0000000000000000000000000000000000000000000000000000000000000000";

private:
    Status append(const char *event, const QString &nonce, const nlohmann::json &detail);
    template <typename Fn> Status writeTransaction(Fn &&body);

    Database &m_db;
    const Clock &m_clock;
};

} // namespace Countersign
