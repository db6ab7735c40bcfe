#pragma once

// Every SQL text of the store but its schema (migrations.cpp), in one place. Statements bind
// parameters only; none is built by concatenating input. One text serves SQLite and PostgreSQL
// wherever the two agree (json_extract
// is SQLite's own and, on PostgreSQL, a function the schema defines over jsonpath, returning text:
// a typed comparison casts it); where they differ there is one text each (kPostgres*).
namespace Countersign::StoreSql {

inline constexpr const char *kConnectionInsert =
    "INSERT INTO connections (name, token_hash, created_ms, owner) VALUES (?, ?, ?, ?)";
inline constexpr const char *kConnectionByName = "SELECT id, revoked_ms FROM connections WHERE name = ?";
inline constexpr const char *kConnectionReplace =
    "UPDATE connections SET token_hash = ?, created_ms = ?, revoked_ms = NULL, owner = ? WHERE name = ?";
inline constexpr const char *kConnectionList =
    "SELECT name, created_ms, revoked_ms, owner FROM connections ORDER BY name";
inline constexpr const char *kConnectionRevoke =
    "UPDATE connections SET revoked_ms = ? WHERE name = ? AND revoked_ms IS NULL";
inline constexpr const char *kConnectionActiveHashes =
    "SELECT id, name, token_hash, owner, created_ms FROM connections WHERE revoked_ms IS NULL";

// Transactions (WriteTransaction; Database::open probes writability with the first and last).
inline constexpr const char *kBeginImmediate = "BEGIN IMMEDIATE";
inline constexpr const char *kCommit = "COMMIT";
inline constexpr const char *kRollback = "ROLLBACK";
inline constexpr const char *kSyncFull = "PRAGMA synchronous=FULL";
inline constexpr const char *kSyncRelaxed = "PRAGMA synchronous=NORMAL";
// PostgreSQL: one writer at a time across every instance sharing the store, as SQLite's IMMEDIATE
// gives on one file (the audit chain's next link is read and written under it); the lock is the
// transaction's and goes with it. A relaxed commit does not wait for the WAL flush.
inline constexpr const char *kPostgresBegin = "BEGIN";
inline constexpr const char *kPostgresWriteLock = "SELECT pg_advisory_xact_lock(7332170001)";
inline constexpr const char *kPostgresSyncRelaxed = "SET LOCAL synchronous_commit = off";
// Sent inside each committed write transaction; delivered at the commit to every listener.
inline constexpr const char *kPostgresNotifyChanged = "SELECT pg_notify('countersign_store', '')";
inline constexpr const char *kPostgresListenChannel = "countersign_store";
// What every PostgreSQL session of the store is set to, at open and at a reconnect.
inline constexpr const char *kPostgresSession[] = {"SET client_min_messages = warning",
                                                   "SET TIME ZONE 'UTC'"};
inline constexpr const char *kPostgresReadOnly = "SET default_transaction_read_only = on";

// OperationRecords: operations and their decisions. Rows are read by column name: every column that
// is an expression, or comes from a join, has an alias.
inline constexpr const char *kOperationInsert =
    "INSERT INTO operations (nonce, tool, principal, client_info, arguments, args_digest, plan, plan_digest, "
    "risk, "
    "approval_mode, rule, traceparent, created_ms, expires_ms, supersedes, status, people, owner_barred, "
    "owner, "
    "instance) "
    "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)";
inline constexpr const char *kOperationByNonce =
    "SELECT nonce, tool, principal, client_info, arguments, args_digest, plan, plan_digest, risk, "
    "approval_mode, rule, "
    "traceparent, created_ms, expires_ms, supersedes, status, people, owner_barred, owner, instance "
    "FROM operations WHERE nonce = ?";
inline constexpr const char *kOperationStatus = "SELECT status FROM operations WHERE nonce = ?";
inline constexpr const char *kOperationsPending =
    "SELECT nonce, tool, principal, client_info, arguments, args_digest, plan, plan_digest, risk, "
    "approval_mode, rule, "
    "traceparent, created_ms, expires_ms, supersedes, status, people, owner_barred, owner, instance "
    "FROM operations WHERE status = 'pending' ORDER BY created_ms DESC";
inline constexpr const char *kOperationsPendingFor =
    "SELECT COUNT(*) AS pending FROM operations "
    "WHERE principal = ? AND status = 'pending' AND expires_ms > ?";
// The calls a rule decided whose words begin with the given text (a grant's "grant <id> ").
inline constexpr const char *kOperationsByRule =
    "SELECT COUNT(*) AS decided FROM operations WHERE substr(rule, 1, ?) = ?";
inline constexpr const char *kOperationSetStatus = "UPDATE operations SET status = ? WHERE nonce = ?";
// Approved operations whose ticket expired before any call claimed their run (their agent did not
// come back in time): they time out. Bound: now, and the last sweep's now (operations_expiring
// serves the range).
inline constexpr const char *kOperationsApprovedLapsed =
    "SELECT o.nonce FROM operations o WHERE o.status = 'approved' AND o.expires_ms <= ? AND o.expires_ms > ? "
    "AND NOT EXISTS (SELECT 1 FROM claims c WHERE c.nonce = o.nonce) ORDER BY o.created_ms";
// Only a card whose run was never claimed can be superseded: the claim check and the update are
// one statement inside the caller's write transaction.
inline constexpr const char *kOperationSupersede =
    "UPDATE operations SET status = 'superseded' WHERE nonce = ? AND status IN ('pending', 'approved') "
    "AND NOT EXISTS (SELECT 1 FROM claims c WHERE c.nonce = operations.nonce)";
inline constexpr const char *kOperationReplacement =
    "SELECT nonce FROM operations WHERE supersedes = ? ORDER BY created_ms LIMIT 1";
// A card an identical call joins: still pending, or approved and not yet claimed (its agent gave up
// waiting before the human decided), and unexpired.
// Its status test, as written, is what lets both databases use the partial index operations_same_call.
inline constexpr const char *kOperationAwaitingSame =
    "SELECT o.nonce FROM operations o WHERE o.principal = ? AND o.tool = ? AND o.args_digest = ? "
    "AND o.status IN ('pending', 'approved') AND o.expires_ms > ? "
    "AND NOT EXISTS (SELECT 1 FROM claims c WHERE c.nonce = o.nonce) ORDER BY o.created_ms DESC LIMIT 1";

inline constexpr const char *kDecisionInsert =
    "INSERT INTO decisions (nonce, outcome, decided_by, reason, decided_ms) VALUES (?, ?, ?, ?, ?) "
    "ON CONFLICT DO NOTHING";
// The approvals of a card that needs more than one person, oldest first.
inline constexpr const char *kReviewInsert =
    "INSERT INTO reviews (nonce, reviewer, reviewed_ms) VALUES (?, ?, ?) ON CONFLICT DO NOTHING";
inline constexpr const char *kReviewsOf =
    "SELECT reviewer FROM reviews WHERE nonce = ? ORDER BY reviewed_ms, reviewer";
inline constexpr const char *kReviewsPending =
    "SELECT r.nonce AS nonce, r.reviewer AS reviewer FROM reviews r JOIN operations o ON o.nonce = r.nonce "
    "WHERE o.status = 'pending' ORDER BY r.reviewed_ms, r.reviewer";
inline constexpr const char *kDecisionByNonce =
    "SELECT outcome, decided_by, reason, decided_ms FROM decisions WHERE nonce = ?";

// One row per operation with its decision and run, for export.
inline constexpr const char *kOperationsReport =
    "SELECT o.created_ms AS created_ms, o.nonce AS nonce, o.principal AS principal, "
    "o.client_info AS client_info, o.tool AS tool, o.plan AS plan, o.arguments AS arguments, o.risk AS risk, "
    "o.rule AS rule, o.status AS status, d.decided_by AS decided_by, d.reason AS reason, "
    "d.decided_ms AS decided_ms, c.claimed_ms AS claimed_ms, c.finished_ms AS finished_ms, "
    "c.result AS result, o.supersedes AS supersedes, o.instance AS instance, o.owner AS owner "
    "FROM operations o LEFT JOIN decisions d ON d.nonce = o.nonce LEFT JOIN claims c ON c.nonce = o.nonce "
    "ORDER BY o.created_ms, o.id";

// The configuration's changes the audit log records (ConfigGuard: accepted, refused, waiting,
// narrowed), oldest first, for the audit export.
inline constexpr const char *kPolicyEvents =
    "SELECT seq, at_ms, event, detail FROM audit_log WHERE nonce = '' AND event IN ('policy-narrowed', "
    "'policy-widened-accepted', 'policy-widened-rejected', 'policy-widening-waiting') ORDER BY seq";

// ClaimRecords: the single run of each ticket.
// Only an approved or rule-allowed operation can be claimed (a superseded card's late retry cannot).
inline constexpr const char *kClaimInsert =
    "INSERT INTO claims (nonce, claimed_ms, instance) SELECT CAST(? AS TEXT), CAST(? AS BIGINT), CAST(? AS "
    "TEXT) "
    "WHERE EXISTS "
    "(SELECT 1 FROM operations WHERE nonce = ? AND status IN ('approved', 'allowed')) ON CONFLICT DO NOTHING";
inline constexpr const char *kClaimFinish =
    "UPDATE claims SET finished_ms = ?, result = ? WHERE nonce = ? AND finished_ms IS NULL";
inline constexpr const char *kClaimsInterruptedUnreported =
    "SELECT c.nonce AS nonce, o.tool AS tool, COALESCE(json_extract(o.plan, '$.targets[0]'), '') AS target, "
    "c.claimed_ms AS claimed_ms "
    "FROM claims c JOIN operations o ON o.nonce = c.nonce WHERE c.finished_ms IS NULL AND NOT EXISTS "
    "(SELECT 1 FROM audit_log a WHERE a.nonce = c.nonce AND a.event = 'interrupted') "
    "AND NOT EXISTS (SELECT 1 FROM instances i WHERE i.id = c.instance AND i.seen_ms > ?) ORDER BY "
    "c.claimed_ms";
inline constexpr const char *kClaimByNonce =
    "SELECT claimed_ms, finished_ms, result, instance FROM claims WHERE nonce = ?";

// The instances serving from the store.
inline constexpr const char *kInstanceSeen =
    "INSERT INTO instances (id, name, started_ms, seen_ms) VALUES (?, ?, ?, ?) "
    "ON CONFLICT (id) DO UPDATE SET seen_ms = excluded.seen_ms";
inline constexpr const char *kInstanceGone = "UPDATE instances SET seen_ms = 0 WHERE id = ?";
inline constexpr const char *kInstanceLastSeen = "SELECT seen_ms FROM instances WHERE id = ?";

// AuditChain: the hash-chained audit log.
inline constexpr const char *kAuditLast = "SELECT seq, hash FROM audit_log ORDER BY seq DESC LIMIT 1";
inline constexpr const char *kAuditInsert =
    "INSERT INTO audit_log (seq, at_ms, event, nonce, detail, prev_hash, hash) VALUES (?, ?, ?, ?, ?, ?, ?)";
inline constexpr const char *kAuditAll =
    "SELECT seq, at_ms, event, nonce, detail, prev_hash, hash FROM audit_log ORDER BY seq";
inline constexpr const char *kAuditFrom =
    "SELECT seq, at_ms, event, nonce, detail, prev_hash, hash FROM audit_log WHERE seq >= ? AND seq <= ? "
    "ORDER BY seq";
inline constexpr const char *kAuditLastEvent =
    "SELECT detail FROM audit_log WHERE nonce = '' AND event = ? ORDER BY seq DESC LIMIT 1";
inline constexpr const char *kAuditHashAt = "SELECT hash FROM audit_log WHERE seq = ?";
inline constexpr const char *kAuditFirstOf =
    "SELECT seq FROM audit_log WHERE nonce = ? AND event = ? ORDER BY seq LIMIT 1";
inline constexpr const char *kAuditDetailsOf =
    "SELECT seq, detail FROM audit_log WHERE nonce = ? AND event = ? ORDER BY seq";
inline constexpr const char *kAuditEventsSince =
    "SELECT seq, nonce, at_ms, detail FROM audit_log WHERE event = ? AND at_ms >= ? ORDER BY seq";
inline constexpr const char *kAuditEventsAfter =
    "SELECT seq, nonce, at_ms, event, detail FROM audit_log WHERE seq > ? AND event IN (?, ?) ORDER BY seq";
inline constexpr const char *kCheckpointInsert = "INSERT INTO audit_checkpoints (seq, signed) VALUES (?, ?) "
                                                 "ON CONFLICT (seq) DO UPDATE SET signed = excluded.signed";
inline constexpr const char *kCheckpointCovering =
    "SELECT seq, signed FROM audit_checkpoints WHERE seq >= ? ORDER BY seq LIMIT 1";
inline constexpr const char *kCheckpointAll = "SELECT seq, signed FROM audit_checkpoints ORDER BY seq";
inline constexpr const char *kHeadGet = "SELECT unsigned_until, signed FROM audit_head WHERE id = 1";
inline constexpr const char *kHeadSet = "UPDATE audit_head SET signed = ? WHERE id = 1";
// Whether any signed checkpoint exists (signing has begun).
inline constexpr const char *kCheckpointAny = "SELECT 1 FROM audit_checkpoints LIMIT 1";
// The first row recording that a write found the log changed around Countersign (bound: the event).
inline constexpr const char *kAuditChangedAround =
    "SELECT seq, detail FROM audit_log WHERE event = ? ORDER BY seq LIMIT 1";
inline constexpr const char *kAuditDecisionRows =
    "SELECT seq, nonce, event, detail FROM audit_log WHERE event IN ('approved', 'declined', 'expired', "
    "'abandoned', 'reviewed') "
    "AND seq > (SELECT unsigned_until FROM audit_head WHERE id = 1) ORDER BY seq";

// AuditCrossCheck: each returns the nonce of the first row that the chain does not account for.
inline constexpr const char *kCrossDecisionUnrecorded =
    "SELECT d.nonce FROM decisions d WHERE NOT EXISTS (SELECT 1 FROM audit_log a WHERE a.nonce = d.nonce "
    "AND a.event = d.outcome AND json_extract(a.detail, '$.by') = d.decided_by "
    "AND json_extract(a.detail, '$.reason') = d.reason "
    "AND CAST(json_extract(a.detail, '$.decidedMs') AS BIGINT) = d.decided_ms) "
    "LIMIT 1";
inline constexpr const char *kCrossDecisionUnsigned =
    "SELECT d.nonce FROM decisions d JOIN audit_log a ON a.nonce = d.nonce AND a.event = d.outcome "
    "WHERE a.seq > COALESCE((SELECT MAX(seq) FROM audit_checkpoints), 0) LIMIT 1";
inline constexpr const char *kCrossDecisionRemoved =
    "SELECT a.nonce FROM audit_log a WHERE a.event IN ('approved', 'declined', 'expired', 'abandoned') "
    "AND NOT EXISTS (SELECT 1 FROM decisions d WHERE d.nonce = a.nonce) LIMIT 1";
inline constexpr const char *kCrossOperationUnrecorded =
    "SELECT o.nonce FROM operations o WHERE NOT EXISTS (SELECT 1 FROM audit_log a WHERE a.nonce = o.nonce "
    "AND a.event IN ('minted', 'settled-by-rule') AND json_extract(a.detail, '$.tool') = o.tool "
    "AND json_extract(a.detail, '$.principal') = o.principal "
    "AND json_extract(a.detail, '$.argsDigest') = o.args_digest "
    "AND json_extract(a.detail, '$.planDigest') = o.plan_digest "
    "AND CAST(json_extract(a.detail, '$.expiresMs') AS BIGINT) = o.expires_ms "
    "AND json_extract(a.detail, '$.rule') = o.rule "
    "AND json_extract(a.detail, '$.supersedes') = COALESCE(o.supersedes, '') "
    // Rows minted before the chain recorded these (no approvalMode) hold them nowhere to compare.
    "AND (json_extract(a.detail, '$.approvalMode') IS NULL OR "
    "(json_extract(a.detail, '$.approvalMode') = o.approval_mode AND json_extract(a.detail, '$.risk') = "
    "o.risk "
    "AND CAST(json_extract(a.detail, '$.people') AS BIGINT) = o.people "
    "AND CAST(json_extract(a.detail, '$.ownerBarred') AS BIGINT) = o.owner_barred "
    "AND json_extract(a.detail, '$.owner') = COALESCE(o.owner, '') "
    "AND CAST(json_extract(a.detail, '$.createdMs') AS BIGINT) = o.created_ms))) LIMIT 1";
// Each approval of several has its signed chain row, and each such row its approval.
inline constexpr const char *kCrossReviewUnrecorded =
    "SELECT r.nonce FROM reviews r WHERE NOT EXISTS (SELECT 1 FROM audit_log a WHERE a.nonce = r.nonce "
    "AND a.event = 'reviewed' AND json_extract(a.detail, '$.by') = r.reviewer "
    "AND CAST(json_extract(a.detail, '$.decidedMs') AS BIGINT) = r.reviewed_ms) LIMIT 1";
inline constexpr const char *kCrossReviewRemoved =
    "SELECT a.nonce FROM audit_log a WHERE a.event = 'reviewed' AND NOT EXISTS (SELECT 1 FROM reviews r "
    "WHERE r.nonce = a.nonce AND r.reviewer = json_extract(a.detail, '$.by')) LIMIT 1";
// Every operation's plan and arguments with the digests its chain row records, and its client with
// the one its first chain row records (compared in C++).
inline constexpr const char *kCrossOperationDigests =
    "SELECT o.nonce, o.plan, o.plan_digest, o.arguments, o.args_digest, o.client_info, "
    "(SELECT a.detail FROM audit_log a WHERE a.nonce = o.nonce AND a.event IN ('minted', 'settled-by-rule') "
    "ORDER BY a.seq LIMIT 1) FROM operations o";
// An operation whose status the chain does not account for (those a decision gives are compared
// with the decision above): waiting, though the chain records no card or records its end; allowed
// or denied without the rule that settled it so; superseded without the row that replaced it.
inline constexpr const char *kCrossStatusUnrecorded =
    "SELECT o.nonce FROM operations o WHERE (o.status = 'pending' AND (NOT EXISTS (SELECT 1 FROM audit_log a "
    "WHERE a.nonce = o.nonce AND a.event = 'minted') OR EXISTS (SELECT 1 FROM audit_log a WHERE a.nonce = "
    "o.nonce AND a.event IN ('superseded', 'timed-out', 'approved', 'declined', 'expired', 'abandoned')))) "
    "OR (o.status IN ('allowed', 'denied') AND NOT EXISTS (SELECT 1 FROM audit_log a WHERE a.nonce = o.nonce "
    "AND a.event = 'settled-by-rule' AND (json_extract(a.detail, '$.status') IS NULL OR "
    "json_extract(a.detail, '$.status') = o.status))) "
    "OR (o.status = 'superseded' AND NOT EXISTS (SELECT 1 FROM audit_log a WHERE a.nonce = o.nonce AND "
    "a.event = 'superseded')) LIMIT 1";
// An operation the chain says timed out but whose row says otherwise (set back to be claimed).
inline constexpr const char *kCrossTimedOutRevived =
    "SELECT o.nonce FROM operations o JOIN audit_log a ON a.nonce = o.nonce AND a.event = 'timed-out' "
    "WHERE o.status <> 'timed-out' LIMIT 1";
inline constexpr const char *kCrossStatusUndecided =
    "SELECT o.nonce FROM operations o LEFT JOIN decisions d ON d.nonce = o.nonce "
    "WHERE (o.status IN ('approved', 'declined', 'expired', 'abandoned', 'timed-out') AND d.nonce IS NULL) "
    "OR (d.nonce IS NOT NULL AND o.status <> d.outcome AND NOT (o.status = 'superseded' AND d.outcome = "
    "'approved') AND NOT (o.status = 'timed-out' AND d.outcome = 'approved' AND EXISTS (SELECT 1 FROM "
    "audit_log t WHERE t.nonce = o.nonce AND t.event = 'timed-out'))) "
    "LIMIT 1";
inline constexpr const char *kCrossClaimUnrecorded =
    "SELECT c.nonce FROM claims c WHERE NOT EXISTS (SELECT 1 FROM audit_log a WHERE a.nonce = c.nonce "
    "AND a.event = 'claimed') LIMIT 1";
// The other way: a run the chain records whose claims row is gone (removed, a retry would find
// no claim), and an end the chain records that the claims row lacks.
inline constexpr const char *kCrossClaimRemoved =
    "SELECT a.nonce FROM audit_log a WHERE a.event = 'claimed' AND NOT EXISTS (SELECT 1 FROM claims c "
    "WHERE c.nonce = a.nonce) LIMIT 1";
inline constexpr const char *kCrossClaimUnfinished =
    "SELECT a.nonce FROM audit_log a JOIN claims c ON c.nonce = a.nonce WHERE a.event IN ('run-succeeded', "
    "'run-failed') AND c.finished_ms IS NULL LIMIT 1";
inline constexpr const char *kCrossClaimUnauthorised =
    "SELECT c.nonce FROM claims c JOIN operations o ON o.nonce = c.nonce "
    "WHERE o.status NOT IN ('approved', 'allowed') LIMIT 1";
inline constexpr const char *kCrossFinishedClaims =
    "SELECT c.nonce AS nonce, c.result AS result, "
    "(SELECT json_extract(a.detail, '$.resultDigest') FROM audit_log a WHERE a.nonce = c.nonce "
    "AND a.event IN ('run-succeeded', 'run-failed')) AS digest FROM claims c WHERE c.finished_ms IS NOT NULL";

// AuditQuery, the audit view. The view's order of operations (kAuditOrderSelect, its ids) and the
// shown columns of the rows on screen (kAuditRowsSelect) are read apart, each to its end: a statement
// left open on the window's connection would pin that connection's snapshot, hiding newer rows and
// making its next write fail with "database is locked". The WHERE clause is assembled from the
// kAuditWhere* fragments below (constants, each with bound parameters) and the ORDER BY from
// kAuditSortKey, indexed by AuditQuery::Column.
#define COUNTERSIGN_AUDIT_CLIENT "COALESCE(NULLIF(json_extract(o.client_info, '$.name'), ''), o.principal)"
#define COUNTERSIGN_AUDIT_TARGET "COALESCE(json_extract(o.plan, '$.targets[0]'), '')"
#define COUNTERSIGN_AUDIT_OUTCOME                                                                            \
    "CASE WHEN o.status = 'pending' THEN 'waiting' WHEN c.nonce IS NULL THEN 'not run' "                     \
    "WHEN c.finished_ms IS NULL THEN 'unknown' "                                                             \
    "WHEN CAST(json_extract(c.result, '$.isError') AS TEXT) IN ('1', 'true') THEN 'failed' "                 \
    "ELSE 'succeeded' END"
#define COUNTERSIGN_AUDIT_JOINS                                                                              \
    " FROM operations o LEFT JOIN decisions d ON d.nonce = o.nonce LEFT JOIN claims c ON c.nonce = o.nonce"
inline constexpr const char *kAuditOrderSelect = "SELECT o.id AS id" COUNTERSIGN_AUDIT_JOINS;
inline constexpr const char *kAuditNoncesSelect = "SELECT o.nonce AS nonce" COUNTERSIGN_AUDIT_JOINS;
// The shown columns, in AuditQuery::Column's order, then the row's id, of the operations whose ids
// the bound JSON array holds.
inline constexpr const char *kAuditRowsSelect =
    "SELECT o.created_ms AS created_ms, " COUNTERSIGN_AUDIT_CLIENT
    " AS client, o.tool AS tool, " COUNTERSIGN_AUDIT_TARGET
    " AS target, o.status AS status, COALESCE(d.decided_by, '') AS decided_by, "
    "COALESCE(d.reason, '') AS reason, " COUNTERSIGN_AUDIT_OUTCOME " AS outcome, o.nonce AS nonce, "
    "o.id AS id" COUNTERSIGN_AUDIT_JOINS " WHERE o.id IN (SELECT value FROM json_each(?))";
inline constexpr const char *kPostgresAuditRowsSelect =
    "SELECT o.created_ms AS created_ms, " COUNTERSIGN_AUDIT_CLIENT
    " AS client, o.tool AS tool, " COUNTERSIGN_AUDIT_TARGET
    " AS target, o.status AS status, COALESCE(d.decided_by, '') AS decided_by, "
    "COALESCE(d.reason, '') AS reason, " COUNTERSIGN_AUDIT_OUTCOME " AS outcome, o.nonce AS nonce, "
    "o.id AS id" COUNTERSIGN_AUDIT_JOINS
    " WHERE o.id IN (SELECT CAST(value AS BIGINT) FROM jsonb_array_elements_text(CAST(? AS JSONB)))";
inline constexpr const char *kAuditWhereDecision = "o.status = ?";
inline constexpr const char *kAuditWhereClient = COUNTERSIGN_AUDIT_CLIENT " = ?";
inline constexpr const char *kAuditWhereTool = "o.tool = ?";
// A person: who decided (alone, or as one of several approvers), or the owner of the connection the
// call came through. Bound: "console:<person>" twice, then the person.
inline constexpr const char *kAuditWherePerson =
    "(EXISTS (SELECT 1 FROM decisions p WHERE p.nonce = o.nonce AND p.decided_by = ?) OR "
    "EXISTS (SELECT 1 FROM reviews r WHERE r.nonce = o.nonce AND r.reviewer = ?) OR o.owner = ?)";
inline constexpr const char *kAuditWhereInstance = "o.instance = ?";
inline constexpr const char *kAuditWhereFrom = "o.created_ms >= ?";
inline constexpr const char *kAuditWhereTo = "o.created_ms < ?";
inline constexpr const char *kAuditWhereText =
    "(o.tool LIKE ? ESCAPE '\\' OR o.principal LIKE ? ESCAPE '\\' OR o.client_info LIKE ? ESCAPE '\\' OR "
    "o.plan LIKE ? ESCAPE '\\' OR o.arguments LIKE ? ESCAPE '\\' OR "
    "EXISTS (SELECT 1 FROM decisions r WHERE r.nonce = o.nonce AND r.reason LIKE ? ESCAPE '\\'))";
// PostgreSQL's LIKE tells case apart, SQLite's does not (for ASCII): ILIKE searches as SQLite does.
inline constexpr const char *kPostgresAuditWhereText =
    "(o.tool ILIKE ? ESCAPE '\\' OR o.principal ILIKE ? ESCAPE '\\' OR o.client_info ILIKE ? ESCAPE '\\' OR "
    "o.plan ILIKE ? ESCAPE '\\' OR o.arguments ILIKE ? ESCAPE '\\' OR "
    "EXISTS (SELECT 1 FROM decisions r WHERE r.nonce = o.nonce AND r.reason ILIKE ? ESCAPE '\\'))";
// The sort keys. Time, client, tool and decision are served by an index (operations_created,
// operations_client, operations_tool, operations_status); the others are computed for every row.
inline constexpr const char *kAuditSortKey[] = {"o.created_ms",
                                                COUNTERSIGN_AUDIT_CLIENT,
                                                "o.tool",
                                                COUNTERSIGN_AUDIT_TARGET,
                                                "o.status",
                                                "COALESCE(d.decided_by, '')",
                                                "COALESCE(d.reason, '')",
                                                COUNTERSIGN_AUDIT_OUTCOME};
#undef COUNTERSIGN_AUDIT_CLIENT
#undef COUNTERSIGN_AUDIT_TARGET
#undef COUNTERSIGN_AUDIT_OUTCOME
#undef COUNTERSIGN_AUDIT_JOINS
// Approvals and declines per day (UTC; day = days since the epoch) for the chart, same filter.
inline constexpr const char *kAuditPerDaySelect =
    "SELECT o.created_ms / 86400000 AS day, "
    "SUM(CASE WHEN o.status IN ('approved', 'allowed') THEN 1 ELSE 0 END) AS approved, "
    "SUM(CASE WHEN o.status IN ('declined', 'denied') THEN 1 ELSE 0 END) AS declined FROM operations o";
inline constexpr const char *kAuditPerDayGroup = " GROUP BY day ORDER BY day";
inline constexpr const char *kDistinctClients =
    "SELECT DISTINCT COALESCE(NULLIF(json_extract(client_info, '$.name'), ''), principal) AS client "
    "FROM operations ORDER BY client";
inline constexpr const char *kDistinctTools = "SELECT DISTINCT tool FROM operations ORDER BY tool";
// The people in the store: who decided at a console (a decision by several approvers is in reviews),
// and the owners of the connections calls came through.
inline constexpr const char *kDistinctPeople =
    "SELECT DISTINCT person FROM ("
    "SELECT SUBSTR(decided_by, 9) AS person FROM decisions "
    "WHERE decided_by LIKE 'console:%' AND decided_by NOT LIKE '%, console:%' "
    "UNION SELECT SUBSTR(reviewer, 9) AS person FROM reviews WHERE reviewer LIKE 'console:%' "
    "UNION SELECT owner AS person FROM operations WHERE owner IS NOT NULL) people ORDER BY person";
inline constexpr const char *kDistinctInstances =
    "SELECT DISTINCT instance FROM operations WHERE instance IS NOT NULL ORDER BY instance";

} // namespace Countersign::StoreSql
