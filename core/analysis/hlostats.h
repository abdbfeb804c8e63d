#pragma once

// HLO Op Stats: one row per HLO op of the device op metrics DB (FORMATS.md 2.8), as XProf's
// `hlo_stats` tool lists them: time and self time with their shares, FLOP rate, memory
// bandwidth, operational intensity and what bounds the op by the device's ridge point.
//
// Rules (XProf's op_stats_to_hlo_stats and its record helpers):
// - rows exclude IDLE, sorted by self time descending; self time % is of the sum of all rows'
//   self time; cumulative % accumulates in row order;
// - GFLOP/s = flops / time (ns): FLOPs of an op include the ops nested in it, so its whole time;
// - memory GiB/s = bytes accessed / time (ns) * 1e9 / 2^30, all bytes counted as HBM (the
//   profile's per-op total has no memory-space breakdown);
// - operational intensity = flops / bytes accessed;
// - a profile with no FLOPs or bytes at all (GPU captures) gets them estimated from its compiled
//   HLO when it embeds it (hlocost.h), and says so;
// - bound by: "Compute" when the intensity reaches the ridge point (peak FLOP rate / peak HBM
//   bandwidth), "HBM" below it, "Unknown" when the op has no FLOPs and no bytes or the device
//   peaks are unknown.
// A number the profile cannot give is std::nullopt (shown as empty / null), never zero.
//
// The result is a plain value computed from an immutable trace; any thread.

#include "core/analysis/analysiscache.h"
#include "core/analysis/opmetrics.h"
#include "core/hlo/hlomodules.h"

#include <optional>
#include <string>
#include <vector>

namespace tracedesk::core::analysis {

struct HloStatsRow
{
    int rank = 0;
    std::string programId;           // text, since XProf's ids are 64-bit
    std::string category;
    std::string hloOpName;
    std::string expression;          // HLO op text; empty when the profile has none
    std::string frameworkOp;
    int64_t occurrences = 0;
    double totalTimeUs = 0;
    double avgTimeUs = 0;
    double totalSelfTimeUs = 0;
    double avgSelfTimeUs = 0;
    double selfTimePercent = 0;      // 0-100
    double cumulativeSelfTimePercent = 0;
    std::optional<double> flops;
    std::optional<double> bytesAccessed;
    std::optional<double> gflopsPerSecond;
    std::optional<double> modelGflopsPerSecond;
    std::optional<double> memoryBwGibPerSecond;   // all memory spaces
    std::optional<double> hbmBwGibPerSecond;
    std::optional<double> cmemReadBwGibPerSecond;
    std::optional<double> cmemWriteBwGibPerSecond;
    std::optional<double> operationalIntensity;   // FLOP per byte
    std::string boundBy;             // "Compute", "HBM", "Unknown" (or what a file recorded)
    std::string rematerialization;   // "Yes", "No", or empty when unknown
    std::string outsideCompilation;
    std::string autotuned;
    std::string sourceInfo;
    bool costEstimated = false;      // FLOPs and bytes from the compiled HLO (hlocost.h)
};

struct HloStats
{
    std::vector<HloStatsRow> rows;
    double peakGigaFlopsPerSecond = 0;   // 0 when unknown
    double peakHbmGigaBytesPerSecond = 0;
    double ridgePoint = 0;               // FLOP per byte; 0 when unknown
    std::string source;                  // "profile" or the tool file read
    std::string note;                    // why numbers are missing, if they are
};

// Rows from a device op metrics DB and the device's peaks. When no op has a cost and `hlo` has
// the ops' modules, FLOPs and bytes are estimated from the HLO (rows say costEstimated).
HloStats buildHloStats(const OpMetricsDb &device, const PerfEnv &env,
                       const hlo::HloModuleIndex *hlo = nullptr);
// Whether any op of `db` records FLOPs or bytes accessed (else HLO costs are estimated).
bool hasOpCosts(const OpMetricsDb &db);
// "Compute", "HBM" or "Unknown" for one intensity against the ridge point.
std::string boundByRidge(std::optional<double> intensity, double ridgePoint);
// Whole-trace result through the cache (a legacy tool file may have seeded it).
std::shared_ptr<const HloStats> hloStats(AnalysisCache &cache);

} // namespace tracedesk::core::analysis
