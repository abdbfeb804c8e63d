#include "core/query/querybench.h"

#include "core/query/densityquery.h"
#include "core/query/lodindex.h"
#include "core/query/search.h"
#include "core/query/viewportquery.h"

#include <algorithm>
#include <chrono>
#include <functional>

namespace tracedesk::core {

namespace {

double medianMs(int repetitions, const std::function<void()> &run)
{
    std::vector<double> ms;
    for (int i = 0; i < std::max(1, repetitions); ++i) {
        const auto begin = std::chrono::steady_clock::now();
        run();
        const auto end = std::chrono::steady_clock::now();
        ms.push_back(std::chrono::duration<double, std::milli>(end - begin).count());
    }
    std::sort(ms.begin(), ms.end());
    return ms[ms.size() / 2];
}

std::string commonPrefix(const Trace &trace)
{
    std::vector<uint64_t> counts(trace.kinds.size(), 0);
    for (const Track &track : trace.tracks) {
        for (const Row &row : track.rows) {
            for (uint32_t k : row.kind) {
                if (k < counts.size())
                    ++counts[k];
            }
        }
    }
    if (counts.empty())
        return {};
    const size_t best = size_t(std::max_element(counts.begin(), counts.end()) - counts.begin());
    const std::string_view name = trace.string(trace.kinds[best].name);
    return std::string(name.substr(0, 4));
}

class Frame
{
public:
    Frame(const Trace &trace, const TraceLodIndex &index) : m_trace(trace), m_index(index)
    {
        for (const Track &track : trace.tracks) {
            m_rows += track.rows.size();
            m_counters += track.counter.size() > 0;
        }
        m_slices.resize(m_rows);
        m_columns.resize(m_rows);
        m_points.resize(m_counters);
    }

    uint64_t rows() const { return m_rows + m_counters; }

    uint64_t run(const Viewport &view)
    {
        uint64_t items = 0;
        size_t r = 0, c = 0;
        for (uint32_t t = 0; t < m_trace.tracks.size(); ++t) {
            const Track &track = m_trace.tracks[t];
            for (uint32_t k = 0; k < track.rows.size(); ++k) {
                // What the timeline does per row: items, then the folded runs' columns.
                const RowIndex *rowIndex = m_index.row(t, k);
                queryRow(track.rows[k], view, m_slices[r], kFoldPx, rowIndex);
                densityColumns(track.rows[k], view, m_slices[r], m_columns[r],
                               rowIndex ? &rowIndex->density() : nullptr);
                items += m_slices[r].size() + m_columns[r].size();
                ++r;
            }
            if (track.counter.size() > 0) {
                queryCounter(track.counter, view, m_points[c], m_index.counter(t));
                items += m_points[c++].size();
            }
        }
        return items;
    }

private:
    const Trace &m_trace;
    const TraceLodIndex &m_index;
    size_t m_rows = 0;
    size_t m_counters = 0;
    std::vector<std::vector<VisibleItem>> m_slices;
    std::vector<std::vector<DensityColumn>> m_columns;
    std::vector<std::vector<CounterPoint>> m_points;
};

} // namespace

QueryBenchResult runQueryBench(const Trace &trace, int widthPx, int repetitions,
                               std::string_view searchQuery)
{
    QueryBenchResult result;
    widthPx = std::max(1, widthPx);
    const TimePs begin = trace.begin;
    const TimePs end = std::max(trace.end, trace.begin + 1);
    const TimePs span = end - begin;
    const TimePs centre = begin + span / 2;

    const auto indexStart = std::chrono::steady_clock::now();
    const TraceLodIndex index(trace);
    result.indexBuildMs = std::chrono::duration<double, std::milli>(
                              std::chrono::steady_clock::now() - indexStart)
                              .count();
    Frame frame(trace, index);
    result.rows = frame.rows();
    const Viewport out = Viewport::withWidth(begin, end, widthPx);
    const TimePs midSpan = std::max<TimePs>(widthPx, span / 1000);
    const Viewport mid = Viewport::withWidth(centre - midSpan / 2, centre - midSpan / 2 + midSpan,
                                             widthPx);
    // 1 ps/px around the first slice starting after the centre, so the frame is not empty.
    TimePs focus = centre;
    for (uint32_t t = 0; t < trace.tracks.size(); ++t) {
        if (const auto s = trace.sliceStartingFrom(t, centre)) {
            focus = trace.start(*s);
            break;
        }
    }
    const Viewport in = Viewport::withPsPerPx(focus - widthPx / 2, focus - widthPx / 2 + widthPx,
                                              int64_t(1));
    result.frameBuildMsOut = medianMs(repetitions, [&] { result.itemsOut = frame.run(out); });
    result.frameBuildMsMid = medianMs(repetitions, [&] { result.itemsMid = frame.run(mid); });
    for (const auto &[divisor, ms] : {std::pair{4, &result.frameBuildMsQuarter},
                                      std::pair{16, &result.frameBuildMsSixteenth}}) {
        const TimePs part = std::max<TimePs>(widthPx, span / divisor);
        const Viewport v = Viewport::withWidth(centre - part / 2, centre - part / 2 + part,
                                               widthPx);
        *ms = medianMs(repetitions, [&] { frame.run(v); });
    }
    result.frameBuildMsIn = medianMs(repetitions, [&] { result.itemsIn = frame.run(in); });

    result.searchQuery = searchQuery.empty() ? commonPrefix(trace) : std::string(searchQuery);
    result.searchMs = medianMs(repetitions, [&] {
        auto found = searchSlices(trace, result.searchQuery);
        result.searchMatches = found.ok() ? found.value().total : 0;
    });
    return result;
}

} // namespace tracedesk::core
