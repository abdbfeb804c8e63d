#pragma once

// OperatorStats: the operator view of a Kineto trace (PYTORCH.md §2.6). The operator-node set of
// the OperatorTree (§2.1.6, merged duplicates excluded) over all threads, grouped by name, by name
// and input shapes ("Input Dims" text as written), by name and call stack, and by name, input
// shapes and call stack (the two call-stack groupings keep only nodes with a non-empty stack).
//
// Rows are the operator nodes and, marked `annotation`, the Annotation nodes (annotations and
// Python frames that launched GPU work under no operator, operatortree.h), so every device
// microsecond a launch explains has a row. `deviceUsByRule` says how much each attribution rule
// attached, `deviceUsWithoutLaunch` what no recorded launch explains.
//
// Per row: node count and the sums of host self/total and device self/total, in microseconds
// (unrounded). Tensor Cores eligible is the flag of the row's first member (in tree order);
// the tensor-core percentages are 100·Σ tc self / Σ device self and 100·Σ tc total / Σ device
// total, 0 when the denominator is 0. Rows are sorted by device self time descending when the
// trace has GPU activities (`hasDeviceColumns`), else by host self time, ties by key.
//
// Plain value; immutable once built, safe to share across threads.

#include "core/analysis/analysiscache.h"
#include "core/analysis/pytorch/graphcapture.h"
#include "core/analysis/pytorch/operatortree.h"

#include <memory>
#include <string>
#include <vector>

namespace tracedesk::core::analysis::pytorch {

enum class OperatorGrouping : uint8_t {
    Name,
    NameInputShapes,
    NameCallStack,
    NameInputShapesCallStack
};

struct OperatorRow
{
    std::string opName;
    std::string inputShapes; // empty unless grouped by input shapes
    std::string callStack;   // empty unless grouped by call stack
    int64_t calls = 0;
    double hostSelfUs = 0;
    double hostTotalUs = 0;
    double deviceSelfUs = 0;
    double deviceTotalUs = 0;
    bool tensorCoreEligible = false;
    bool annotation = false; // an annotation / Python frame, not an operator
    double tensorCoreSelfPercent = 0;
    double tensorCoreTotalPercent = 0;
    std::vector<uint32_t> nodes; // OperatorTree nodes of the group, in tree order
};

// An operator that recorded graph nodes at capture time, with the GPU time of the replayed
// kernels matched to it (graphcapture.h).
struct CapturedOperatorRow
{
    std::string opName;
    int64_t activities = 0;
    double deviceUs = 0;
};

struct OperatorStats
{
    bool hasDeviceColumns = false; // the trace has kernels, memcpy or memset
    std::array<double, kLaunchRuleCount> deviceUsByRule{}; // GPU time each rule attached
    double deviceUsWithoutLaunch = 0;                     // GPU time with no recorded launch
    bool hasGraphCapture = false;
    std::vector<CapturedOperatorRow> captured; // by device time, when a capture is given
    std::vector<OperatorRow> byName;
    std::vector<OperatorRow> byNameInputShapes;
    std::vector<OperatorRow> byNameCallStack;
    std::vector<OperatorRow> byNameInputShapesCallStack;

    const std::vector<OperatorRow> &rows(OperatorGrouping grouping) const;
};

OperatorStats buildOperatorStats(const Trace &trace, const OperatorTree &tree);
std::vector<CapturedOperatorRow> capturedOperators(const KinetoIndex &index,
                                                   const GraphCaptureAttribution &capture);
std::shared_ptr<const OperatorStats> operatorStats(AnalysisCache &cache);

} // namespace tracedesk::core::analysis::pytorch
