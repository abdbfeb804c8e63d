#include "core/query/densityquery.h"

#include "core/query/viewportquery.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>

namespace tracedesk::core {

namespace {

constexpr double kFixed = 65535.0;

uint16_t toFixed(double fraction)
{
    return uint16_t(std::lround(std::clamp(fraction, 0.0, 1.0) * kFixed));
}

// Time per kind for one bin or column. A column of a zoomed-out row can hold dozens of slices
// of as many kinds, so a list searched per slice costs O(kinds) each: the times are kept in
// arrays indexed by kind instead (per thread, grown to the largest kind seen, so a frame
// allocates nothing; entries of earlier columns are told apart by a generation stamp, so a
// reset costs nothing), which makes each add O(1). Kinds are reported in the order first seen.
//
// In a zoomed-out column most slices are the first of their kind there, so an add does not
// branch on it: it always stamps the kind and appends it to the touched list, and counts the
// append only when the kind is new. A hot loop takes an Adder (the arrays and the count by
// value, so they stay in registers) after reserve() has made room for every kind it may add.
class KindTimes
{
public:
    struct Adder
    {
        TimePs *time;
        uint32_t *stamp;
        uint32_t *touched;
        uint32_t count;
        uint32_t generation;

        void add(uint32_t kind, TimePs ps)
        {
            const bool fresh = stamp[kind] != generation;
            stamp[kind] = generation;
            // A mask, not a branch: whether a kind is new is close to a coin toss.
            time[kind] = (time[kind] & (TimePs(fresh) - 1)) + ps;
            touched[count] = kind;
            count += fresh;
        }
    };

    void clear()
    {
        ++m_generation;
        if (m_generation == 0) {   // wrapped: forget every stamp
            std::fill(m_stamp.begin(), m_stamp.end(), 0u);
            m_generation = 1;
        }
        m_count = 0;
    }
    // Room for every kind below `kinds`.
    void reserve(size_t kinds)
    {
        if (kinds > m_stamp.size()) {
            const size_t size = std::max(kinds, m_stamp.size() * 2);
            m_stamp.resize(size, 0u);
            m_time.resize(size, 0);
            m_touched.resize(size + 1, 0u);   // an add writes one past the kinds it counts
        }
    }
    Adder adder()
    {
        return {m_time.data(), m_stamp.data(), m_touched.data(), m_count, m_generation};
    }
    void keep(const Adder &adder) { m_count = adder.count; }

    void add(uint32_t kind, TimePs ps)
    {
        reserve(size_t(kind) + 1);
        Adder a = adder();
        a.add(kind, ps);
        keep(a);
    }
    // The kind with the most time (the first seen on ties) and that time.
    std::pair<uint32_t, double> best() const
    {
        std::pair<uint32_t, double> b{0, -1};
        for (uint32_t n = 0; n < m_count; ++n) {
            const uint32_t kind = m_touched[n];
            if (double(m_time[kind]) > b.second)
                b = {kind, double(m_time[kind])};
        }
        return b;
    }

