#include "migrations.h"

#include "writetransaction.h"

#include <QLoggingCategory>

#include <iterator>

Q_DECLARE_LOGGING_CATEGORY(lcStore)

namespace Countersign::Migrations {

namespace {

enum class Only { Both, Sqlite, Postgres };

// One statement each; statements sharing a version run in one transaction, in order.
struct Migration
{
    int version;
    const char *statement;
    Only only = Only::Both;
};

constexpr Migration kMigrations[] = {
    // 1: client connections (bearer tokens, stored as SHA-256 of the token). PostgreSQL has no
    // json_extract: the function the shared statements use, over jsonpath, returning text (a typed
    // comparison casts it).
    {1, R"(CREATE TABLE connections (
         id {ID},
         name TEXT NOT NULL UNIQUE,
         token_hash TEXT NOT NULL UNIQUE,
         created_ms {BIGINT} NOT NULL,
         revoked_ms {BIGINT}
       ))"},
    {1, R"(CREATE FUNCTION json_extract(doc TEXT, path TEXT) RETURNS TEXT LANGUAGE sql IMMUTABLE STRICT
         AS $$ SELECT jsonb_path_query_first(doc::jsonb, path::jsonpath) #>> '{}' $$)",
     Only::Postgres},
    // 2: the gate: operations (one row per gated call), decisions (first one wins), claims (one
    // run per ticket) and the hash-chained audit log.
    {2, R"(CREATE TABLE operations (
         id {ID},
         nonce TEXT NOT NULL UNIQUE,
         tool TEXT NOT NULL,
         principal TEXT NOT NULL,
         client_info TEXT NOT NULL,
         arguments TEXT NOT NULL,
         args_digest TEXT NOT NULL,
         plan TEXT NOT NULL,
         plan_digest TEXT NOT NULL,
         risk TEXT NOT NULL,
         approval_mode TEXT NOT NULL,
         rule TEXT NOT NULL,
         traceparent TEXT NOT NULL,
         created_ms {BIGINT} NOT NULL,
         expires_ms {BIGINT} NOT NULL,
         supersedes TEXT,
         status TEXT NOT NULL
       ))"},
    {2, "CREATE INDEX operations_status ON operations (status, created_ms)"},
    {2, "CREATE INDEX operations_created ON operations (created_ms)"},
    {2, R"(CREATE TABLE decisions (
         nonce TEXT PRIMARY KEY REFERENCES operations (nonce),
         outcome TEXT NOT NULL CHECK (outcome IN ('approved', 'declined', 'expired', 'superseded')),
         decided_by TEXT NOT NULL,
         reason TEXT NOT NULL,
         decided_ms {BIGINT} NOT NULL
       ))"},
    {2, R"(CREATE TABLE claims (
         nonce TEXT PRIMARY KEY REFERENCES operations (nonce),
         claimed_ms {BIGINT} NOT NULL,
         finished_ms {BIGINT},
         result TEXT
       ))"},
    {2, R"(CREATE TABLE audit_log (
         seq {BIGINT} PRIMARY KEY,
         at_ms {BIGINT} NOT NULL,
         event TEXT NOT NULL,
         nonce TEXT NOT NULL,
         detail TEXT NOT NULL,
         prev_hash TEXT NOT NULL,
         hash TEXT NOT NULL
       ))"},
    // 3: indexes for sorting the audit view by tool and by decision over many rows
    {3, "CREATE INDEX operations_tool ON operations (tool, created_ms)"},
    {3, "CREATE INDEX operations_client ON operations "
        "(COALESCE(NULLIF(json_extract(client_info, '$.name'), ''), principal), created_ms)"},
    // 4: signed checkpoints of the audit chain's head (one at each decision), and the chain's rows
    // by operation (the gate finds a decision's row before acting on it)
    {4, R"(CREATE TABLE audit_checkpoints (
         seq {BIGINT} PRIMARY KEY,
         signed TEXT NOT NULL
       ))"},
    {4, "CREATE INDEX audit_log_nonce ON audit_log (nonce, event)"},
    // The signed head after the last write (one row); rows up to unsigned_until were written before
    // this schema and carry no signatures.
    {4, R"(CREATE TABLE audit_head (
         id INTEGER PRIMARY KEY CHECK (id = 1),
         unsigned_until {BIGINT} NOT NULL,
         signed TEXT
       ))"},
    {4, "INSERT INTO audit_head (id, unsigned_until) SELECT 1, COALESCE(MAX(seq), 0) FROM audit_log"},
    // 5: the instances serving from this store (several share a PostgreSQL one), each seen while
    // it runs, and the instance that claimed each run: a run claimed by a live instance is still
    // going; one claimed by a gone instance ended unrecorded.
    {5, R"(CREATE TABLE instances (
         id TEXT PRIMARY KEY,
         name TEXT NOT NULL,
         started_ms {BIGINT} NOT NULL,
         seen_ms {BIGINT} NOT NULL
       ))"},
    {5, "ALTER TABLE claims ADD COLUMN instance TEXT"},
    // 6: a team's review rules and history: each connection's owner (a person), each card's rules
    // (people needed, owner barred) and the approvals given while more are needed, and the
    // instance that served each call.
    {6, "ALTER TABLE connections ADD COLUMN owner TEXT"},
    {6, "ALTER TABLE operations ADD COLUMN people INTEGER NOT NULL DEFAULT 1"},
    {6, "ALTER TABLE operations ADD COLUMN owner_barred INTEGER NOT NULL DEFAULT 0"},
    {6, "ALTER TABLE operations ADD COLUMN owner TEXT"},
    {6, "ALTER TABLE operations ADD COLUMN instance TEXT"},
    {6, "CREATE INDEX operations_instance ON operations (instance, created_ms)"},
    {6, R"(CREATE TABLE reviews (
         nonce TEXT NOT NULL REFERENCES operations (nonce),
         reviewer TEXT NOT NULL,
         reviewed_ms {BIGINT} NOT NULL,
         PRIMARY KEY (nonce, reviewer)
       ))"},
    {6, "CREATE INDEX reviews_reviewer ON reviews (reviewer)"},
    // 7: a card no one decided before its TTL is "abandoned" when its agent had stopped waiting
    // (distinct from "expired"): the decisions table's outcomes widen. SQLite rebuilds the table to
    // change its CHECK; PostgreSQL replaces the constraint it named.
    {7, R"(CREATE TABLE decisions_v7 (
         nonce TEXT PRIMARY KEY REFERENCES operations (nonce),
         outcome TEXT NOT NULL CHECK (outcome IN ('approved', 'declined', 'expired', 'superseded', 'abandoned')),
         decided_by TEXT NOT NULL,
         reason TEXT NOT NULL,
         decided_ms {BIGINT} NOT NULL
       ))",
     Only::Sqlite},
    {7,
     "INSERT INTO decisions_v7 (nonce, outcome, decided_by, reason, decided_ms) "
     "SELECT nonce, outcome, decided_by, reason, decided_ms FROM decisions",
     Only::Sqlite},
    {7, "DROP TABLE decisions", Only::Sqlite},
    {7, "ALTER TABLE decisions_v7 RENAME TO decisions", Only::Sqlite},
    {7, "ALTER TABLE decisions DROP CONSTRAINT decisions_outcome_check", Only::Postgres},
    {7,
     "ALTER TABLE decisions ADD CONSTRAINT decisions_outcome_check "
     "CHECK (outcome IN ('approved', 'declined', 'expired', 'superseded', 'abandoned'))",
     Only::Postgres},
    // The sweep that times out lapsed approvals reads approved operations by expiry.
    {7, "CREATE INDEX operations_expiring ON operations (status, expires_ms)"},
    // 8: what the two schemas, written apart until then, had drifted on: the operations a card
    // replaced are found by the card that replaced them. PostgreSQL stores have had it since their
    // first schema.
    {8, "CREATE INDEX IF NOT EXISTS operations_supersedes ON operations (supersedes)"},
    // 9: every call asks whether the same call's card waits (connection, tool, arguments): without
    // this it read every earlier call of that tool, a sixth of a quiet hook call's time after a few
    // thousand calls. Only the cards that can still be joined are in it (the query's own status
    // test, which both databases match to the index's).
    {9, "CREATE INDEX IF NOT EXISTS operations_same_call ON operations (principal, tool, args_digest, "
        "created_ms) WHERE status IN ('pending', 'approved')"},
};

