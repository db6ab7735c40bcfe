#pragma once

// The Declines view's SQL texts (DeclineQuery), beside the store's own in storesql.h and written to
// its rules: bound parameters only, rows read by column alias, one text for SQLite and PostgreSQL
// where the two agree and one each (kPostgres*) where they do not (a plan's targets are read with
// json_each on SQLite, jsonb_array_elements_text on PostgreSQL).
//
// What counts: an operation "declined" was refused by a decision (at a console, or in the agent's
// client), one "denied" by a rule of the policy; both are counted, apart. A person's decision is one
// made at a console or on a paired phone (decided_by "console:NAME", "phone:DEVICE"): a client's
// answer may come from the agent itself.
// Every statement's first parameter is the period's start (operations created at or after it, in
// ms since the epoch; 0 for all).
namespace Countersign::DeclineSql {

#define COUNTERSIGN_DECLINE_COUNTS                                                                           \
    "SUM(CASE WHEN status = 'declined' THEN 1 ELSE 0 END) AS declined, "                                     \
    "SUM(CASE WHEN status = 'denied' THEN 1 ELSE 0 END) AS denied"
#define COUNTERSIGN_DECLINE_PERSON                                                                           \
    "(substr(d.decided_by, 1, 8) = 'console:' OR substr(d.decided_by, 1, 6) = 'phone:')"

// Declines and denials in the period. The operations_status index serves the range.
inline constexpr const char *kTotals = "SELECT " COUNTERSIGN_DECLINE_COUNTS " FROM operations "
                                       "WHERE status IN ('declined', 'denied') AND created_ms >= ?";

// The calls no one decided in time, each outcome apart (Operation::Status): expired while their agent
// waited, abandoned by their agent, approved but timed out before their agent came back, and
// superseded by a changed plan.
inline constexpr const char *kUnanswered =
    "SELECT SUM(CASE WHEN status = 'expired' THEN 1 ELSE 0 END) AS expired, "
    "SUM(CASE WHEN status = 'abandoned' THEN 1 ELSE 0 END) AS abandoned, "
    "SUM(CASE WHEN status = 'timed-out' THEN 1 ELSE 0 END) AS timed_out, "
    "SUM(CASE WHEN status = 'superseded' THEN 1 ELSE 0 END) AS superseded FROM operations "
    "WHERE status IN ('expired', 'abandoned', 'timed-out', 'superseded') AND created_ms >= ?";

// The most declined tools; then the limit.
inline constexpr const char *kTools = "SELECT tool AS name, " COUNTERSIGN_DECLINE_COUNTS " FROM operations "
                                      "WHERE status IN ('declined', 'denied') AND created_ms >= ? "
                                      "GROUP BY tool ORDER BY COUNT(*) DESC, tool LIMIT ?";

// The most declined targets: every target of each plan, once per operation; then the limit.
inline constexpr const char *kTargets =
    "SELECT target AS name, " COUNTERSIGN_DECLINE_COUNTS " FROM (SELECT DISTINCT o.id AS id, "
    "o.status AS status, t.value AS target FROM operations o, json_each(o.plan, '$.targets') t "
    "WHERE o.status IN ('declined', 'denied') AND o.created_ms >= ?) x "
    "GROUP BY target ORDER BY COUNT(*) DESC, target LIMIT ?";
inline constexpr const char *kPostgresTargets =
    "SELECT target AS name, " COUNTERSIGN_DECLINE_COUNTS " FROM (SELECT DISTINCT o.id AS id, "
    "o.status AS status, t.value AS target FROM operations o CROSS JOIN LATERAL "
    "jsonb_array_elements_text(CAST(o.plan AS JSONB) -> 'targets') AS t(value) "
    "WHERE o.status IN ('declined', 'denied') AND o.created_ms >= ?) x "
    "GROUP BY target ORDER BY COUNT(*) DESC, target LIMIT ?";

// The most given reasons: a decline's reason as typed ('person', or 'client' for an answer in the
// agent's client), or the rule that denied, in words ('rule'); then the limit.
inline constexpr const char *kReasons =
    "SELECT kind, reason, COUNT(*) AS declines FROM (SELECT "
    "CASE WHEN o.status = 'denied' THEN 'rule' WHEN substr(d.decided_by, 1, 7) = 'client:' THEN 'client' "
    "ELSE 'person' END AS kind, "
    "CASE WHEN o.status = 'denied' THEN o.rule ELSE COALESCE(d.reason, '') END AS reason "
    "FROM operations o LEFT JOIN decisions d ON d.nonce = o.nonce "
    "WHERE o.status IN ('declined', 'denied') AND o.created_ms >= ?) x "
    "GROUP BY kind, reason ORDER BY COUNT(*) DESC, kind, reason LIMIT ?";

// The same call (tool and arguments digest) declined twice or more, with the latest of them (its
// arguments, first target, reason and who); then the limit.
#define COUNTERSIGN_DECLINE_LATEST                                                                           \
    " JOIN operations l ON l.id = g.latest_id LEFT JOIN decisions ld ON ld.nonce = l.nonce "                 \
    "ORDER BY g.declines DESC, g.last_ms DESC, g.latest_id DESC LIMIT ?"
#define COUNTERSIGN_DECLINE_LATEST_COLUMNS                                                                   \
    "l.arguments AS arguments, l.args_digest AS args_digest, "                                               \
    "COALESCE(json_extract(l.plan, '$.targets[0]'), '') AS first_target, "                                   \
    "COALESCE(ld.reason, '') AS reason, COALESCE(ld.decided_by, '') AS decided_by"
inline constexpr const char *kRepeatedCalls =
    "SELECT g.tool AS tool, '' AS target, g.declines AS declines, 1 AS calls, g.people AS people, "
    "g.last_ms AS last_ms, " COUNTERSIGN_DECLINE_LATEST_COLUMNS
    " FROM (SELECT o.tool AS tool, o.args_digest AS digest, COUNT(*) AS declines, "
    "COUNT(DISTINCT d.decided_by) AS people, MAX(o.created_ms) AS last_ms, MAX(o.id) AS latest_id "
    "FROM operations o JOIN decisions d ON d.nonce = o.nonce "
    "WHERE o.status = 'declined' AND o.created_ms >= ? "
    "GROUP BY o.tool, o.args_digest HAVING COUNT(*) >= 2) g" COUNTERSIGN_DECLINE_LATEST;

// The same target of one tool declined twice or more through different calls (one call declined
// again is kRepeatedCalls' row), with the latest of them; then the limit.
#define COUNTERSIGN_DECLINE_BY_TARGET(targets)                                                               \
    "SELECT g.tool AS tool, g.target AS target, g.declines AS declines, g.calls AS calls, "                  \
    "g.people AS people, g.last_ms AS last_ms, " COUNTERSIGN_DECLINE_LATEST_COLUMNS                          \
    " FROM (SELECT x.tool AS tool, x.target AS target, COUNT(*) AS declines, "                               \
    "COUNT(DISTINCT x.digest) AS calls, COUNT(DISTINCT x.decided_by) AS people, "                            \
    "MAX(x.created_ms) AS last_ms, MAX(x.id) AS latest_id FROM (SELECT DISTINCT o.id AS id, "                \
    "o.tool AS tool, o.args_digest AS digest, o.created_ms AS created_ms, d.decided_by AS decided_by, "      \
    "t.value AS target FROM operations o JOIN decisions d ON d.nonce = o.nonce " targets                     \
    " WHERE o.status = 'declined' AND o.created_ms >= ?) x GROUP BY x.tool, x.target "                       \
    "HAVING COUNT(*) >= 2 AND COUNT(DISTINCT x.digest) >= 2) g" COUNTERSIGN_DECLINE_LATEST
inline constexpr const char *kRepeatedTargets =
    COUNTERSIGN_DECLINE_BY_TARGET("CROSS JOIN json_each(o.plan, '$.targets') t");
inline constexpr const char *kPostgresRepeatedTargets = COUNTERSIGN_DECLINE_BY_TARGET(
    "CROSS JOIN LATERAL jsonb_array_elements_text(CAST(o.plan AS JSONB) -> 'targets') AS t(value)");

// A person's approvals and declines at a console, with the time from the card's creation to the
// decision, by tool and time (DeclineQuery works out the median and the 90th percentile).
inline constexpr const char *kDecisionTimes =
    "SELECT o.tool AS tool, d.outcome AS outcome, d.decided_ms - o.created_ms AS ms "
    "FROM operations o JOIN decisions d ON d.nonce = o.nonce "
    "WHERE o.created_ms >= ? AND d.outcome IN ('approved', 'declined') AND " COUNTERSIGN_DECLINE_PERSON
    " ORDER BY o.tool, ms";

// A person's approvals at a console by person and tool; and those of them made within a bound
// (the longest reading time a card can have; then the bound), with the plan the card showed.
inline constexpr const char *kApprovalsByPerson =
    "SELECT d.decided_by AS decided_by, o.tool AS tool, COUNT(*) AS approvals "
    "FROM operations o JOIN decisions d ON d.nonce = o.nonce "
    "WHERE o.created_ms >= ? AND d.outcome = 'approved' AND " COUNTERSIGN_DECLINE_PERSON
    " GROUP BY d.decided_by, o.tool ORDER BY d.decided_by, o.tool";
inline constexpr const char *kQuickApprovals =
    "SELECT d.decided_by AS decided_by, o.tool AS tool, d.decided_ms - o.created_ms AS ms, o.plan AS plan "
    "FROM operations o JOIN decisions d ON d.nonce = o.nonce "
    "WHERE o.created_ms >= ? AND d.outcome = 'approved' AND " COUNTERSIGN_DECLINE_PERSON
    " AND d.decided_ms - o.created_ms < ?";

#undef COUNTERSIGN_DECLINE_COUNTS
#undef COUNTERSIGN_DECLINE_PERSON
#undef COUNTERSIGN_DECLINE_LATEST
#undef COUNTERSIGN_DECLINE_LATEST_COLUMNS
#undef COUNTERSIGN_DECLINE_BY_TARGET

} // namespace Countersign::DeclineSql
