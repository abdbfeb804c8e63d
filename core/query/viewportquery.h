#pragma once

// Level of detail for the timeline: what one Row shows in a Viewport.
//
// Design note (slice folding)
// ---------------------------
// Let W = ceil(foldPx * psPerPx), the shortest duration at least foldPx (2) pixels wide, computed
// exactly from the Viewport's rational scale. Walking the slices that overlap [t0, t1) in row
// order:
//   - a slice with duration >= W is returned as itself;
//   - a narrow slice (duration < W) opens a run; the next slice joins the run when it is narrow
//     too and starts less than W after the run's end. A run of two or more slices comes back as
//     one folded item (count, index range, span from first start to last end); a run of one is
//     returned as the plain slice it is.
// The definition is in time, not in pixel columns, so panning never changes how slices fold.
//
// Skipping, without an index: with the run ending at E, every slice that ends before E + W lies wholly inside
// [E, E + W), so it is narrow and its gap to its predecessor is < W: it joins the run without
// being looked at. Ends are sorted in a Row (slices never overlap), so one galloping binary
// search finds the first slice ending at or after E + W; only that slice is tested. Each probe
// either closes the run or moves E forward by at least W (foldPx pixels), and wide slices are at
// least foldPx pixels each, so a row costs O(min(visible, pixels) * log n) however many slices it
// holds. A folded item's count is an index difference: the slices it covers are never touched.
// The search runs on the start column alone (the first slice starting at or after E + W, or the
// one before it if that one ends there), which halves the cache misses.
//
// With a RowIndex (lodindex.h) a run ends at the first slice whose duration or gap to its
// predecessor is >= W; a max-pyramid over max(duration, gap) finds it in O(16 * log16 n) reads of
// contiguous memory, once per run rather than once per 2 pixels. At full zoom-out on a dense row
// that is the difference between ~1000 scattered cache misses per row and ~10.
//
// Window edges: a slice overlaps [t0, t1) when it ends after t0 (or is an instant at or after
// t0) and starts before t1. Slices cut by the edges come back whole, unclipped.
//
// Counters: queryCounter() returns, per pixel column, the minimum and the maximum sample (in
// time order, one point when they coincide), plus the sample in effect at t0 (the last one
// before the window) and the first sample at or after t1, so a line drawn through the points
// is continuous past the edges. A CounterIndex (a min/max pyramid built once per series) makes a
// column cost O(log n); without it each column scans its samples.
//
// Thread rules: the functions are pure and read the immutable store; call them from any thread
// with a distinct output vector. Output vectors are cleared, not freed, so reusing them between
// frames avoids allocation.

#include "core/model/track.h"
#include "core/query/lodindex.h"
#include "core/query/viewport.h"

#include <vector>

namespace tracedesk::core {

inline constexpr int kFoldPx = 2;

struct VisibleItem
{
    TimePs start = 0;
    TimePs duration = 0;  // the slice's, or a folded run's span (first start to last end)
    uint32_t first = 0;   // the slice's index in its Row, or the run's first index
    uint32_t count = 1;   // 1 for a slice; a folded run covers [first, first + count)
    uint32_t kind = 0;    // the slice's EventKind (the first slice's for a folded run)

    bool folded() const { return count > 1; }
    TimePs end() const { return start + duration; }
    friend bool operator==(const VisibleItem &, const VisibleItem &) = default;
};

// Fills `out` (cleared first) with the items of `row` visible in `view`, in time order.
// With the row's RowIndex a run is closed with one pyramid search instead of one probe per
// foldPx pixels; the items are the same either way.
void queryRow(const Row &row, const Viewport &view, std::vector<VisibleItem> &out,
              int foldPx = kFoldPx, const RowIndex *index = nullptr);

// The index range [first, last) of slices in `row` overlapping [t0, t1): O(log n).
struct IndexRange
{
    size_t first = 0;
    size_t last = 0;
};
IndexRange overlappingRange(const Row &row, TimePs t0, TimePs t1);

struct CounterPoint
{
    TimePs time = 0;
    double value = 0;
    uint32_t index = 0;   // sample index in the series

    friend bool operator==(const CounterPoint &, const CounterPoint &) = default;
};

// Fills `out` (cleared first) with the points of `series` to draw in `view`, in time order.
void queryCounter(const CounterSeries &series, const Viewport &view,
                  std::vector<CounterPoint> &out, const CounterIndex *index = nullptr);

} // namespace tracedesk::core
