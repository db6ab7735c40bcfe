#pragma once

// Every SQL text of the store, in one place. Statements bind parameters only; none is built by
// concatenating input.
namespace Countersign::StoreSql {

// One statement each; statements sharing a version run in one transaction, in order.
struct Migration
{
    int version;
    const char *statement;
};

inline constexpr Migration kMigrations[] = {
    // 1: client connections (bearer tokens, stored as SHA-256 of the token)
    {1, R"(CREATE TABLE connections (
         id INTEGER PRIMARY KEY,
         name TEXT NOT NULL UNIQUE,
         token_hash TEXT NOT NULL UNIQUE,
         created_ms INTEGER NOT NULL,
         revoked_ms INTEGER
       ))"},
};

inline constexpr const char *kSchemaVersionGet = "PRAGMA user_version";

inline constexpr const char *kConnectionInsert =
    "INSERT INTO connections (name, token_hash, created_ms) VALUES (?, ?, ?)";
inline constexpr const char *kConnectionByName = "SELECT id, revoked_ms FROM connections WHERE name = ?";
inline constexpr const char *kConnectionReplace =
    "UPDATE connections SET token_hash = ?, created_ms = ?, revoked_ms = NULL WHERE name = ?";
inline constexpr const char *kConnectionList =
    "SELECT name, created_ms, revoked_ms FROM connections ORDER BY name";
inline constexpr const char *kConnectionRevoke =
    "UPDATE connections SET revoked_ms = ? WHERE name = ? AND revoked_ms IS NULL";
inline constexpr const char *kConnectionActiveHashes =
    "SELECT id, name, token_hash FROM connections WHERE revoked_ms IS NULL";

} // namespace Countersign::StoreSql
