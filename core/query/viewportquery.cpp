#include "core/query/viewportquery.h"

#include "core/query/lodcompare.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace tracedesk::core {

namespace {

constexpr TimePs kMaxTime = std::numeric_limits<TimePs>::max();

TimePs saturatingAdd(TimePs a, TimePs b)
{
    TimePs r;
    return __builtin_add_overflow(a, b, &r) ? kMaxTime : r;
}

// First k in [lo, hi) with pred(k), for a pred that is false then true. Probes lo, lo + 1,
// lo + 2, lo + 4, ... before bisecting, so the cost is O(log distance) rather than O(log n):
// at deep zoom the answer is usually a few slices away.
template<typename Pred>
size_t gallop(size_t lo, size_t hi, Pred pred)
{
    size_t known = lo;   // every index below `known` is false
    size_t probe = lo;
    size_t step = 1;
    while (probe < hi && !pred(probe)) {
        known = probe + 1;
        probe = lo + step;
        step *= 2;
    }
    hi = std::min(probe, hi);
    while (known < hi) {
        const size_t mid = known + (hi - known) / 2;
        if (pred(mid))
            hi = mid;
        else
            known = mid + 1;
    }
    return known;
}

} // namespace

IndexRange overlappingRange(const Row &row, TimePs t0, TimePs t1)
{
    const size_t n = row.size();
    if (n == 0 || t1 <= t0)
        return {};
    const TimePs *start = row.start.data();
    const PackedInts &duration = row.duration;
    // Ends and starts are both sorted in a Row, so "ends after t0, or is an instant at or
    // after t0" is false then true along the row.
    size_t lo = 0, hi = n;
    while (lo < hi) {
        const size_t mid = lo + (hi - lo) / 2;
        if (start[mid] + duration[mid] > t0 || start[mid] >= t0)
            hi = mid;
        else
            lo = mid + 1;
    }
    const size_t last = size_t(std::lower_bound(start + lo, start + n, t1) - start);
    return {lo, std::max(lo, last)};
}

void queryRow(const Row &row, const Viewport &view, std::vector<VisibleItem> &out, int foldPx,
              const RowIndex *index)
{
    out.clear();
    if (!view.valid())
        return;
    const IndexRange range = overlappingRange(row, view.t0, view.t1);
    const size_t firstIndex = range.first, last = range.last;
    const TimePs *start = row.start.data();
    row.duration.visit([&](auto duration) {
        const TimePs w = view.spanOfPixels(std::max(foldPx, 1));   // >= 1 ps

        size_t i = firstIndex;
        while (i < last) {
            if (duration[i] >= w) {
                out.push_back({start[i], duration[i], uint32_t(i), 1, uint32_t(row.kind[i])});
                ++i;
                continue;
            }
            const size_t first = i;
            TimePs runEnd = start[i] + duration[i];
            ++i;
            if (index) {
                i = index->firstBreak(row, i, last, w);
                runEnd = start[i - 1] + duration[i - 1];
            }
            while (!index && i < last) {
                // First slice ending at or after runEnd + w: the first one starting there, or the
                // one just before it when that one already reaches it.
                const TimePs reach = saturatingAdd(runEnd, w);
                size_t j = gallop(i, last, [&](size_t k) { return start[k] >= reach; });
                if (j > i && start[j - 1] + duration[j - 1] >= reach)
                    --j;
                if (j > i) {
                    runEnd = start[j - 1] + duration[j - 1];
                    i = j;
                    if (i == last)
                        break;
                }
                if (duration[i] >= w || start[i] - runEnd >= w)
                    break;
                runEnd = start[i] + duration[i];
                ++i;
            }
            out.push_back({start[first], runEnd - start[first], uint32_t(first),
                           uint32_t(i - first), uint32_t(row.kind[first])});
        }
    });
}

void queryCounter(const CounterSeries &series, const Viewport &view,
                  std::vector<CounterPoint> &out, const CounterIndex *index)
{
    out.clear();
    const size_t n = series.size();
    if (n == 0 || !view.valid())
        return;
    const TimePs *time = series.time.data();
    const double *value = series.value.data();
    auto push = [&](size_t i) { out.push_back({time[i], value[i], uint32_t(i)}); };

    size_t i = size_t(std::lower_bound(time, time + n, view.t0) - time);
    const size_t last = size_t(std::lower_bound(time + i, time + n, view.t1) - time);
    if (i > 0)
        push(i - 1);
    constexpr size_t kScanLimit = 64;   // below this a plain scan beats the pyramid
    while (i < last) {
        const TimePs limit = view.pixelStart(view.pixelOf(time[i]) + 1);
        const size_t j = gallop(i + 1, last, [&](size_t k) { return time[k] >= limit; });
        uint32_t mn = uint32_t(i), mx = uint32_t(i);
        if (index && j - i > kScanLimit) {
            index->minMax(series, i, j, &mn, &mx);
        } else {
            for (size_t k = i + 1; k < j; ++k) {
                if (lod::lessThan(value, uint32_t(k), mn))
                    mn = uint32_t(k);
                if (lod::greaterThan(value, uint32_t(k), mx))
                    mx = uint32_t(k);
            }
        }
        push(std::min(mn, mx));
        if (mn != mx)
            push(std::max(mn, mx));
        i = j;
    }
    if (last < n)
        push(last);
}

} // namespace tracedesk::core
