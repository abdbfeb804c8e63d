#pragma once

// Level-of-detail indices: small pyramids built once per loaded Trace that let the viewport
// queries skip long stretches of slices or counter samples without reading them.
//
// RowIndex: per Row, level L holds, per block of 16^(L + 1) slices, the largest
// max(duration, gap to the previous slice). A folded run ends at the first slice where that
// value reaches the fold width, and the pyramid finds it in O(16 * log16 n). About 0.55 byte per
// slice.
// CounterIndex: per CounterSeries, the index of the smallest and of the largest sample per
// block of 16^(L + 1) samples, for O(16 * log16 n) range min/max. About 0.55 byte per sample.
// Each RowIndex also holds the row's DensityBins (densityquery.h), about 1.5 bytes per slice
// for rows of at least kDensityMinSlices slices.
// TraceLodIndex: both, for every row and counter of a Trace.
//
// Ownership and threads: the indices hold no pointer into the store; the Row or series passed to
// their queries must be the one they were built from, unchanged (the store is immutable after
// load). Immutable after construction and readable from any thread.

#include "core/base/cancel.h"
#include "core/model/trace.h"
#include "core/query/densityquery.h"

#include <memory>
#include <vector>

namespace tracedesk::core {

class RowIndex
{
public:
    RowIndex() = default;
    explicit RowIndex(const Row &row);

    // The first k in [from, last) whose duration, or gap start[k] - end[k - 1], is >= width;
    // `last` when there is none. from >= 1 (slice 0 has no predecessor).
    size_t firstBreak(const Row &row, size_t from, size_t last, TimePs width) const;

    const DensityBins &density() const { return m_density; }

    size_t memoryBytes() const;

private:
    template<typename Durations>
    void build(const TimePs *start, const Durations &duration, size_t units);
    template<typename Durations>
    size_t firstBreakIn(const TimePs *start, const Durations &duration, size_t n, size_t from,
                        size_t last, TimePs width) const;

    static constexpr size_t kFanout = 16;
    std::vector<std::vector<TimePs>> m_levels;
    DensityBins m_density;
};

class CounterIndex
{
public:
    CounterIndex() = default;
    explicit CounterIndex(const CounterSeries &series);

    // Indices of the smallest and largest value in [first, last), first < last. Ties go to the
    // earliest sample; NaN values are never chosen unless the range holds nothing else.
    void minMax(const CounterSeries &series, size_t first, size_t last, uint32_t *minIndex,
                uint32_t *maxIndex) const;

    size_t memoryBytes() const;

private:
    static constexpr size_t kFanout = 16;
    std::vector<std::vector<uint32_t>> m_min;
    std::vector<std::vector<uint32_t>> m_max;
};

class TraceLodIndex
{
public:
    TraceLodIndex() = default;
    // Builds every index; `threads` 0 means hardware concurrency.
    explicit TraceLodIndex(const Trace &trace, unsigned threads = 0);
    // The same, but ends soon once `cancel` is set and then returns null: a partly built index
    // is never handed out.
    static std::shared_ptr<const TraceLodIndex> build(const Trace &trace, CancelToken cancel,
                                                      unsigned threads = 0);

    const RowIndex *row(uint32_t track, uint32_t row) const;
    const CounterIndex *counter(uint32_t track) const;
    size_t memoryBytes() const;

private:
    struct TrackIndex
    {
        std::vector<RowIndex> rows;
        CounterIndex counter;
        bool hasCounter = false;
    };
    // False when `cancel` stopped the build.
    bool buildAll(const Trace &trace, unsigned threads, CancelToken cancel);

    std::vector<TrackIndex> m_tracks;
};

} // namespace tracedesk::core
