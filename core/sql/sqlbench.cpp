#include "core/sql/sqlbench.h"

#include "core/io/memoryusage.h"
#include "core/sql/sqlsession.h"

#include <algorithm>
#include <chrono>
#include <vector>

namespace tracedesk::core::sql {

namespace {

// Median milliseconds of `repetitions` runs; the last result is kept in *out.
double medianMs(SqlSession &session, const std::string &sql, int repetitions, QueryResult *out,
                std::string *error)
{
    std::vector<double> ms;
    for (int k = 0; k < std::max(1, repetitions); ++k) {
        const auto started = std::chrono::steady_clock::now();
        auto r = session.run(sql);
        ms.push_back(
            std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - started)
                .count());
        if (!r) {
            *error = r.message();
            return 0;
        }
        *out = std::move(r).value();
    }
    std::sort(ms.begin(), ms.end());
    return ms[ms.size() / 2];
}

} // namespace

SqlBenchResult runSqlBench(const TracePtr &trace, int repetitions)
{
    SqlBenchResult r;
    r.rssBeforeBytes = currentRssBytes();
    const bool peakReset = resetPeakRss();
    auto session = SqlSession::open(trace);
    if (!session) {
        r.error = session.message();
        return r;
    }
    QueryResult result;
    r.groupByNameMs =
        medianMs(*session.value(), "SELECT name, count(*), sum(dur) FROM slices GROUP BY name",
                 repetitions, &result, &r.error);
    r.groupByNameRows = result.rows.size();
    const TimePs centre = trace->begin + (trace->end - trace->begin) / 2;
    const std::string window = "SELECT count(*), sum(dur) FROM slices WHERE ts < " +
                               std::to_string(centre + 1000000000) + " AND end > " +
                               std::to_string(centre);
    if (r.error.empty()) {
        r.window1msMs =
            medianMs(*session.value(), window, std::max(repetitions, 7), &result, &r.error);
        if (!result.rows.empty() && !result.rows[0].empty())
            if (const auto *n = std::get_if<int64_t>(&result.rows[0][0]))
                r.window1msSlices = uint64_t(*n);
    }
    r.rssPeakBytes = peakReset ? peakRssBytes() : 0;
    r.rssAfterBytes = currentRssBytes();
    return r;
}

} // namespace tracedesk::core::sql
