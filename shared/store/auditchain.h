#pragma once

#include "result.h"

#include <nlohmann/json.hpp>

#include <QList>
#include <QString>
#include <QStringList>

#include <optional>

namespace Countersign {

class Clock;
class Database;
class ReceiptSigner;
class WriteTransaction;

// The audit log: one row per event (minted, approved, claimed, ...), each row's hash covering the
// previous row's hash and its own fields (seq, time, event, nonce, detail), so altering, removing
// or reordering a row breaks the chain from that row on.
class AuditChain final
{
public:
    struct Report final
    {
        qint64 rows = 0;
        qint64 checkpoints = 0;
        qint64 firstBrokenSeq = 0; // 0: the chain holds
        QString problem;
    };

    // The previous hash of the first row.
    static constexpr const char *kGenesisHash =
        "0000000000000000000000000000000000000000000000000000000000000000";

    AuditChain(Database &database, const Clock &clock);
    Q_DISABLE_COPY_MOVE(AuditChain)

    // The event recorded when a write finds the log changed around Countersign since its last
    // signed head (rows appended, cut or rewritten with no key): before the write's own rows, so
    // signing the new head never makes the change pass `audit verify`.
    static constexpr const char *kChangedAround = "log-changed-around";
    // With a key, the first append of each transaction first checks the log's signed head against
    // the last row, and records what it finds wrong (kChangedAround). A store that signs sets it.
    void guardHead(const QByteArray &publicKey) { m_headKey = publicKey; }

    // Appends a row at the clock's time, linked to the last row. Runs inside transaction, which
    // holds the write lock from reading the last link to writing the new one: the row commits
    // (or not) with the write it records.
    Status append(const WriteTransaction &transaction, const QString &event, const QString &nonce,
                  const nlohmann::json &detail);
    // Walks every row from the first and stops at the first that does not hold: a gap in seq, a
    // link to another hash, a detail that is not JSON, or a hash that does not match the row.
    // Then every signed checkpoint: signed with publicKey, naming a row that exists with that hash.
    Result<Report> verify(const QByteArray &publicKey);

    struct Head final
    {
        qint64 seq = 0;
        QString hash = QLatin1String(kGenesisHash);
    };
    Result<Head> head();
    // The hash of row seq; empty when there is no such row.
    Result<QString> hashAt(qint64 seq);
    // The detail of the last row of event recorded for no operation; null when there is none.
    Result<nlohmann::json> lastEvent(const QString &event);
    // Whether a row records event for nonce.
    Result<bool> records(const QString &nonce, const QString &event);
    // The details of the rows recording event for nonce, oldest first.
    Result<QList<nlohmann::json>> detailsOf(const QString &nonce, const QString &event);
    // The rows recording event since sinceMs, oldest first.
    struct EventRow final
    {
        QString nonce;
        qint64 atMs = 0;
        nlohmann::json detail;
        QString event;
        qint64 seq = 0;
    };
    Result<QList<EventRow>> eventsSince(const QString &event, qint64 sinceMs);
    // The rows of these two events after row afterSeq, oldest first (an index range on seq: cheap
    // to ask often).
    Result<QList<EventRow>> eventsAfter(const QString &first, const QString &second, qint64 afterSeq);
    // Who approved nonce as one of several ("reviewed" rows), oldest first: each row must carry
    // its own signature made with publicKey, or the list is refused with why.
    Result<QStringList> signedReviewers(const QString &nonce, const QByteArray &publicKey);
    // Signs the head as it stands inside transaction (Ed25519, the receipt key) and stores it as
    // a checkpoint: rows up to it cannot be rewritten, nor the log cut below it, without the key.
    Status checkpoint(const WriteTransaction &transaction, const ReceiptSigner &signer);
    // Succeeds when the first row recording event for nonce holds every member of expected in
    // its detail and is covered by a checkpoint signed with publicKey through links that verify
    // (and, for a decision row, carries that decision's own signature); otherwise says why not.
    enum class Row { Decision, Plain };
    Status certify(const QString &nonce, const QString &event, const nlohmann::json &expected,
                   const QByteArray &publicKey, Row row = Row::Decision);
    // The signed body of a checkpoint: {"kind", "seq", "hash"}.
    static nlohmann::json headBody(const Head &head);
    // Signs the head as it stands inside transaction as the log's current head (audit_head): a
    // row appended around the store, or the log cut, no longer matches it.
    Status signHead(const WriteTransaction &transaction, const ReceiptSigner &signer);
    // The transaction that signed the head committed: that head is the one this instance signed
    // last (a rolled-back one, say on a full disk, never is).
    void committed();
    // The signed body of a decision, carried in its chain row's detail as "signed".
    static nlohmann::json decisionBody(const QString &nonce, const QString &outcome, const QString &by,
                                       const QString &reason, qint64 decidedMs);
    // A signed head (a checkpoint, or the log's head) signed with publicKey; or why not.
    static Result<Head> signedHead(const QByteArray &signedText, const QByteArray &publicKey);

private:
    // Why the log's signed head does not name the last row (lastSeq, lastHash); empty when it does.
    Result<QString> checkHead(qint64 lastSeq, const QString &lastHash, const QByteArray &publicKey);

    Status guardHeadOnce(const WriteTransaction &transaction);
    Status insertRow(qint64 seq, const QString &prev, const QString &event, const QString &nonce,
                     const nlohmann::json &detail, QString *hash = nullptr);

    Database &m_database;
    const Clock &m_clock;
    QByteArray m_headKey;
    quint64 m_headCheckedIn = 0;         // the transaction whose first write checked the head
    std::optional<Head> m_lastSigned;    // the head this instance signed last, committed
    std::optional<Head> m_pendingSigned; // signed in the open transaction
};

} // namespace Countersign