    static KindTimes &forThread()
    {
        thread_local KindTimes times;
        times.clear();
        return times;
    }

private:
    std::vector<TimePs> m_time;   // integer picoseconds: exact, and cheaper than double
    std::vector<uint32_t> m_stamp;
    std::vector<uint32_t> m_touched;
    uint32_t m_count = 0;
    uint32_t m_generation = 1;
};

// One past the largest kind in [first, last) of a kind column's view: from the view's width
// alone when it is narrow, so only a column of more than 65,536 kinds is read for it.
template<typename View>
size_t kindBound(View kinds, size_t first, size_t last)
{
    using Raw = decltype(kinds.raw(0));
    if constexpr (sizeof(Raw) <= 2) {
        return size_t(kinds.base) + size_t(std::numeric_limits<Raw>::max()) + 1;
    } else {
        int64_t top = 0;
        for (size_t i = first; i < last; ++i)
            top = std::max(top, kinds.at(i));
        return size_t(top) + 1;
    }
}

} // namespace

DensityBins::DensityBins(const Row &row)
{
    const size_t n = row.size();
    if (n < kDensityMinSlices)
        return;
    const TimePs *start = row.start.data();
    m_origin = start[0];
    const TimePs span = std::max<TimePs>(1, row.end(n - 1) - m_origin);
    // At least kDensityMinBins bins, so a row spanning the whole trace has 2+ bins per column
    // fully zoomed out on any screen; about one per 16 slices beyond that.
    const TimePs target = TimePs(std::max(n / 16, std::min(n / 4, kDensityMinBins)));
    while (m_shift < 62 && (span >> m_shift) > target)
        ++m_shift;
    const TimePs width = TimePs(1) << m_shift;
    const size_t bins = size_t((span - 1) >> m_shift) + 1;

    Level level0;
    level0.busy.assign(bins, 0);
    level0.domBusy.assign(bins, 0);
    level0.kind.assign(bins, 0);
    level0.count.assign(bins, 0);
    size_t current = 0;
    TimePs busy = 0;
    uint64_t count = 0;
    KindTimes &times = KindTimes::forThread();
    auto flush = [&] {
        const auto [kind, ps] = times.best();
        level0.busy[current] = toFixed(double(busy) / double(width));
        level0.domBusy[current] = toFixed(std::max(0.0, ps) / double(width));
        level0.kind[current] = kind;
        level0.count[current] = uint32_t(std::min<uint64_t>(count, UINT32_MAX));
        busy = 0;
        count = 0;
        times.clear();
    };
    auto add = [&](size_t bin, uint32_t kind, TimePs ps, bool starts) {
        if (bin != current) {
            flush();
            current = bin;
        }
        busy += ps;
        count += starts;
        times.add(kind, ps);
    };
    auto scan = [&](auto duration, auto kinds) {
        for (size_t i = 0; i < n; ++i) {
            const TimePs s = start[i] - m_origin;
            const TimePs e = s + duration[i];
            const size_t b0 = size_t(s >> m_shift);
            if (duration[i] <= 0) {
                add(b0, uint32_t(kinds[i]), 0, true);
                continue;
            }
            const size_t b1 = size_t((e - 1) >> m_shift);
            for (size_t b = b0; b <= b1; ++b) {
                const TimePs lo = std::max(s, TimePs(b) << m_shift);
                const TimePs hi = std::min(e, TimePs(b + 1) << m_shift);
                add(b, uint32_t(kinds[i]), hi - lo, b == b0);
            }
        }
    };
    row.duration.visit([&](auto d) { row.kind.visit([&](auto k) { scan(d, k); }); });
    flush();
    m_levels.push_back(std::move(level0));

    while (m_levels.back().busy.size() > 1 && m_levels.size() < 48) {
        const Level &child = m_levels.back();
        const size_t size = (child.busy.size() + 1) / 2;
        Level up;
        up.busy.resize(size);
        up.domBusy.resize(size);
        up.kind.resize(size);
        up.count.resize(size);
        for (size_t p = 0; p < size; ++p) {
            const size_t a = 2 * p, b = 2 * p + 1;
            const bool hasB = b < child.busy.size();
            up.busy[p] = uint16_t((uint32_t(child.busy[a]) + (hasB ? child.busy[b] : 0)) / 2);
            up.count[p] = uint32_t(std::min<uint64_t>(
                uint64_t(child.count[a]) + (hasB ? child.count[b] : 0), UINT32_MAX));
            if (hasB && child.kind[a] == child.kind[b]) {
                up.kind[p] = child.kind[a];
                up.domBusy[p] = uint16_t((uint32_t(child.domBusy[a]) + child.domBusy[b]) / 2);
            } else {
                const size_t w = hasB && child.domBusy[b] > child.domBusy[a] ? b : a;
                up.kind[p] = child.kind[w];
                up.domBusy[p] = uint16_t(child.domBusy[w] / 2);
            }
        }
        m_levels.push_back(std::move(up));
    }
}

int DensityBins::levelFor(double psPerPx) const
{
    if (m_levels.empty() || double(binWidth(0)) > psPerPx / 2)
        return -1;
    int level = 0;
    while (level + 1 < int(m_levels.size()) && double(binWidth(level + 1)) <= psPerPx / 4)
        ++level;
    return level;
}

DensityBins::Sum DensityBins::sum(int level, TimePs a, TimePs b) const
{
    Sum s;
    const Level &l = m_levels[size_t(level)];
    const int shift = m_shift + level;
    const TimePs width = TimePs(1) << shift;
    const TimePs lo = std::max<TimePs>(0, a - m_origin);
    const TimePs hi = b - m_origin;
    if (hi <= lo)
        return s;
    const size_t first = size_t(lo >> shift);
    const size_t last = std::min(l.busy.size(), size_t((hi - 1) >> shift) + 1);
    // At most ~9 bins per column (levelFor), so a fixed list of kinds suffices.
    std::array<std::pair<uint32_t, double>, 16> kinds;
    size_t kindCount = 0;
    for (size_t k = first; k < last; ++k) {
        const TimePs binStart = TimePs(k) << shift;
        const double overlap = double(std::min(hi, binStart + width) - std::max(lo, binStart));
        const double part = overlap / double(width);
        s.busyPs += l.busy[k] / kFixed * overlap;
        s.count += l.count[k] * part;
        const double dom = l.domBusy[k] / kFixed * overlap;
        size_t j = 0;
        while (j < kindCount && kinds[j].first != l.kind[k])
            ++j;
        if (j == kindCount) {
            if (kindCount == kinds.size())
                continue;
            kinds[kindCount++] = {l.kind[k], 0.0};
        }
        kinds[j].second += dom;
    }
    double best = -1;
    for (size_t j = 0; j < kindCount; ++j) {
        if (kinds[j].second > best) {
            best = kinds[j].second;
            s.kind = kinds[j].first;
        }
    }
    return s;
}

size_t DensityBins::memoryBytes() const
{
    size_t bytes = 0;
    for (const Level &l : m_levels)
        bytes += l.busy.capacity() * 2 + l.domBusy.capacity() * 2 + l.kind.capacity() * 4
                 + l.count.capacity() * 4;
    return bytes;
}

namespace {

// Exact columns of one run: its slices walked in order.
void exactColumns(const Row &row, const Viewport &view, const VisibleItem &run, uint32_t item,
                  int64_t widthPx, std::vector<DensityColumn> &out)
{
    const TimePs *start = row.start.data();
    int64_t column = -1;
    // The current column's time range, so a slice inside it costs no division.
    TimePs columnStart = 0, columnEnd = 0;
    TimePs flushStart = 0, flushEnd = 1;   // the accumulated column's range
    TimePs busy = 0;
    uint32_t count = 0;
    KindTimes &times = KindTimes::forThread();
    auto flush = [&] {
        if (column >= 0 && column < widthPx && (busy > 0 || count > 0)) {
            const auto best = times.best();
            out.push_back({column,
                           float(std::min(1.0, double(busy) / double(flushEnd - flushStart))),
                           best.first, count, item});
        }
        busy = 0;
        count = 0;
        times.clear();
    };
    auto add = [&](int64_t px, uint32_t kind, TimePs ps, bool starts) {
        if (px != column) {
            flush();
            column = px;
            flushStart = columnStart;
            flushEnd = columnEnd;
        }
        busy += ps;
        count += starts;
        times.add(kind, ps);
    };
    int64_t rangePx = -2; // the column [columnStart, columnEnd) is; -2 before the first
    auto columnOf = [&](TimePs t) {
        if (t >= columnStart && t < columnEnd)
            return rangePx;
        // Usually the next column: one boundary to compute instead of three.
        if (rangePx >= -1 && t >= columnEnd) {
            const TimePs nextEnd = view.pixelStart(rangePx + 2);
            if (t < nextEnd) {
                columnStart = columnEnd;
                columnEnd = nextEnd;
                return ++rangePx;
            }
        }
        rangePx = std::max<int64_t>(view.pixelOf(t), -1);
        columnStart = view.pixelStart(rangePx);
        columnEnd = view.pixelStart(rangePx + 1);
        return rangePx;
    };
    auto walk = [&](auto duration, auto kinds) {
        const size_t last = size_t(run.first) + run.count;
        times.reserve(kindBound(kinds, run.first, last));
        for (size_t i = run.first; i < last; ++i) {
            // Most slices of a folded run start and end inside the column being filled: they
            // are summed here in registers (the lambdas' captured state lives in memory).
            if (column >= 0) {
                const TimePs from = columnStart, to = columnEnd;
                TimePs sum = 0;
                uint32_t n = 0;
                KindTimes::Adder adder = times.adder();
                for (; i < last; ++i) {
                    const TimePs s = start[i], e = s + duration[i];
                    if (s < from || s >= to || e > to)
                        break;
                    sum += e - s;
                    ++n;
                    adder.add(uint32_t(kinds[i]), e - s);
                }
                times.keep(adder);
                busy += sum;
                count += n;
                if (i == last)
                    break;
            }
            const TimePs s = start[i], e = s + duration[i];
            const auto kind = uint32_t(kinds[i]);
            int64_t px = columnOf(s);
            if (duration[i] <= 0) {
                add(px, kind, 0, true);
                continue;
            }
            // Parts before the view go to column -1, which flush() drops.
            add(px, kind, std::min(e, columnEnd) - std::max(s, columnStart), true);
            while (e > columnEnd && px + 1 < widthPx) {
                rangePx = ++px;
                columnStart = columnEnd;
                columnEnd = view.pixelStart(px + 1);
                add(px, kind, std::min(e, columnEnd) - columnStart, false);
            }
        }
    };
    row.duration.visit([&](auto d) { row.kind.visit([&](auto k) { walk(d, k); }); });
    flush();
}

// Columns of a run too long to walk: how many slices start in each column, by binary search.
void countedColumns(const Row &row, const Viewport &view, const VisibleItem &run, uint32_t item,
                    int64_t widthPx, std::vector<DensityColumn> &out)
{
    const TimePs *start = row.start.data();
    const TimePs *end = start + run.first + run.count;
    const int64_t px0 = std::max<int64_t>(0, view.pixelOf(run.start));
    const int64_t px1 = std::min(widthPx - 1, view.pixelOf(std::max(run.start, run.end() - 1)));
    const TimePs *from = std::lower_bound(start + run.first, end, view.pixelStart(px0));
    for (int64_t px = px0; px <= px1; ++px) {
        const TimePs *to = std::lower_bound(from, end, view.pixelStart(px + 1));
        out.push_back({px, kNotMeasured, run.kind, uint32_t(to - from), item});
        from = to;
    }
}

} // namespace

void densityColumns(const Row &row, const Viewport &view, const std::vector<VisibleItem> &items,
                    std::vector<DensityColumn> &out, const DensityBins *bins, size_t *exactBudget)
{
    out.clear();
    if (!view.valid())
        return;
    const int64_t widthPx = view.widthPx();
    const int level = bins && !bins->empty() ? bins->levelFor(view.psPerPx()) : -1;
    for (size_t n = 0; n < items.size(); ++n) {
        const VisibleItem &run = items[n];
        if (!run.folded())
            continue;
        if (level < 0) {
            if (!exactBudget || run.count <= *exactBudget) {
                exactColumns(row, view, run, uint32_t(n), widthPx, out);
                if (exactBudget)
                    *exactBudget -= run.count;
            } else {
                countedColumns(row, view, run, uint32_t(n), widthPx, out);
            }
            continue;
        }
        const int64_t px0 = std::max<int64_t>(0, view.pixelOf(run.start));
        const int64_t px1 = std::min(widthPx - 1, view.pixelOf(std::max(run.start, run.end() - 1)));
        TimePs a = view.pixelStart(px0);
        for (int64_t px = px0; px <= px1; ++px) {
            const TimePs b = view.pixelStart(px + 1);
            const DensityBins::Sum s = bins->sum(level, a, b);
            const uint32_t count = uint32_t(std::lround(s.count));
            if (s.busyPs >= 1.0 || count > 0) {
                out.push_back({px, float(std::min(1.0, s.busyPs / double(b - a))), s.kind, count,
                               uint32_t(n)});
            }
            a = b;
        }
    }
}

} // namespace tracedesk::core
