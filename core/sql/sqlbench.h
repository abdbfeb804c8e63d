#pragma once

// Timings of SQL over a loaded Trace, for `tracedesk-cli bench`: the per-name aggregate
// (`SELECT name, count(*), sum(dur) FROM slices GROUP BY name`) and a 1 ms window at the centre
// of the trace (slices overlapping it: count and summed duration), each the median of
// `repetitions` runs in milliseconds of steady_clock, plus the process RSS before the session
// opens, its peak while the queries run, and after. Runs on the calling thread; the Trace is
// only read.

#include "core/model/trace.h"

#include <string>

namespace tracedesk::core::sql {

struct SqlBenchResult
{
    double groupByNameMs = 0;
    uint64_t groupByNameRows = 0;
    double window1msMs = 0;
    uint64_t window1msSlices = 0;
    uint64_t rssBeforeBytes = 0;
    uint64_t rssPeakBytes = 0; // high-water mark while querying (0 if unavailable)
    uint64_t rssAfterBytes = 0;
    std::string error; // set when a query failed
};

SqlBenchResult runSqlBench(const TracePtr &trace, int repetitions = 3);

} // namespace tracedesk::core::sql
