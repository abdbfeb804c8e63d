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

// A staged column as a row's column: its buffer itself when it holds little slack (staging is
// reserved to a line's event count), else an exact copy, so the store keeps no spare capacity.
template<typename T>
std::vector<T> takeColumn(std::vector<T> &staged)
{
    if (staged.capacity() - staged.size() <= staged.size() / 64)
        return std::move(staged);
    return std::vector<T>(staged.begin(), staged.end());
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
    if (staging.size() > staged) {
        staging[staged] = value;
        return;
    }
    // Mostly the slice just added: an append, not a fill call per slice. Slices past the
    // column's end read as kNoValue (finish()).
    if (staging.empty())
        staging.reserve(std::max(m_reserved, size_t(staged) + 1));
    if (staging.size() < staged)
        staging.resize(staged, kNoValue);
    staging.push_back(value);
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

    // Staged indices grouped by row, each row's in sorted order (a counting sort by depth).
    // Every column is then packed straight from its staging row by row, and each staging column
    // is freed as soon as it is packed, so the peak stays near the staging plus one index per
    // slice (a line of the size of the whole trace can be in flight).
    // Sorted input on one row (a GPU stream, a launch thread: most events of a trace) is its own
    // order: no index per slice, and its starts and args become the row's columns as they are.
    const size_t rowTotal = rowLastEnd.size();
    const bool inStagingOrder = sorted && rowTotal == 1;
    std::vector<size_t> first(rowTotal + 1, 0);
    for (size_t d = 0; d < rowTotal; ++d)
        first[d + 1] = first[d] + rowCount[d];
    std::vector<uint32_t> members;
    if (!inStagingOrder) {
        members.resize(n);
        std::vector<size_t> next(first.begin(), first.end() - 1);
        for (size_t k = 0; k < n; ++k)
            members[next[depth[k]]++] = at(k);
    }
    release(depth);
    release(order);
    // The staged index of row d's i-th slice.
    auto member = [&](size_t d, size_t i) {
        return inStagingOrder ? uint32_t(i) : members[first[d] + i];
    };
    auto rowSize = [&](size_t d) { return first[d + 1] - first[d]; };

    auto &rows = m_track.rows;
    rows.clear();
    rows.resize(rowTotal);
    if (where) {
        where->resize(n);
        for (size_t d = 0; d < rowTotal; ++d) {
            for (size_t i = 0; i < rowSize(d); ++i)
                (*where)[member(d, i)] = Placement{uint32_t(d), uint32_t(i)};
        }
    }
    if (inStagingOrder) {
        rows[0].start = takeColumn(m_start);
    } else {
        for (size_t d = 0; d < rowTotal; ++d) {
            rows[d].start.resize(rowSize(d));
            for (size_t i = 0; i < rowSize(d); ++i)
                rows[d].start[i] = m_start[member(d, i)];
        }
    }
    release(m_start);
    for (size_t d = 0; d < rowTotal; ++d) {
        rows[d].duration.assignWith(rowSize(d),
                                    [&](size_t i) { return m_duration[member(d, i)]; });
    }
    release(m_duration);
    for (size_t d = 0; d < rowTotal; ++d) {
        rows[d].kind.assignWith(rowSize(d),
                                [&](size_t i) { return int64_t(m_kind[member(d, i)]); });
    }
    release(m_kind);
    // A row none of whose slices has args keeps no args column (most device rows).
    for (size_t d = 0; d < rowTotal; ++d) {
        bool any = false;
        for (size_t i = 0; i < rowSize(d) && !any; ++i)
            any = m_args[member(d, i)] != kNoArgs;
        if (!any)
            continue;
        if (inStagingOrder) {
            rows[d].args = takeColumn(m_args);
            break;
        }
        rows[d].args.resize(rowSize(d));
        for (size_t i = 0; i < rowSize(d); ++i)
            rows[d].args[i] = m_args[member(d, i)];
    }
    release(m_args);
    for (size_t c = 0; c < m_side.size(); ++c) {
        auto &staging = m_side[c];
        if (staging.empty())
            continue;
        auto value = [&](uint32_t e) { return e < staging.size() ? staging[e] : kNoValue; };
        // Rows whose slices carry no value of this column keep no column at all.
        for (size_t d = 0; d < rowTotal; ++d) {
            bool any = false;
            for (size_t i = 0; i < rowSize(d) && !any; ++i)
                any = value(member(d, i)) != kNoValue;
            if (!any)
                continue;
            rows[d].side[c].assignWith(rowSize(d),
                                       [&](size_t i) { return value(member(d, i)); });
        }
        release(staging);
    }
    release(members);

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

    m_track.counter.time.shrink_to_fit();
    m_track.counter.value.shrink_to_fit();
    m_track.aggregates.shrink_to_fit();
    m_track.args.shrinkToFit();
}

} // namespace tracedesk::core
