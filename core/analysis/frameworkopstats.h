#pragma once

// Framework op stats (FORMATS.md 2.10, XProf "TF stats"): one row per framework op on the host
// and on the device. Device rows roll the device op metrics up to the framework op that produced
// them (grouped by provenance; occurrences = the most of any member op); host rows are the host
// op metrics. Each side is ranked by self time, at most 500 rows, device rows first. Fractions
// are of that side's total self time (with or without the IDLE row). Pure and immutable.

#include "core/analysis/opmetrics.h"

#include <memory>
#include <string>
#include <vector>

namespace tracedesk::core::analysis {

struct FrameworkOpStatsRow
{
    int rank = 0;
    bool onDevice = false;
    std::string type;
    std::string name;
    int64_t occurrences = 0;
    double totalTimeUs = 0;
    double avgTimeUs = 0;
    double totalSelfTimeUs = 0;
    double avgSelfTimeUs = 0;
    double selfTimeFraction = 0;          // of this side's total self time
    double cumulativeSelfTimeFraction = 0;
    bool isEager = false;
    double gflopsPerSecond = 0;           // measured FLOP rate (device)
};

struct FrameworkOpStatsTable
{
    std::vector<FrameworkOpStatsRow> rows;   // device rows first, then host rows
    size_t deviceOps = 0;                    // distinct ops per side before the 500-row cap
    size_t hostOps = 0;
};

struct FrameworkOpStats
{
    FrameworkOpStatsTable withIdle;
    FrameworkOpStatsTable withoutIdle;
    std::string deviceType;
};

FrameworkOpStats frameworkOpStats(const OpStats &stats);
std::shared_ptr<const FrameworkOpStats> frameworkOpStats(AnalysisCache &cache);

} // namespace tracedesk::core::analysis
