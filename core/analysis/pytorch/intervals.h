#pragma once

// Interval algebra over half-open time ranges [start, end), the small toolkit behind the PyTorch
// overview (step-time breakdown) and the GPU metrics: merge a list into disjoint ranges, then
// intersect, subtract and measure such lists.
//
// A "merged" list is sorted by start, its ranges are non-empty and neither overlap nor touch
// (touching ranges are joined). All functions taking two lists expect merged inputs and return a
// merged list. Pure functions, no state; safe from any thread.

#include "core/model/types.h"

#include <vector>

namespace tracedesk::core::analysis::pytorch {

struct Interval
{
    TimePs start = 0;
    TimePs end = 0;

    TimePs length() const { return end > start ? end - start : 0; }
    friend bool operator==(const Interval &, const Interval &) = default;
};

using IntervalList = std::vector<Interval>;

// Sorts, drops empty ranges and joins overlapping or touching ones.
IntervalList mergeIntervals(IntervalList ranges);
// Time covered by both merged lists.
IntervalList intersectIntervals(const IntervalList &a, const IntervalList &b);
// Time of merged list `a` not covered by merged list `b`.
IntervalList subtractIntervals(const IntervalList &a, const IntervalList &b);
// Sum of the lengths.
TimePs totalLength(const IntervalList &ranges);
// Length of merged list `ranges` inside `window` (binary search, no allocation).
TimePs overlapLength(const IntervalList &ranges, Interval window);

} // namespace tracedesk::core::analysis::pytorch
