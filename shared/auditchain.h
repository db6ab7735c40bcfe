#pragma once

#include "result.h"

#include <nlohmann/json_fwd.hpp>

#include <QString>

namespace Countersign {

class Clock;
class Database;
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
        qint64 firstBrokenSeq = 0; // 0: the chain holds
        QString problem;
    };

    // The previous hash of the first row.
    static constexpr const char *kGenesisHash =
        "0000000000000000000000000000000000000000000000000000000000000000";

    AuditChain(Database &database, const Clock &clock);
    Q_DISABLE_COPY_MOVE(AuditChain)

    // Appends a row at the clock's time, linked to the last row. Runs inside transaction, which
    // holds the write lock from reading the last link to writing the new one: the row commits
    // (or not) with the write it records.
    Status append(const WriteTransaction &transaction, const QString &event, const QString &nonce,
                  const nlohmann::json &detail);
    // Walks every row from the first and stops at the first that does not hold: a gap in seq, a
    // link to another hash, a detail that is not JSON, or a hash that does not match the row.
    Result<Report> verify();

private:
    Database &m_database;
    const Clock &m_clock;
};

} // namespace Countersign
