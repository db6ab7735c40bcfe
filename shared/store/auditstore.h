#pragma once

#include "auditchain.h"
#include "claimrecords.h"
#include "operation.h"
#include "result.h"
#include "writetransaction.h"

#include <nlohmann/json.hpp>

#include <QList>

#include <memory>
#include <optional>

namespace Countersign {

class Clock;
class Database;
class OperationRecords;
class ReceiptSigner;
class WriteTransaction;

// The gate's records in SQLite: operations, decisions (the first stored wins), claims (one run per
// ticket) and the audit log, whose rows form a hash chain (each row's hash covers the previous
// row's hash and its own fields). Every write and its audit row commit together, in one
// WriteTransaction. One instance per thread, over that thread's Database.
//
// A facade over OperationRecords (operations and decisions), ClaimRecords and AuditChain: the parts
// read and write their tables, and this class decides which writes go together. Its definitions are
// cut by what they record, each file read in one sitting: auditstore.cpp (operations, cards,
// events, the chain), auditstoredecisions.cpp (decisions), auditstoreruns.cpp (claimed runs).
class AuditStore final
{
public:
    // signer checkpoints the chain at each decision and is the key decisions are checked with;
    // without one (a reader: audit verify, export) the store can record no decision.
    AuditStore(Database &database, const Clock &clock, const ReceiptSigner *signer);
    // Whether another connection (of any process) committed to a SQLite store since this one's
    // connection last asked (Database::dataVersion); nothing on PostgreSQL or when it cannot say.
    std::optional<qint64> dataVersion() { return m_db.dataVersion(); }
    ~AuditStore();
    Q_DISABLE_COPY_MOVE(AuditStore)

    // A new operation: pending (a card), or allowed/denied by a rule.
    Status recordOperation(const Operation &operation);
    // A call a rule allowed: recorded and its run claimed, in one transaction (one commit fewer on
    // the path every allowed call takes). Relaxed for a read (see Durability).
    Status recordClaimed(const Operation &operation, Durability durability = Durability::Synced);
    // A new card, unless its connection already has an unexpired pending card for the same tool
    // and arguments (an identical call planned at the same time): the check and the insert hold
    // one write lock. The nonce of the card in force: card's, or the earlier one's (then nothing
    // was stored).
    Result<QString> recordCard(const Operation &card);
    // The operation, only as its chain row records it: every column that decides something about
    // it (connection, tool, arguments, plan, risk, approval mode, review rules and owner, creation
    // and expiry) must hold what its signed "minted" row holds, its plan and arguments their
    // digests, and its approvals the signed "reviewed" rows, both ways. A row that differs is an
    // error (written around the store), never an operation to act on. A reader (no key) gets the
    // row as stored.
    Result<std::optional<Operation>> operation(const QString &nonce);
    // Where the operation stands, as its row says (none: no such operation). What a waiting call
    // or a span polls; the call then reads the operation and its decision checked.
    Result<std::optional<Operation::Status>> status(const QString &nonce);
    // The row as stored, unchecked: for showing history (the audit view), never for deciding.
    Result<std::optional<Operation>> storedOperation(const QString &nonce);
    // Pending operations, newest first (what the queue shows after a restart), each checked as
    // operation() checks it; one that differs from the chain, or cannot be read, is left out, and
    // why is appended to refused.
    Result<QList<Operation>> pendingOperations(QStringList *refused = nullptr);
    // How many unexpired cards a connection has waiting.
    Result<int> pendingCount(const QString &principal);
    // How many calls were decided by a rule whose words begin with ruleStart (a grant's uses).
    Result<int> countByRule(const QString &ruleStart);

    // Stores the decision unless one is stored already, and returns the decision in force: the
    // caller's, or the earlier one that won. Only a pending operation can be decided. An approval
    // must pass the card's Review (refused with why); on a card that needs more people than have
    // approved it, it is recorded and the result is pending (by: the caller): the card waits for
    // the next person, and the approval that completes it is decided "by" every approver, in order.
    Result<Decision> decide(const QString &nonce, const Decision &decision);
    Result<std::optional<Decision>> decision(const QString &nonce);
    // Approved operations whose ticket expired before their agent called again to run them are
    // marked timed out (nothing ran), each with its row in the chain; the nonces marked. Reads
    // first and writes only when there is something to mark.
    Result<QStringList> timeOutLapsedApprovals();
    // One approved operation whose time to decide ended (seen, then approved, and its agent came
    // back after) before its run was claimed: marked timed out, with its row in the chain, so that
    // the same call asks again with a new card rather than joining this one until its seal. False
    // when it is no longer approved and unclaimed (nothing changed).
    Result<bool> timeOutApproval(const QString &nonce);
    // The decision, only when its row in the audit chain records it and a checkpoint signed with
    // this store's key covers that row; a decision that is not in the verified chain is an error
    // (a row written around the store), never a decision in force.
    Result<std::optional<Decision>> verifiedDecision(const QString &nonce);
    // The card as stored is the one its "minted" row in the verified chain records (tool,
    // connection, arguments, plan, expiry), and it has not timed out there; otherwise why not.
    // Checked before a fresh call runs an approved card, which has no sealed ticket to trust.
    Status verifiedCard(const Operation &card);
    // The plan changed after the card was shown: replacement (a pending operation whose supersedes
    // names the old one) is stored and the old one superseded, in one transaction, only when the
    // old one is still pending or approved, unclaimed and not replaced before. false: it was not
    // (another retry ran or replaced it first), and nothing was stored.
    Result<bool> replace(const Operation &replacement);
    // The operation that replaced nonce; empty when none did.
    Result<QString> replacementOf(const QString &nonce);
    // principal's newest unexpired card for this tool and these arguments that a call may join:
    // pending, or approved and not yet claimed (its agent stopped waiting before the human
    // decided, and the approval waits for its next identical call); empty when none.
    Result<QString> awaitingLike(const QString &principal, const QString &tool, const QString &argsDigest);

