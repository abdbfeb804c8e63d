#pragma once

// TPU step-time breakdown (FORMATS.md 2.4): summaries over the steps of a TPU StepDb of
// TensorCore compute, idle, infeed, outfeed and all-reduce time, for the overview and the
// input pipeline's device side. Pure functions over plain values.
//
// Per core, the categories are disjoint: compute (busy time not spent in infeed, outfeed or
// collectives) + collectives + infeed + outfeed + idle == step time. Across cores XProf takes
// the least compute and idle and the most infeed; all-reduce time splits into a compute part
// (the least core's) and a synchronisation part (the rest of the slowest core's).

#include "core/analysis/stepbreakdown.h"

#include <array>
#include <vector>

namespace tracedesk::core::analysis {

struct TpuStepRow
{
    int64_t stepNumber = 0;
    std::string stepName;
    TimePs begin = 0;
    double stepTimeMs = 0;
    double computeMs = 0;
    double allReduceComputeMs = 0;
    double allReduceSyncMs = 0;
    double infeedMs = 0;
    double outfeedMs = 0;
    double idleMs = 0;
};

struct TpuCategory
{
    const char *label;
    double TpuStepRow::*ms;
};
extern const std::array<TpuCategory, 6> kTpuCategories;

struct TpuStepTimeBreakdown
{
    std::vector<TpuStepRow> steps;
    StepSummary stepTime;
    StepSummary compute;
    StepSummary idle;
    StepSummary infeed;
    StepSummary outfeed;
    StepSummary allReduceCompute;
    StepSummary allReduceSync;
    StepSummary infeedPercent;      // per step, the average over cores
};

TpuStepTimeBreakdown tpuStepTimeBreakdown(const StepDb &db);

} // namespace tracedesk::core::analysis
