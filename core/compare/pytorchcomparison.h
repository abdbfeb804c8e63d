#pragma once

// PyTorchComparison: two PyTorch profiler (Kineto) traces side by side, from the analyses each
// trace gets on its own (pytorchsteps.h, pytorchoverview.h, operatortree.h, operatorstats.h), so
// every number on a side is the number that trace's own panels show.
//
// Steps: paired by ProfilerStep number when both traces have ProfilerStep#N markers (step 6 of A
// against step 6 of B, whatever else each captured), else by index (serving iterations, the
// fallback step). Each pair carries the step time and the eight breakdown categories of each
// side; the averages are over all kept steps of a side, as its Overview reports them.
//
// Operators (three groupings: by name, by name + input shapes, by call path) are matched by
// text, never by interned ids:
// 1. the same key on both sides ("name"; for the call-path grouping "call_path");
// 2. what is left is paired by its place in the call tree: rows whose call path (the chain of
//    enclosing operator names, step markers written "ProfilerStep#*") and, for that grouping,
//    input shapes are equal, largest device time first ("call_path"). This is how
//    `aten::cudnn_convolution` on an NVIDIA GPU meets `aten::miopen_convolution` on an AMD one:
//    both sit under `aten::_convolution`. Rows are paired shallowest first, and a pair's B name
//    stands for its A name in the deeper paths, so their children can pair too;
// 3. the rest is "unmatched".
// A row's call path is that of its node with the most device time (ties: the first in tree
// order). Host and device times are the Op Stats sums of the row's nodes (operatorstats.h), so
// a name row's device self time equals that trace's Op Stats row exactly.
//
// Kernels per operator: the GPU activities the row's nodes launched themselves (their own
// runtimes, what device self time counts), grouped by kernel name with the shared family
// (kernelclass.h). Across vendors kernels are compared through the operator and their family
// (`families`: GEMM against GEMM), never by name.
//
// Changes are classified on device self time per step (per trace without steps) with the noise
// threshold of opdiff.h.
//
// Plain value; pure functions of immutable analyses, safe on any thread.

#include "core/analysis/analysiscache.h"
#include "core/analysis/kernels/kernelclass.h"
#include "core/analysis/pytorch/pytorchoverview.h"
#include "core/analysis/steps.h"
#include "core/compare/opdiff.h"
#include "core/compare/optables.h"
#include "core/compare/overviewcompare.h"
#include "core/compare/stepcompare.h"

#include <array>
#include <memory>
#include <string>
#include <vector>

namespace tracedesk::core::compare {

enum class OperatorMatch : uint8_t { Name, CallPath, Unmatched };
// "name", "call_path", "unmatched".
const char *operatorMatchName(OperatorMatch match);

enum class OperatorGrouping : uint8_t { Name, NameInputShapes, CallPath };
inline constexpr int kOperatorGroupingCount = 3;
// "name", "shapes", "call_path"; display labels "Name", "Name + input shapes", "Call path".
const char *operatorGroupingName(OperatorGrouping grouping);
const char *operatorGroupingLabel(OperatorGrouping grouping);
bool parseOperatorGrouping(std::string_view text, OperatorGrouping *grouping);

// The activities of one kernel name an operator launched on one side.
struct OperatorKernel
{
    std::string name;
    analysis::KernelFamily family = analysis::KernelFamily::Other;
    int64_t count = 0;
    double us = 0;
};

// One kernel family of a matched operator on both sides.
struct FamilyTimes
{
    analysis::KernelFamily family = analysis::KernelFamily::Other;
    int64_t countA = 0;
    int64_t countB = 0;
    double usA = 0;
    double usB = 0;
};

struct OperatorDiffRow
{
    std::string opName;      // A's name (B's for a row only in B)
    std::string opNameB;     // B's name: differs from opName only for a call-path pair
    std::string inputShapes; // the shapes grouping's key, else empty
    std::string callPath;    // enclosing operators, outermost first, " > " between
    OperatorMatch match = OperatorMatch::Unmatched;
    bool inA = false;
    bool inB = false;
    bool annotation = false; // an annotation / Python frame row (operatortree.h), not an op
    int64_t callsA = 0;
    int64_t callsB = 0;
    double hostSelfUsA = 0;
    double hostSelfUsB = 0;
    double deviceSelfUsA = 0;
    double deviceSelfUsB = 0;
    double deviceTotalUsA = 0;
    double deviceTotalUsB = 0;
    double deltaUs = 0;                    // deviceSelfUsB - deviceSelfUsA (whole traces)
    double deltaPercent = 0;               // of deviceSelfUsA; NaN when A has none
    OpChange change = OpChange::Unchanged; // on device self time per step, beyond noise
    std::vector<OperatorKernel> kernelsA;  // by time, descending
    std::vector<OperatorKernel> kernelsB;
    std::vector<FamilyTimes> families; // families on either side, by the larger time

    int64_t kernelCount(bool b) const;
    double kernelUs(bool b) const;
};

// How much of each side the matching covered (operator rows only, annotations left out).
struct OperatorMatchSummary
{
    int operatorsA = 0;
    int operatorsB = 0;
    int byName = 0;
    int byCallPath = 0;
    int onlyA = 0;
    int onlyB = 0;
    double deviceSelfUsA = 0; // all operator rows
    double deviceSelfUsB = 0;
    double matchedDeviceSelfUsA = 0; // rows matched either way
    double matchedDeviceSelfUsB = 0;
};

struct PyTorchComparison
{
    StepComparison steps;                  // categories: the eight breakdown categories
    std::vector<std::string> categoryKeys; // "kernel", ..., "other", parallel to categories
    bool stepsPairedByNumber = false;      // by ProfilerStep number, else by index
    // The paired steps of each side in pair order (StepDb::stepsArePaired), for the alignment.
    std::shared_ptr<const analysis::StepDb> stepDbA;
    std::shared_ptr<const analysis::StepDb> stepDbB;
    std::array<std::vector<OperatorDiffRow>, kOperatorGroupingCount> operators;
    OperatorMatchSummary match; // of the name grouping
    std::vector<analysis::pytorch::PyTorchGpuMetrics> gpusA;
    std::vector<analysis::pytorch::PyTorchGpuMetrics> gpusB;
    std::vector<OverviewFigure> figures;
    OpTables opTablesA; // framework level from the operators, for the op diff
    OpTables opTablesB;

    const std::vector<OperatorDiffRow> &rows(OperatorGrouping g) const
    {
        return operators[size_t(g)];
    }
};

PyTorchComparison comparePyTorch(analysis::AnalysisCache &a, analysis::AnalysisCache &b,
                                 const NoiseThreshold &noise = {});

} // namespace tracedesk::core::compare
