#pragma once

#include "operation.h"
#include "result.h"

#include <nlohmann/json_fwd.hpp>

#include <QList>

#include <optional>

namespace Countersign {

class Database;
class WriteTransaction;

// The operations table (one row per gated call) and the decisions on them (at most one each: the
// first stored wins). Reads run on their own; writes take the WriteTransaction they belong to, in
// which the caller also appends the audit row.
class OperationRecords final
{
public:
    explicit OperationRecords(Database &database);
    Q_DISABLE_COPY_MOVE(OperationRecords)

    // Fails when the nonce is stored already.
    Status insert(const WriteTransaction &transaction, const Operation &operation);
    Result<std::optional<Operation>> find(const QString &nonce);
    // Pending operations, newest first. A row that cannot be read is left out and named in
    // unreadable (when given): one malformed row never hides the other cards.
    Result<QList<Operation>> pending(QStringList *unreadable = nullptr);
    // How many of principal's pending operations expire after nowMs.
    Result<int> pendingCount(const QString &principal, qint64 nowMs);
    Result<int> countByRule(const QString &ruleStart);
    // Whether the operation still waits for a decision; fails when there is no such operation.
    Result<bool> isPending(const QString &nonce);
    // The status alone; none when there is no such operation.
    Result<std::optional<Operation::Status>> status(const QString &nonce);
    Status setStatus(const WriteTransaction &transaction, const QString &nonce, Operation::Status status);
    // Approved operations whose ticket expired after sinceMs, at or before nowMs, with no run
    // claimed, oldest first.
    Result<QStringList> approvedLapsed(qint64 sinceMs, qint64 nowMs);
    // The nonce of the operation that superseded nonce, or of principal's newest card for the same
    // tool and arguments that a call may join (pending, or approved and unclaimed) and that expires
    // after nowMs; empty when there is none.
    Result<QString> replacementOf(const QString &nonce);
    Result<QString> awaitingLike(const QString &principal, const QString &tool, const QString &argsDigest,
                                 qint64 nowMs);
    // Marks a pending or approved operation superseded, unless its run was claimed. false: it was
    // settled otherwise, claimed (or is missing), and nothing changed.
    Result<bool> supersede(const WriteTransaction &transaction, const QString &nonce);

    // One person's approval of a card that needs more than one (Review); a second one by the same
    // reviewer changes nothing.
    Status insertReview(const WriteTransaction &transaction, const QString &nonce, const QString &reviewer,
                        qint64 atMs);
    // Stores the decision unless the operation has one. false: it had one, which stands.
    Result<bool> insertDecision(const WriteTransaction &transaction, const QString &nonce,
                                const Decision &decision);
    Result<std::optional<Decision>> decision(const QString &nonce);

    // One JSON object per operation, oldest first, with its decision and run (see
    // AuditStore::report).
    Result<QList<nlohmann::json>> report(bool full);

private:
    Database &m_database;
};

} // namespace Countersign
