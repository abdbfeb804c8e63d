#pragma once

// runColumnAggregate: an AggregatePlan (aggregateplan.h) answered from the store's columns, with
// the rows SQLite would return for the statement. Over 100M slices SQLite's virtual machine
// spends about 90 ns a row on a grouped aggregate; here a row costs a few loads and adds.
//
// Each worker sums chunks of the rows (a million slices at most) into accumulators indexed by
// event kind, over the slices that pass the WHERE (the tests of name, category and role are one
// flag per kind, the others are read per slice). The kinds are then folded into their groups
// (groupranks.h), which come out in SQLite's group order, sorted by the ORDER BY terms and cut
// by OFFSET and LIMIT.
//
// Rows that tie on every ORDER BY term stay in group order, the key's byte order: the rows
// SQLite returns for the statement with the key appended as its last ORDER BY term. SQL leaves
// the order of such rows open, and SQLite's sorter returns them in an order of its own (not the
// same with and without LIMIT), so a tie is listed in a fixed, documented order instead.
//
// SQLite's own arithmetic is kept: count, sum, min and max are integers, total and avg doubles.
// Where its result would depend on its version or row order it is not guessed: an integer sum
// whose terms' magnitudes add past INT64_MAX (SQLite may stop with "integer overflow"), or a
// total or avg past 2^53 (a floating-point sum that rounds) makes the call return no result, and
// the statement runs through SQLite.
//
// Internal to core/sql. Reads the trace in place; `cancel` is polled between chunks of at most
// `chunkSlices` slices of one row, which `threads` workers share.

#include "core/base/result.h"
#include "core/sql/aggregateplan.h"
#include "core/sql/sqlcontext.h"
#include "core/sql/sqlresult.h"

#include <atomic>
#include <optional>
#include <vector>

namespace tracedesk::core::sql {

using SqlRows = std::vector<std::vector<SqlCell>>;

std::optional<Result<SqlRows>> runColumnAggregate(const SqlContext &context,
                                                  const AggregatePlan &plan,
                                                  const std::atomic<bool> *cancel,
                                                  unsigned threads,
                                                  size_t chunkSlices = size_t(1) << 20);

} // namespace tracedesk::core::sql