// The schema version: SQLite's user_version; on PostgreSQL a one-row table (there is no
// user_version), absent in a new store.
constexpr const char *kSqliteVersionGet = "PRAGMA user_version";
constexpr const char *kPostgresVersionTableExists =
    "SELECT to_regclass('countersign_schema') IS NOT NULL AS present";
constexpr const char *kPostgresVersionTableCreate =
    "CREATE TABLE countersign_schema (version INTEGER NOT NULL)";
constexpr const char *kPostgresVersionGet = "SELECT MAX(version) FROM countersign_schema";
constexpr const char *kPostgresVersionSet = "INSERT INTO countersign_schema (version) VALUES (?)";

QByteArray inDialect(const char *statement, Database::Dialect dialect)
{
    const bool postgres = dialect == Database::Dialect::Postgres;
    return QByteArray(statement)
        .replace("{ID}",
                 postgres ? "BIGINT GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY" : "INTEGER PRIMARY KEY")
        .replace("{BIGINT}", postgres ? "BIGINT" : "INTEGER");
}

bool belongs(const Migration &migration, Database::Dialect dialect)
{
    return migration.only == Only::Both ||
           (migration.only == Only::Postgres) == (dialect == Database::Dialect::Postgres);
}

QList<QByteArray> versionStatements(Database::Dialect dialect, int version)
{
    QList<QByteArray> out;
    for (const Migration &migration : kMigrations) {
        if (migration.version == version && belongs(migration, dialect))
            out.append(inDialect(migration.statement, dialect));
    }
    return out;
}

