#pragma once

// AggregatePlan: the grouped aggregates over `slices` that the store answers column by column
// (columnaggregate.h) without SQLite's per-row virtual machine, read from the statement's text:
//
//   SELECT item [, item]* FROM slices [WHERE test [AND test]*] GROUP BY name | category
//     [ORDER BY term [ASC | DESC] [, ...]] [LIMIT n [OFFSET m] | LIMIT m, n]
//
// An item is the group key or count(*), or count / sum / total / min / max / avg of one of the
// integer columns id, track, depth, ts, dur, end, optionally divided or multiplied by a number
// (`sum(dur) / 1e6`), each with an optional alias. A test compares an integer column with an
// integer (=, ==, !=, <>, <, <=, >, >=), or name, category or role with a string (=, ==, !=,
// <>, or IN a list of strings). An ORDER BY term is a column's ordinal, an alias, the key or an
// item's expression; n and m are integer literals. Keywords and names are case-insensitive,
// names may be quoted ("x", `x`, [x]), and comments may appear between tokens.
//
// Anything else (OR, LIKE, HAVING, DISTINCT, another table, another expression) has no plan and
// runs through SQLite. The text is only read after SQLite has prepared it, so a plan is never
// made of text SQLite would reject; names resolve as SQLite resolves them (an ORDER BY name is
// an alias first, then a column; a select item, WHERE or GROUP BY name is the table's column).
// A number that multiplies or divides is an integer, or a decimal whose value is a whole number
// below 2^53, so that every parser reads it as the same double; a division by zero (NULL in
// SQLite) has no plan.
//
// Internal to core/sql.

#include "core/sql/groupranks.h"

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace tracedesk::core::sql {

enum class AggregateFn : uint8_t { Key, Count, Sum, Total, Min, Max, Avg };
// The integer columns of `slices` an aggregate or test may read (None: count(*) and the key).
enum class SliceField : uint8_t { None, Id, Track, Depth, Ts, Dur, End };
// The text columns a test may read: each is one value per event kind.
enum class KindField : uint8_t { Name, Category, Role };
enum class Compare : uint8_t { Eq, Ne, Lt, Le, Gt, Ge };

struct PlanValue
{
    AggregateFn fn = AggregateFn::Key;
    SliceField field = SliceField::None;
    char op = 0; // '/' or '*' by `number`, or 0
    bool realNumber = false;
    int64_t number = 0; // the whole value of the number (an integer literal, or a decimal's)
    friend bool operator==(const PlanValue &, const PlanValue &) = default;
};

struct PlanOrder
{
    uint32_t value = 0; // index into AggregatePlan::values
    bool descending = false;
};

// `field op value` for each slice.
struct SliceTest
{
    SliceField field = SliceField::Id;
    Compare op = Compare::Eq;
    int64_t value = 0;
};

// The kind's text is one of `values` (or none of them, when `negated`).
struct KindTest
{
    KindField field = KindField::Name;
    bool negated = false;
    std::vector<std::string> values;
};

struct AggregatePlan
{
    GroupKey key = GroupKey::Name;
    // The result's columns first (resultColumns of them), then values only ORDER BY reads.
    std::vector<PlanValue> values;
    size_t resultColumns = 0;
    std::vector<SliceTest> sliceTests;
    std::vector<KindTest> kindTests;
    std::vector<PlanOrder> order;
    std::optional<uint64_t> limit;
    uint64_t offset = 0;
};

std::optional<AggregatePlan> parseAggregatePlan(std::string_view sql);

} // namespace tracedesk::core::sql
