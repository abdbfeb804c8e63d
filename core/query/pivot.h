#pragma once

// Pivot: slices grouped by nested keys (e.g. category > name), with per-group totals.
//
// Design note: one pass over the slices in scope (the whole trace, or an AreaSelection with
// exactly the slices summarizeArea() counts). Each level's key is a small value, never text:
// a name, category or string arg is its interned StringId, a track its index, a number its
// bits; only args stored as raw text (not interned) are interned into the result's own table.
// The groups form a tree held in one node vector; a slice walks it from the root with one hash
// lookup per level (keyed by parent node and key) and adds itself to every node on its path, so
// a parent's totals are exactly the sums of its children's. Self time is selectionsummary.h's
// definition, so a pivot by name of an area equals that area's summary line by line.
//
// Enumerating a group's slices: when asked, the result keeps every slice in scope ordered by
// leaf group in depth-first order, so any node (leaf or not) owns one contiguous range of it.
// Each slice is kept as its 4-byte position in the walk over the scope (tracks, then rows, then
// slices in start order), not as its 12-byte address. slicesOf() gives the addresses back.
// A scope larger than PivotOptions::keepSlicesLimit (16M slices, 64 MB) keeps none
// (slicesKept() is false): a 100M-event pivot would hold 400 MB for as long as it is shown, and
// twice that while it is built. findPivotSlices() then walks the scope again, comparing each
// slice's keys with the group's path; its cost is one walk, paid only when a group is asked for.
//
// Thread rules: a pure function of the immutable store; any thread. The cancel flag is polled
// every few thousand slices; a cancelled pivot returns Result::cancelled() and nothing partial.

#include "core/base/result.h"
#include "core/model/trace.h"
#include "core/query/selectionsummary.h"

#include <atomic>
#include <optional>
#include <span>
#include <string>
#include <vector>

namespace tracedesk::core {

enum class PivotKeyKind : uint8_t { Name, Category, Track, Arg };

struct PivotKey
{
    PivotKeyKind kind = PivotKeyKind::Name;
    std::string arg; // the arg's key, for PivotKeyKind::Arg

    friend bool operator==(const PivotKey &, const PivotKey &) = default;
};

struct PivotOptions
{
    std::vector<PivotKey> levels;      // outermost first; empty: one total node
    std::optional<AreaSelection> area; // none: every slice of the trace
    bool keepSlices = true;            // fill PivotResult::slices
    uint64_t keepSlicesLimit = uint64_t(1) << 24; // a larger scope keeps none (see above)
    const std::atomic<bool> *cancel = nullptr;
};

// What one group's key is. Missing: the slice has no such arg.
enum class PivotValueType : uint8_t { Missing, String, Track, Int, Double, Text };

struct PivotValue
{
    PivotValueType type = PivotValueType::Missing;
    uint64_t bits = 0; // StringId, track index, int64, double bits, or index into textValues

    friend bool operator==(const PivotValue &, const PivotValue &) = default;
};

struct PivotStats
{
    uint64_t count = 0;
    TimePs wallTotal = 0;
    TimePs selfTotal = 0;
    TimePs minDuration = 0;
    TimePs maxDuration = 0;

    double averageDuration() const { return count ? double(wallTotal) / double(count) : 0.0; }
    void add(TimePs duration, TimePs self);
};

// 80 bytes: a 100M-event pivot by track and name has 1.3M groups.
struct PivotNode
{
    uint32_t parent = 0; // the root is its own parent
    uint32_t level = 0;  // 0 for the root; a group of levels[k] has level k + 1
    PivotValue value;
    PivotStats stats;
    uint32_t firstChild = 0; // the children: PivotResult::childList[firstChild, + childCount)
    uint32_t childCount = 0;
    uint32_t sliceBegin = 0; // range in PivotResult::slices (when kept)
    uint32_t sliceEnd = 0;
};

struct PivotResult
{
    // The slices of one row of the walk: positions [first, first + (last index - index)).
    struct WalkRow
    {
        uint64_t first = 0; // position of the row's first slice in scope
        uint32_t track = 0;
        uint32_t row = 0;
        uint32_t index = 0; // that slice's index in the row
    };

    std::vector<PivotKey> levels;
    std::optional<AreaSelection> area;   // the scope: none for the whole trace
    std::vector<PivotNode> nodes;        // nodes[0]: every slice in scope
    // Every node's children, one run per node, each by wall total descending, then by key.
    std::vector<uint32_t> childList;
    std::vector<uint32_t> slices;        // walk positions, grouped, see the design note
    std::vector<WalkRow> walkRows;       // rows with slices in scope, by position
    std::vector<std::string> textValues; // raw-text arg values, by PivotValue::bits

    const PivotNode &root() const { return nodes.front(); }
    std::span<const uint32_t> children(uint32_t node) const
    {
        return {childList.data() + nodes[node].firstChild, nodes[node].childCount};
    }
    bool slicesKept() const { return !slices.empty() || nodes.front().stats.count == 0; }
    // The address of the slice at walk position `position`.
    SliceRef sliceAt(uint32_t position) const;
    // The slices of `node` (empty when none were kept), in the node's range order.
    std::vector<SliceRef> slicesOf(uint32_t node) const;
    size_t sliceCount(uint32_t node) const
    {
        return nodes[node].sliceEnd - nodes[node].sliceBegin;
    }
};

Result<PivotResult> computePivot(const Trace &trace, const PivotOptions &options);

// The slices of `node` found by walking the result's scope again (for a result that kept
// none; it works for any result): the `limit` earliest by start (ties in address order), in
// that order. Cancelled when `cancel` is set during the walk.
Result<std::vector<SliceRef>> findPivotSlices(const Trace &trace, const PivotResult &result,
                                              uint32_t node, size_t limit,
                                              const std::atomic<bool> *cancel = nullptr);

// How a group's key reads: the name, the category, "plane / track", the number, or
// "(no <arg>)" for a missing arg; "(empty)" for an empty string.
std::string pivotLabel(const Trace &trace, const PivotResult &result, uint32_t node);

// CSV of every group, depth first in the result's order: one column per level (the group's
// labels along its path; deeper levels empty for an outer group), then count, total_ps,
// average_ps, min_ps, max_ps, self_ps. The first line is the header; the root is not listed.
std::string pivotToCsv(const Trace &trace, const PivotResult &result);

// "name", "category", "track" or "arg:<key>"; parsePivotKey() reads them back.
std::string pivotKeyText(const PivotKey &key);
std::optional<PivotKey> parsePivotKey(std::string_view text);

} // namespace tracedesk::core
