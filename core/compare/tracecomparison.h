#pragma once

// TraceComparison: everything the compare workspace and `tracedesk-cli diff` show for two
// traces A and B: op diffs at the three levels, step times side by side, overview figures,
// the time-axis alignment and the measure a CI gate checks.
//
// When both traces are PyTorch profiler traces, the PyTorch analyses stand in for XProf's
// (pytorchcomparison.h): steps by ProfilerStep number with the PyTorch breakdown, the framework
// op level from the operators, the PyTorch overview figures, the gate on the PyTorch step time;
// `pytorch` holds the operator matching, kernels per operator and GPU metrics.
//
// The per-trace analyses come from each trace's AnalysisCache (so a panel that already
// computed them shares the result); the two sides are computed in parallel. The comparison
// itself touches names and numbers only. Plain value, immutable once built; compareTraces may
// run on any thread.

#include "core/analysis/analysiscache.h"
#include "core/analysis/frameworkopstats.h"
#include "core/analysis/overview.h"
#include "core/compare/alignment.h"
#include "core/compare/opdiff.h"
#include "core/compare/overviewcompare.h"
#include "core/compare/pytorchcomparison.h"
#include "core/compare/stepcompare.h"

#include <array>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace tracedesk::core::compare {

// The analyses of one side, shared with the trace's cache.
struct CompareSide
{
    TracePtr trace;
    std::shared_ptr<const analysis::StepDb> steps;
    std::shared_ptr<const analysis::OverviewPage> overview;
    std::shared_ptr<const OpTables> ops;
};

// Computes (or takes from the cache) what one side needs.
CompareSide compareSide(analysis::AnalysisCache &cache);
std::shared_ptr<const OpTables> opTables(analysis::AnalysisCache &cache);

struct CompareOptions
{
    NoiseThreshold noise;
    std::optional<int> alignStep;   // step pair to align; default the first complete steps
};

// What a performance gate compares: the average step time when both traces have steps, else
// the total device op time (host op time for traces without devices).
struct GateMeasure
{
    std::string what;
    double a = 0;                   // ms
    double b = 0;
    double deltaPercent = 0;        // 0 when a is 0
};

struct TraceComparison
{
    std::array<OpDiff, kOpLevelCount> diffs;
    StepComparison steps;
    OverviewComparison overview;
    TraceAlignment alignment;
    GateMeasure gate;
    // The steps the alignment pairs (each side's StepDb, or the paired PyTorch steps).
    std::shared_ptr<const analysis::StepDb> stepDbA;
    std::shared_ptr<const analysis::StepDb> stepDbB;
    std::shared_ptr<const PyTorchComparison> pytorch; // both traces are PyTorch traces

    const OpDiff &diff(OpLevel level) const { return diffs[size_t(level)]; }
};

TraceComparison compareTraces(const CompareSide &a, const CompareSide &b,
                              const CompareOptions &options = {});
// Both sides' analyses in parallel, then the comparison.
TraceComparison compareTraces(analysis::AnalysisCache &a, analysis::AnalysisCache &b,
                              const CompareOptions &options = {});

GateMeasure gateMeasure(const StepComparison &steps, const OpTables &a, const OpTables &b);

// A few plain sentences: the step-time change, the biggest regressions and improvements at
// `level` (at most `top` each) and how many ops did not move.
std::vector<std::string> summaryLines(const TraceComparison &comparison, OpLevel level,
                                      size_t top = 3);

// "+12.5%" / "-3.0%" / "n/a".
std::string formatPercent(double percent);
// A per-step change in microseconds with a sign and an adaptive unit: "+50.0 us", "-1.20 ms".
std::string formatDeltaUs(double us);

} // namespace tracedesk::core::compare
