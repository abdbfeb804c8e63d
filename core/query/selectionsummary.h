#pragma once

// Selection summaries: the per-name table shown for an area selection or a set of slices,
// plus the per-slice helpers the details pane needs (self time, previous/next slice).
//
// Self time is a slice's duration minus the time covered by slices on the next row inside its
// span. Rows are sorted and non-overlapping, so the children are found with one binary search
// and walked in order; a child sticking out of its parent (overlapping input placed on a lower
// lane) only counts for the part inside. The summary groups by name (not by kind id), so kinds
// of different planes that share a name share a line.
//
// Thread rules: pure functions over the immutable store; any thread. The summaries check
// `cancel` every few thousand slices and return an empty table once it is set.

#include "core/base/cancel.h"
#include "core/model/trace.h"

#include <optional>
#include <span>
#include <vector>

namespace tracedesk::core {

// The tracks an area selection covers and its time window [t0, t1). Every slice of those
// tracks (all rows) that overlaps the window counts, with its whole duration in the wall
// total and with its part inside the window in the in-window total.
struct AreaSelection
{
    std::vector<uint32_t> tracks;
    TimePs t0 = 0;
    TimePs t1 = 0;
};

struct NameSummary
{
    StringId name = kEmptyString;
    uint64_t occurrences = 0;
    TimePs wallTotal = 0;
    TimePs inWindowTotal = 0;   // the part inside the area's window (a list of slices: all)
    TimePs selfTotal = 0;
    TimePs minDuration = 0;
    TimePs maxDuration = 0;

    double averageDuration() const { return occurrences ? double(wallTotal) / occurrences : 0.0; }
    double averageSelf() const { return occurrences ? double(selfTotal) / occurrences : 0.0; }
};

// One line per name, by wall total descending (then name id ascending).
std::vector<NameSummary> summarizeArea(const Trace &trace, const AreaSelection &area,
                                      CancelToken cancel = nullptr);
// The same for an explicit list of slices; invalid refs are skipped, duplicates count twice.
std::vector<NameSummary> summarizeSlices(const Trace &trace, std::span<const SliceRef> slices,
                                        CancelToken cancel = nullptr);

// Duration minus the part covered by slices on the next row. 0 for an invalid ref.
TimePs selfTime(const Trace &trace, SliceRef slice);

enum class Direction : uint8_t { Previous, Next };

// The previous or next slice on the same row, if any.
std::optional<SliceRef> neighbourSlice(const Trace &trace, SliceRef slice, Direction direction);

} // namespace tracedesk::core
