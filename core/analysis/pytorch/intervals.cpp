#include "core/analysis/pytorch/intervals.h"

#include <algorithm>

namespace tracedesk::core::analysis::pytorch {

IntervalList mergeIntervals(IntervalList ranges)
{
    std::erase_if(ranges, [](const Interval &r) { return r.end <= r.start; });
    std::sort(ranges.begin(), ranges.end(), [](const Interval &a, const Interval &b) {
        return a.start < b.start || (a.start == b.start && a.end < b.end);
    });
    IntervalList out;
    out.reserve(ranges.size());
    for (const Interval &r : ranges) {
        if (!out.empty() && r.start <= out.back().end)
            out.back().end = std::max(out.back().end, r.end);
        else
            out.push_back(r);
    }
    return out;
}

IntervalList intersectIntervals(const IntervalList &a, const IntervalList &b)
{
    IntervalList out;
    size_t i = 0;
    size_t j = 0;
    while (i < a.size() && j < b.size()) {
        const TimePs s = std::max(a[i].start, b[j].start);
        const TimePs e = std::min(a[i].end, b[j].end);
        if (s < e)
            out.push_back({s, e});
        // The range that ends first cannot meet anything further in the other list.
        if (a[i].end < b[j].end)
            ++i;
        else
            ++j;
    }
    return out;
}

IntervalList subtractIntervals(const IntervalList &a, const IntervalList &b)
{
    IntervalList out;
    size_t j = 0;
    for (const Interval &r : a) {
        TimePs cursor = r.start;
        while (j < b.size() && b[j].end <= cursor)
            ++j;
        // b[k] for k >= j may still cut this range; do not advance j past ranges that reach
        // beyond r, they can cut the next range of `a` too.
        size_t k = j;
        while (k < b.size() && b[k].start < r.end) {
            if (b[k].start > cursor)
                out.push_back({cursor, b[k].start});
            cursor = std::max(cursor, b[k].end);
            if (cursor >= r.end)
                break;
            ++k;
        }
        if (cursor < r.end)
            out.push_back({cursor, r.end});
    }
    return out;
}

TimePs totalLength(const IntervalList &ranges)
{
    TimePs total = 0;
    for (const Interval &r : ranges)
        total += r.length();
    return total;
}

TimePs overlapLength(const IntervalList &ranges, Interval window)
{
    if (window.end <= window.start)
        return 0;
    // First range ending after the window starts.
    auto it = std::upper_bound(ranges.begin(), ranges.end(), window.start,
                               [](TimePs t, const Interval &r) { return t < r.end; });
    TimePs total = 0;
    for (; it != ranges.end() && it->start < window.end; ++it)
        total += std::min(it->end, window.end) - std::max(it->start, window.start);
    return total;
}

} // namespace tracedesk::core::analysis::pytorch
