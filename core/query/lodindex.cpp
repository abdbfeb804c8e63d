#include "core/query/lodindex.h"

#include "core/base/parallel.h"
#include "core/query/lodcompare.h"

#include <algorithm>
#include <atomic>
#include <thread>

namespace tracedesk::core {

namespace {

// max(duration, gap to the previous slice): a run of narrow slices continues through slice k
// exactly while this is below the fold width.
template<typename Durations>
TimePs breakValue(const TimePs *start, const Durations &duration, size_t k)
{
    const TimePs gap = k > 0 ? start[k] - (start[k - 1] + duration[k - 1]) : 0;
    return std::max(duration[k], gap);
}

} // namespace

RowIndex::RowIndex(const Row &row) : m_density(row)
{
    row.duration.visit([&](auto duration) { build(row.start.data(), duration, row.size()); });
}

template<typename Durations>
void RowIndex::build(const TimePs *start, const Durations &duration, size_t units)
{
    while (units > 1 || (m_levels.empty() && units == 1)) {
        const size_t blocks = (units + kFanout - 1) / kFanout;
        std::vector<TimePs> level(blocks);
        for (size_t b = 0; b < blocks; ++b) {
            const size_t lo = b * kFanout, hi = std::min(units, lo + kFanout);
            TimePs m = 0;
            for (size_t u = lo; u < hi; ++u)
                m = std::max(m, m_levels.empty() ? breakValue(start, duration, u)
                                                 : m_levels.back()[u]);
            level[b] = m;
        }
        m_levels.push_back(std::move(level));
        units = blocks;
    }
}

size_t RowIndex::firstBreak(const Row &row, size_t from, size_t last, TimePs width) const
{
    return row.duration.visit([&](auto duration) {
        return firstBreakIn(row.start.data(), duration, row.size(), from, last, width);
    });
}

template<typename Durations>
size_t RowIndex::firstBreakIn(const TimePs *start, const Durations &duration, size_t n,
                              size_t from, size_t last, TimePs width) const
{
    // The rest of the leaf block holding `from`, slice by slice.
    size_t k = from;
    for (const size_t end = std::min(last, (k / kFanout + 1) * kFanout); k < end; ++k) {
        if (breakValue(start, duration, k) >= width)
            return k;
    }
    if (k >= last)
        return last;
    // Climb: at level L, unit u spans slices [u * span, (u + 1) * span), span = 16^(L + 1).
    size_t level = 0, u = k / kFanout, span = kFanout;
    bool found = false;
    while (level < m_levels.size() && !found) {
        const std::vector<TimePs> &values = m_levels[level];
        const size_t groupEnd = std::min(values.size(), (u / kFanout + 1) * kFanout);
        for (; u < groupEnd; ++u) {
            if (u * span >= last)
                return last;
            if (values[u] >= width) {
                found = true;
                break;
            }
        }
        if (found)
            break;
        if (u >= values.size())
            return last;
        u /= kFanout;
        span *= kFanout;
        ++level;
    }
    if (!found)
        return last;
    // Descend into the first block whose maximum reaches the width.
    while (level > 0) {
        --level;
        u *= kFanout;
        while (m_levels[level][u] < width)
            ++u;
    }
    const size_t end = std::min(n, (u + 1) * kFanout);
    for (k = u * kFanout; k < end; ++k) {
        if (breakValue(start, duration, k) >= width)
            return std::min(k, last);
    }
    return last;   // not reached: the block's maximum says a slice qualifies
}

size_t RowIndex::memoryBytes() const
{
    size_t bytes = m_density.memoryBytes();
    for (const auto &level : m_levels)
        bytes += level.capacity() * sizeof(TimePs);
    return bytes;
}

CounterIndex::CounterIndex(const CounterSeries &series)
{
    const double *v = series.value.data();
    size_t units = series.size();
    int level = -1;
    while (units > kFanout) {
        const size_t blocks = (units + kFanout - 1) / kFanout;
        std::vector<uint32_t> mins(blocks), maxs(blocks);
        for (size_t b = 0; b < blocks; ++b) {
            const size_t lo = b * kFanout, hi = std::min(units, lo + kFanout);
            uint32_t mn = level < 0 ? uint32_t(lo) : m_min[level][lo];
            uint32_t mx = level < 0 ? uint32_t(lo) : m_max[level][lo];
            for (size_t u = lo + 1; u < hi; ++u) {
                const uint32_t cmin = level < 0 ? uint32_t(u) : m_min[level][u];
                const uint32_t cmax = level < 0 ? uint32_t(u) : m_max[level][u];
                if (lod::lessThan(v, cmin, mn))
                    mn = cmin;
                if (lod::greaterThan(v, cmax, mx))
                    mx = cmax;
            }
            mins[b] = mn;
            maxs[b] = mx;
        }
        m_min.push_back(std::move(mins));
        m_max.push_back(std::move(maxs));
        units = blocks;
        ++level;
    }
}

void CounterIndex::minMax(const CounterSeries &series, size_t first, size_t last,
                          uint32_t *minIndex, uint32_t *maxIndex) const
{
    const double *v = series.value.data();
    uint32_t mn = uint32_t(first), mx = uint32_t(first);
    int level = -1;   // -1: units are samples; otherwise blocks of that pyramid level
    auto consider = [&](size_t u) {
        const uint32_t cmin = level < 0 ? uint32_t(u) : m_min[level][u];
        const uint32_t cmax = level < 0 ? uint32_t(u) : m_max[level][u];
        if (lod::lessThan(v, cmin, mn))
            mn = cmin;
        if (lod::greaterThan(v, cmax, mx))
            mx = cmax;
    };
    size_t lo = first, hi = last;
    while (lo < hi) {
        const bool top = size_t(level + 1) >= m_min.size();
        if (top || hi - lo < 2 * kFanout) {
            for (size_t u = lo; u < hi; ++u)
                consider(u);
            break;
        }
        for (; lo % kFanout != 0; ++lo)
            consider(lo);
        for (; hi % kFanout != 0; --hi)
            consider(hi - 1);
        lo /= kFanout;
        hi /= kFanout;
        ++level;
    }
    *minIndex = mn;
    *maxIndex = mx;
}

size_t CounterIndex::memoryBytes() const
{
    size_t bytes = 0;
    for (const auto &level : m_min)
        bytes += level.capacity() * sizeof(uint32_t);
    for (const auto &level : m_max)
        bytes += level.capacity() * sizeof(uint32_t);
    return bytes;
}

TraceLodIndex::TraceLodIndex(const Trace &trace, unsigned threads)
{
    buildAll(trace, threads, nullptr);
}

std::shared_ptr<const TraceLodIndex> TraceLodIndex::build(const Trace &trace, CancelToken cancel,
                                                          unsigned threads)
{
    auto index = std::make_shared<TraceLodIndex>();
    if (!index->buildAll(trace, threads, cancel))
        return nullptr;
    return index;
}

bool TraceLodIndex::buildAll(const Trace &trace, unsigned threads, CancelToken cancel)
{
    m_tracks.resize(trace.tracks.size());
    // Checked per row: a row is the unit of work, a few milliseconds even for millions of slices.
    parallelFor(m_tracks.size(), threads, [&](unsigned, size_t t) {
        const Track &track = trace.tracks[t];
        TrackIndex &index = m_tracks[t];
        index.rows.reserve(track.rows.size());
        for (const Row &row : track.rows) {
            if (isCancelled(cancel))
                return false;
            index.rows.emplace_back(row);
        }
        if (track.counter.size() > 0) {
            index.counter = CounterIndex(track.counter);
            index.hasCounter = true;
        }
        return !isCancelled(cancel);
    });
    if (!isCancelled(cancel))
        return true;
    m_tracks.clear();
    return false;
}

const RowIndex *TraceLodIndex::row(uint32_t track, uint32_t row) const
{
    if (track >= m_tracks.size() || row >= m_tracks[track].rows.size())
        return nullptr;
    return &m_tracks[track].rows[row];
}

const CounterIndex *TraceLodIndex::counter(uint32_t track) const
{
    if (track >= m_tracks.size() || !m_tracks[track].hasCounter)
        return nullptr;
    return &m_tracks[track].counter;
}

size_t TraceLodIndex::memoryBytes() const
{
    size_t bytes = m_tracks.capacity() * sizeof(TrackIndex);
    for (const TrackIndex &t : m_tracks) {
        bytes += t.rows.capacity() * sizeof(RowIndex) + t.counter.memoryBytes();
        for (const RowIndex &r : t.rows)
            bytes += r.memoryBytes();
    }
    return bytes;
}

} // namespace tracedesk::core
