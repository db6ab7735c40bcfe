#pragma once

#include "result.h"

#include <nlohmann/json_fwd.hpp>

#include <QString>

namespace Countersign {

// The single-use approval ticket sealed into requestState (docs/design.md, "The gate"): who may retry
// (sub, client), which call (op, argsDigest), which plan (planDigest), and when it expires.
struct Ticket final
{
    static constexpr int kVersion = 1;

    int v = kVersion;
    QString kid;        // id of the sealing key
    QString sub;        // principal: the connection name
    QString client;     // clientInfo name, informational
    QString op;         // tool name
    QString argsDigest; // hex SHA-256 of the canonical arguments
    QString planDigest; // hex SHA-256 of the canonical plan
    QString nonce;      // random, 32 hex chars; the ticket's identity in the store
    qint64 iat = 0;     // issued at, ms since epoch
    qint64 exp = 0;     // expires at, ms since epoch

    nlohmann::json toJson() const;
    // Every field must be present with its type; anything else is refused.
    static Result<Ticket> fromJson(const nlohmann::json &value);

    bool operator==(const Ticket &) const = default;
};

} // namespace Countersign
