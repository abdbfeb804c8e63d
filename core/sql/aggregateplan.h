#pragma once

// AggregatePlan: the grouped aggregates over `slices` that the store answers column by column
// (columnaggregate.h) without SQLite's per-row virtual machine, read from the statement's text:
//
//   SELECT item [, item]* FROM slices GROUP BY name | category
//     [ORDER BY term [ASC | DESC] [, ...]] [LIMIT n [OFFSET m] | LIMIT m, n]
//
// An item is the group key or count(*), or count / sum / total / min / max / avg of one of the
// integer columns id, track, depth, ts, dur, end, each with an optional alias. An ORDER BY term
// is a column's ordinal, an alias, the key or one of those aggregates; n and m are integer
// literals. Keywords and names are case-insensitive, names may be quoted ("x", `x`, [x]), and
// comments may appear between tokens.
//
// Anything else (WHERE, HAVING, DISTINCT, another table, an expression, a string literal) has no
// plan and runs through SQLite. The text is only read after SQLite has prepared it, so a plan is
// never made of text SQLite would reject; names resolve as SQLite resolves them (an ORDER BY
// name is an alias first, then a column; a select item or GROUP BY name is the table's column).
//
// Internal to core/sql.

#include "core/sql/groupranks.h"

#include <cstdint>
#include <optional>
#include <string_view>
#include <vector>

namespace tracedesk::core::sql {

enum class AggregateFn : uint8_t { Key, Count, Sum, Total, Min, Max, Avg };
// The integer columns of `slices` an aggregate may read (None: count(*) and the key).
enum class SliceField : uint8_t { None, Id, Track, Depth, Ts, Dur, End };

struct PlanValue
{
    AggregateFn fn = AggregateFn::Key;
    SliceField field = SliceField::None;
    friend bool operator==(const PlanValue &, const PlanValue &) = default;
};

struct PlanOrder
{
    uint32_t value = 0; // index into AggregatePlan::values
    bool descending = false;
};

struct AggregatePlan
{
    GroupKey key = GroupKey::Name;
    // The result's columns first (resultColumns of them), then values only ORDER BY reads.
    std::vector<PlanValue> values;
    size_t resultColumns = 0;
    std::vector<PlanOrder> order;
    std::optional<uint64_t> limit;
    uint64_t offset = 0;
};

std::optional<AggregatePlan> parseAggregatePlan(std::string_view sql);

} // namespace tracedesk::core::sql
