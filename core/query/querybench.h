#pragma once

// Timings of the viewport queries and the search on a loaded Trace, for `tracedesk-cli bench`.
//
// A frame queries every row of every track (and every counter) the way a timeline with all
// tracks expanded would, with a TraceLodIndex built once (its build time is reported), reusing
// one output vector per row between repetitions. Zooms: the whole trace, windows of 1/4 and
// 1/16 of the span at its centre (where folded runs span many columns each: the costliest
// level of detail), 1/1000 of the span, and 1 ps per pixel at the centre. Each figure is the median of `repetitions` runs, in milliseconds of steady_clock.
// Runs on the calling thread (the search uses its own workers); the Trace is only read.

#include "core/model/trace.h"

#include <string>
#include <string_view>

namespace tracedesk::core {

struct QueryBenchResult
{
    double frameBuildMsOut = 0;
    double frameBuildMsMid = 0;
    double frameBuildMsQuarter = 0;   // 1/4 of the span
    double frameBuildMsSixteenth = 0; // 1/16 of the span
    double frameBuildMsIn = 0;
    double searchMs = 0;
    double indexBuildMs = 0;        // TraceLodIndex, built once before the frames
    uint64_t rows = 0;              // rows (and counters) queried per frame
    uint64_t itemsOut = 0;          // items returned by one frame at each zoom
    uint64_t itemsMid = 0;
    uint64_t itemsIn = 0;
    std::string searchQuery;
    uint64_t searchMatches = 0;
};

// An empty searchQuery picks a prefix of the most frequent slice name.
QueryBenchResult runQueryBench(const Trace &trace, int widthPx = 1920, int repetitions = 7,
                               std::string_view searchQuery = {});

} // namespace tracedesk::core
