#pragma once

// OpDiff: the per-op comparison of two traces at one level. Ops are matched by (where, name)
// text; each row carries both sides' occurrences, total and self time, the self time per step
// and the change, classified with a noise threshold. Rows are sorted by the absolute change
// per step, largest first (ties by name), so the top rows are what moved most.
//
// Per step: self time divided by the trace's step count, or by 1 when the trace has no steps
// (then the figures are per trace). Comparing per step keeps a run that profiled 12 steps
// comparable with one that profiled 10.
//
// Plain value; pure function. Invariant: counts[c] == number of rows with change c.

#include "core/compare/optables.h"

#include <array>
#include <vector>

namespace tracedesk::core::compare {

enum class OpChange : uint8_t { Slower, Faster, Added, Removed, Unchanged };
inline constexpr int kOpChangeCount = 5;
// "slower", "faster", "added", "removed", "unchanged".
const char *opChangeName(OpChange change);

// An op's change counts as noise (unchanged) when |delta per step| is below
// max(relative x its per-step time in A, absoluteUs). Why these defaults: repeated runs of an
// unchanged program move per-op GPU times by about 1-2% (clock boost, memory placement,
// launch queueing), so 2% keeps reruns quiet; tiny ops sit near the 1 us timer and launch
// resolution, where a couple of microseconds per step is jitter, not a change anyone acts on.
struct NoiseThreshold
{
    double relative = 0.02;
    double absoluteUsPerStep = 2.0;
};

struct OpDiffRow
{
    std::string name;
    std::string category;
    std::string where;
    int64_t occurrencesA = 0;
    int64_t occurrencesB = 0;
    TimePs totalA = 0;
    TimePs totalB = 0;
    TimePs selfA = 0;
    TimePs selfB = 0;
    double perStepUsA = 0;          // self time per step
    double perStepUsB = 0;
    double deltaUs = 0;             // perStepUsB - perStepUsA
    double deltaPercent = 0;        // of perStepUsA; NaN when A has none of it
    OpChange change = OpChange::Unchanged;
};

struct OpDiff
{
    OpLevel level = OpLevel::Framework;
    int stepsA = 0;                 // divisors used (>= 1)
    int stepsB = 0;
    std::vector<OpDiffRow> rows;
    std::array<int, kOpChangeCount> counts{};
    double slowerUs = 0;            // sum of deltas of slower and added rows, per step
    double fasterUs = 0;            // sum of (negative) deltas of faster and removed rows

    int count(OpChange change) const { return counts[size_t(change)]; }
};

// stepsA / stepsB: the traces' step counts (0 when a trace has no steps).
OpDiff diffOps(const std::vector<OpTotals> &a, int stepsA, const std::vector<OpTotals> &b,
               int stepsB, OpLevel level, const NoiseThreshold &noise = {});

OpChange classifyChange(double perStepUsA, double perStepUsB, bool inA, bool inB,
                        const NoiseThreshold &noise);

} // namespace tracedesk::core::compare
