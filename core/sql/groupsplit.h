#pragma once

// Grouped aggregates over both cores. SQLite runs a statement on one thread, and over 100M
// slices `SELECT name, count(*), sum(dur) FROM slices GROUP BY name` spends nine seconds in its
// virtual machine, about 90 ns per row. When the statement aggregates each group on its own,
// its result is the same if the groups are split into consecutive parts, each part run as the
// same statement on a connection of its own, and the parts' rows put one after the other: the
// grouped scan (groupedscan.h) serves each connection its part (SqlContext::GroupPart).
//
// Which statements those are is read from SQLite's own program for the statement (EXPLAIN),
// not from its text: a single read-only scan of `slices` in the grouped plan, at least one
// aggregate step and a group-change comparison, and nothing but per-row and per-group
// instructions (an allow list). A sort (ORDER BY other than the group key, DISTINCT), LIMIT or
// OFFSET, a subquery, a join, a window, a second table or a function of the connection's state
// (changes(), last_insert_rowid()) makes the statement run as usual.
//
// Internal to core/sql.

#include <sqlite3.h>

namespace tracedesk::core::sql {

// The grouped plan's idxStr: it names the plan in the program's VFilter instruction.
inline constexpr char kGroupedScanPlan[] = "slices grouped scan";

// Whether `stmt` (prepared on `db`, not yet stepped) may run split by groups.
bool splitsByGroups(sqlite3 *db, sqlite3_stmt *stmt);

// Whether `stmt` leaves its connection as it found it: a read-only SELECT, WITH, VALUES or
// EXPLAIN.
// Anything else (a PRAGMA such as case_sensitive_like, a temporary table, ATTACH) could make
// the session's own connection answer differently from a fresh one, so once one has run the
// session splits nothing.
bool leavesConnectionAsIs(sqlite3_stmt *stmt);

} // namespace tracedesk::core::sql
