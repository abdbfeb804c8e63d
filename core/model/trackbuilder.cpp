#include "core/model/trackbuilder.h"

#include <algorithm>
#include <limits>
#include <numeric>

namespace tracedesk::core {

namespace {
// Frees a vector's buffer. `v = {}` would pick the initializer-list assignment, which empties
// the vector but keeps its capacity: a dropped column would still cost its full size.
template<typename V>
void release(V &v)
{
    V().swap(v);
}
} // namespace

void TrackBuilder::reserve(size_t n)
{
    m_reserved = n;
    m_start.reserve(n);
    m_duration.reserve(n);
    m_kind.reserve(n);
    m_args.reserve(n);
}

uint32_t TrackBuilder::addSlice(TimePs start, TimePs duration, uint32_t kind, ArgsRef args)
{
    if (duration < 0) {
        duration = 0;
        ++m_badDurations;
    }
    if (start < -kTimeLimitPs || start > kTimeLimitPs) {
        start = start < 0 ? -kTimeLimitPs : kTimeLimitPs;
        ++m_clampedTimes;
    }
    // start is within the limit, so the subtraction cannot overflow.
    if (duration > kTimeLimitPs - start) {
        duration = kTimeLimitPs - start;
        ++m_clampedTimes;
    }
    const auto index = uint32_t(m_start.size());
    m_start.push_back(start);
    m_duration.push_back(duration);
    m_kind.push_back(kind);
    m_args.push_back(args);
    return index;
}

void TrackBuilder::setSide(uint32_t staged, SideColumn column, int64_t value)
{
    auto &staging = m_side[size_t(column)];
    if (staging.size() <= staged) {
        if (staging.empty())
            staging.reserve(std::max(m_reserved, size_t(staged) + 1));
        staging.resize(std::max(m_start.size(), size_t(staged) + 1), kNoValue);
    }
    staging[staged] = value;
}

void TrackBuilder::addCounterSample(TimePs time, double value)
{
    if (time < -kTimeLimitPs || time > kTimeLimitPs) {
        time = time < 0 ? -kTimeLimitPs : kTimeLimitPs;
        ++m_clampedTimes;
    }
    m_track.counter.time.push_back(time);
    m_track.counter.value.push_back(value);
}

void TrackBuilder::finish(std::vector<Placement> *where)
{
    const size_t n = m_start.size();

    // Order: start asc, duration desc (parents before children), then arrival.
    std::vector<uint32_t> order;
    bool sorted = true;
    for (size_t i = 1; i < n && sorted; ++i) {
        sorted = m_start[i - 1] < m_start[i]
                 || (m_start[i - 1] == m_start[i] && m_duration[i - 1] >= m_duration[i]);
    }
    if (!sorted) {
        order.resize(n);
        std::iota(order.begin(), order.end(), 0u);
        std::stable_sort(order.begin(), order.end(), [this](uint32_t a, uint32_t b) {
            if (m_start[a] != m_start[b])
                return m_start[a] < m_start[b];
            return m_duration[a] > m_duration[b];
        });
    }
    auto at = [&](size_t k) { return sorted ? uint32_t(k) : order[k]; };

    // Depth per event (in sorted order), and per-row counts.
    std::vector<uint16_t> depth(n);
    std::vector<TimePs> rowLastEnd;
    std::vector<uint32_t> rowCount;
    struct Open
    {
        TimePs end;
        uint16_t depth;
    };
    std::vector<Open> stack;
    for (size_t k = 0; k < n; ++k) {
        const uint32_t e = at(k);
        const TimePs s = m_start[e];
        const TimePs end = s + m_duration[e];
        while (!stack.empty() && stack.back().end <= s)
            stack.pop_back();
        size_t d = stack.empty() ? 0 : size_t(stack.back().depth) + 1;
        while (d < rowLastEnd.size() && rowLastEnd[d] > s)
            ++d;
        if (d >= std::numeric_limits<uint16_t>::max())
            d = std::numeric_limits<uint16_t>::max() - 1; // pathological: 65k-deep input
        if (d >= rowLastEnd.size()) {
            rowLastEnd.resize(d + 1, std::numeric_limits<TimePs>::min());
            rowCount.resize(d + 1, 0);
        }
        rowLastEnd[d] = std::max(rowLastEnd[d], end);
        ++rowCount[d];
        depth[k] = uint16_t(d);
        stack.push_back({end, uint16_t(d)});
    }

    auto &rows = m_track.rows;
    rows.clear();
    rows.resize(rowLastEnd.size());
    // Wide staging per row; each column is packed once its row is complete.
    std::vector<std::vector<int64_t>> durations(rows.size()), kinds(rows.size());
    for (size_t d = 0; d < rows.size(); ++d) {
        rows[d].start.reserve(rowCount[d]);
        durations[d].reserve(rowCount[d]);
        kinds[d].reserve(rowCount[d]);
        rows[d].args.reserve(rowCount[d]);
    }
    if (where)
        where->assign(n, Placement{0, 0});
    // Staged index -> position, needed to place side values.
    std::vector<Placement> placed;
    bool anySide = false;
    for (const auto &column : m_side)
        anySide = anySide || !column.empty();
    const bool needPlacement = where || anySide;
    if (needPlacement && !where)
        placed.resize(n);
    std::vector<Placement> &pos = where ? *where : placed;
    for (size_t k = 0; k < n; ++k) {
        const uint32_t e = at(k);
        const uint16_t d = depth[k];
        Row &row = rows[d];
        if (needPlacement)
            pos[e] = Placement{d, uint32_t(row.start.size())};
        row.start.push_back(m_start[e]);
        durations[d].push_back(m_duration[e]);
        kinds[d].push_back(m_kind[e]);
        row.args.push_back(m_args[e]);
    }
    for (size_t d = 0; d < rows.size(); ++d) {
        rows[d].duration.assign(durations[d]);
        release(durations[d]);
        rows[d].kind.assign(kinds[d]);
        release(kinds[d]);
    }
    // A row none of whose slices has args keeps no args column (most device rows).
    for (Row &row : rows) {
        if (std::all_of(row.args.begin(), row.args.end(), [](ArgsRef a) { return a == kNoArgs; }))
            release(row.args);
    }
    for (size_t c = 0; c < m_side.size(); ++c) {
        const auto &staging = m_side[c];
        if (staging.empty())
            continue;
        std::vector<std::vector<int64_t>> columns(rows.size());
        for (size_t d = 0; d < rows.size(); ++d)
            columns[d].assign(rows[d].size(), kNoValue);
        bool any = false;
        for (size_t e = 0; e < staging.size() && e < n; ++e) {
            if (staging[e] != kNoValue) {
                columns[pos[e].row][pos[e].index] = staging[e];
                any = true;
            }
        }
        // Rows whose slices carry no value of this column keep no column at all.
        for (size_t d = 0; d < rows.size() && any; ++d) {
            const auto &column = columns[d];
            if (!std::all_of(column.begin(), column.end(), [](int64_t v) { return v == kNoValue; }))
                rows[d].side[c].assign(column);
        }
    }

    m_track.sliceCount = n;
    if (n > 0) {
        TimePs lo = std::numeric_limits<TimePs>::max();
        TimePs hi = std::numeric_limits<TimePs>::min();
        for (const Row &row : rows) {
            lo = std::min(lo, row.start.front());
            hi = std::max(hi, row.end(row.size() - 1));
        }
        m_track.begin = lo;
        m_track.end = hi;
    }
    if (!m_track.counter.time.empty()) {
        auto &c = m_track.counter;
        if (!std::is_sorted(c.time.begin(), c.time.end())) {
            std::vector<uint32_t> idx(c.size());
            std::iota(idx.begin(), idx.end(), 0u);
            std::stable_sort(idx.begin(), idx.end(),
                             [&](uint32_t a, uint32_t b) { return c.time[a] < c.time[b]; });
            CounterSeries sortedSeries;
            sortedSeries.time.reserve(c.size());
            sortedSeries.value.reserve(c.size());
            for (uint32_t i : idx) {
                sortedSeries.time.push_back(c.time[i]);
                sortedSeries.value.push_back(c.value[i]);
            }
            c = std::move(sortedSeries);
        }
        const TimePs lo = c.time.front(), hi = c.time.back();
        m_track.begin = n > 0 ? std::min(m_track.begin, lo) : lo;
        m_track.end = n > 0 ? std::max(m_track.end, hi) : hi;
    }

    release(m_start);
    release(m_duration);
    release(m_kind);
    release(m_args);
    for (auto &column : m_side)
        release(column);
    m_track.counter.time.shrink_to_fit();
    m_track.counter.value.shrink_to_fit();
    m_track.aggregates.shrink_to_fit();
    m_track.args.shrinkToFit();
}

} // namespace tracedesk::core