    // Claims the single run of a ticket. true: this caller must run it; false: it was claimed before.
    Result<bool> claim(const QString &nonce);
    Status finishClaim(const QString &nonce, const nlohmann::json &result,
                       Durability durability = Durability::Synced);
    // The claim; a finished one only when its stored result is the one its run's chain row records.
    Result<std::optional<Claim>> claimOf(const QString &nonce);

    // This process among the instances sharing the store: its claims carry id. An instance not
    // seen for kInstanceGoneMs is gone (its unfinished runs ended unrecorded); seen() is called
    // every kInstanceSeenEveryMs while it serves.
    static constexpr qint64 kInstanceSeenEveryMs = 2'000;
    static constexpr qint64 kInstanceGoneMs = 10'000;
    void setInstance(const QString &id, const QString &name);
    QString instance() const { return m_instance; }
    Status seen();
    // An earlier instance of this data folder: gone for certain (one console per folder).
    Status forget(const QString &id);
    // Whether the instance was seen within kInstanceGoneMs.
    Result<bool> isAlive(const QString &id);

    // A run claimed but with no recorded end, found at start-up: the process stopped during it.
    using Interrupted = ClaimRecords::Interrupted;
    // The interrupted runs not reported before, oldest first; each is now reported (an
    // "interrupted" row in the audit log), so the next start does not report it again. Call at
    // start-up, before this installation's server runs anything.
    Result<QList<Interrupted>> reportInterrupted();

    // An event that is not about one operation (a policy change accepted or applied, ...), in the
    // hash chain with its detail.
    Status recordEvent(const QString &event, const nlohmann::json &detail);
    // An event about one operation that is not a step of its flow (what an agent's tool did after
    // it was allowed, a revert of it), in the chain under the operation's nonce.
    Status recordEvent(const QString &event, const QString &nonce, const nlohmann::json &detail);
    // The details of the operation's events of that name, oldest first.
    Result<QList<nlohmann::json>> eventsOf(const QString &nonce, const QString &event);
    // When the card's time to decide ends, as its first sighting (card-seen) records it; nothing
    // while no one has seen it, or where the row says no time.
    Result<std::optional<qint64>> decideByOf(const QString &nonce);
    // Every event of that name since sinceMs, with its operation and time, oldest first.
    Result<QList<AuditChain::EventRow>> eventsSince(const QString &event, qint64 sinceMs);
    // The rows of these two events after row afterSeq, oldest first, with their seq and event.
    Result<QList<AuditChain::EventRow>> eventsAfter(const QString &first, const QString &second,
                                                    qint64 afterSeq);
    // The detail of the last such event, or null when there is none.
    Result<nlohmann::json> lastEvent(const QString &event);

    using ChainReport = AuditChain::Report;
    // The chain (every link, every checkpoint signed with publicKey), then the tables against it:
    // every operation, decision and claim has the chain row that records it, and every decision
    // is covered by a checkpoint.
    Result<ChainReport> verifyChain(const QByteArray &publicKey);
    using Head = AuditChain::Head;
    Result<Head> head();
    // The hash of row seq; empty when there is no such row.
    Result<QString> hashAt(qint64 seq);

    // One JSON object per operation, oldest first: time, client, tool, targets, decision, who,
    // reason, outcome; with full = true also the prompt, plan, arguments and stored result. Among
    // them by time, each change of the configuration the chain records (narrowed, a widening
    // waiting, accepted or refused): tool "(configuration)", the event as its decision, who decided
    // it, and what changed as its reason (with full = true, the change itself).
    Result<QList<nlohmann::json>> report(bool full);

    static constexpr const char *kGenesisHash = AuditChain::kGenesisHash;

private:
    Status insertRecorded(const WriteTransaction &transaction, const Operation &operation);
    // Whether operation (as read) is the one the chain records; see operation().
    Status certified(const Operation &operation);
    Status commitSigned(WriteTransaction &transaction);
    // An approved operation whose run was never claimed, marked timed out with its row in the chain.
    Status markTimedOut(const WriteTransaction &transaction, const QString &nonce, qint64 atMs);
    // The writes of decide(), in one transaction. true: an approval recorded as one of several.
    Result<bool> storeDecision(const QString &nonce, const Decision &decision);
    // An approval inside storeDecision's transaction, checked against the card's Review: who the
    // decision is by when it completes the card (every approver), or empty when more are needed.
    Result<QString> approveUnder(const WriteTransaction &transaction, const QString &nonce,
                                 const Decision &approval);

    Database &m_db;
    const Clock &m_clock;
    const ReceiptSigner *m_signer;
    QString m_instance;
    QString m_instanceName;
    qint64 m_lapsedUntilMs = 0; // timeOutLapsedApprovals has swept the expiries up to here
    qint64 m_startedMs = 0;
    std::unique_ptr<OperationRecords> m_operations;
    std::unique_ptr<ClaimRecords> m_claims;
    std::unique_ptr<AuditChain> m_chain;
};

} // namespace Countersign