Status runAll(Database &database, const QList<QByteArray> &statements)
{
    for (const QByteArray &statement : statements) {
        if (auto step = database.exec(statement.constData()); !step)
            return failure(step.error());
    }
    return success();
}

Status applySqlite(Database &database, int current)
{
    for (int version = current + 1; version <= latest(); ++version) {
        WriteTransaction transaction(database);
        if (!transaction.begun())
            return failure(QStringLiteral("migration to schema %1 failed: %2")
                               .arg(version)
                               .arg(transaction.begun().error()));
        Status steps = runAll(database, versionStatements(Database::Dialect::Sqlite, version));
        // PRAGMA takes no bound parameters; the value is our own integer.
        if (steps)
            steps = runAll(database, {QByteArray("PRAGMA user_version = ") + QByteArray::number(version)});
        if (steps)
            steps = transaction.commit();
        if (!steps) // the transaction rolls back as it goes
            return failure(
                QStringLiteral("migration to schema %1 failed: %2").arg(version).arg(steps.error()));
        qCInfo(lcStore) << "migrated" << database.path() << "to schema" << version;
    }
    return success();
}

Status applyPostgres(Database &database)
{
    WriteTransaction transaction(database);
    if (!transaction.begun())
        return failure(QStringLiteral("the PostgreSQL store %1 cannot be written (%2)")
                           .arg(database.path(), transaction.begun().error()));
    const auto fail = [&database](const QString &error) {
        return failure(
            QStringLiteral("migrating the PostgreSQL store %1 failed: %2").arg(database.path(), error));
    };
    const int current = version(database);
    if (current < 0)
        return fail(QStringLiteral("cannot read its schema version"));
    if (current > latest())
        return failure(
            QStringLiteral("the PostgreSQL store %1 has schema %2, newer than this build knows (%3)")
                .arg(database.path())
                .arg(current)
                .arg(latest()));
    if (current == latest())
        return success(); // nothing written: the transaction rolls back
    QList<QByteArray> steps = statements(Database::Dialect::Postgres, current);
    if (current == 0)
        steps.prepend(kPostgresVersionTableCreate);
    if (auto ran = runAll(database, steps); !ran)
        return fail(ran.error());
    if (auto set = database.exec(kPostgresVersionSet, {latest()}); !set)
        return fail(set.error());
    if (auto committed = transaction.commit(); !committed)
        return fail(committed.error());
    qCInfo(lcStore) << "migrated" << database.path() << "to schema" << latest();
    return success();
}

} // namespace

int latest()
{
    return std::rbegin(kMigrations)->version;
}

int version(Database &database)
{
    if (database.dialect() == Database::Dialect::Postgres) {
        auto present = database.exec(kPostgresVersionTableExists);
        if (!present || !present.value().next())
            return -1;
        if (!present.value().value(0).toBool())
            return 0;
        auto got = database.exec(kPostgresVersionGet);
        if (!got || !got.value().next())
            return -1;
        return got.value().value(0).toInt(); // NULL (no row yet) reads as 0
    }
    auto got = database.exec(kSqliteVersionGet);
    if (!got || !got.value().next())
        return -1;
    return got.value().value(0).toInt();
}

QList<QByteArray> statements(Database::Dialect dialect, int after)
{
    QList<QByteArray> out;
    for (int v = after + 1; v <= latest(); ++v)
        out.append(versionStatements(dialect, v));
    return out;
}

Status apply(Database &database)
{
    if (database.dialect() == Database::Dialect::Postgres)
        return applyPostgres(database);
    const int current = version(database);
    if (current < 0)
        return failure(QStringLiteral("cannot read the schema version of %1").arg(database.path()));
    if (current > latest())
        return failure(QStringLiteral("database %1 has schema %2, newer than this build knows (%3)")
                           .arg(database.path())
                           .arg(current)
                           .arg(latest()));
    return applySqlite(database, current);
}

} // namespace Countersign::Migrations
