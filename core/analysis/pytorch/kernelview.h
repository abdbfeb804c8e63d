#pragma once

// KernelView: the kernel view of a Kineto trace (PYTORCH.md §2.7).
//
// `byName`: every Kernel-role slice of the trace counted once, correlated or not, grouped by
// kernel name. `byProperties`: the kernels reachable from the operator tree (their runtime sits
// under a node or a root, or they hang on the orphan root), grouped by name, launching operator,
// grid, block, registers per thread and shared memory (missing as 0).
//
// Per group: calls, total / mean / max / min duration (µs), and duration-weighted means of blocks
// per SM and est. achieved occupancy % where a missing value counts as 0 (blocks per SM "inf"
// is missing too; a negative occupancy is unknown, so missing); both are 0 when the group's total
// duration is 0. `hasBlocksPerSm` / `hasOccupancy` say whether the columns exist (some kernel has
// blocks per SM > 0 / occupancy >= 0). The launching operator is the name of the tree node
// holding the kernel's runtime: "CallTreeRoot" for a root (and for orphans), empty if unknown.
// In `byName`, `operatorName` is the launching operator with the most time in that group.
// `byNameOperator` groups by kernel name and launching node name, the key the CLI's report and
// the Kernel Stats panel both use; there a kernel whose launch the profiler did not record is
// "(no recorded launch)" rather than the plugin's CallTreeRoot. Every row carries its family and Tensor / Matrix Core flag
// from the shared classification (core/analysis/kernels/kernelclass.h); the tensor-core share
// `tensorCoreKernelUs / totalKernelUs` is over exactly the kernels those flags mark.
// `kernelUsByRule` says how much kernel time each attribution rule of operatortree.h attached
// and `kernelUsWithoutLaunch` how much no recorded launch explains. With a graph capture
// (graphcapture.h), a replayed kernel also names the operator that recorded it at capture
// (`captureOperator`, part of the byNameOperator key) and `capturedKernelUs` sums them.
// Rows are sorted by total time descending, ties by name.
//
// Plain value; immutable once built, safe to share across threads.

#include "core/analysis/analysiscache.h"
#include "core/analysis/kernels/kernelclass.h"
#include "core/analysis/pytorch/graphcapture.h"
#include "core/analysis/pytorch/operatortree.h"

#include <memory>
#include <string>
#include <vector>

namespace tracedesk::core::analysis::pytorch {

inline constexpr std::string_view kNoRecordedLaunchName = "(no recorded launch)";

struct KernelTimes
{
    int64_t calls = 0;
    double totalUs = 0;
    double meanUs = 0;
    double maxUs = 0;
    double minUs = 0;
    double meanBlocksPerSm = 0;      // duration-weighted, missing as 0
    double meanOccupancyPercent = 0; // duration-weighted, missing as 0
};

struct KernelNameRow
{
    std::string name;
    KernelFamily family = KernelFamily::Other;
    bool tensorCoresUsed = false;
    std::string operatorName; // the launching operator with the most time in this group
    std::string captureOperator; // byNameOperator: the operator that recorded it at capture
    KernelTimes times;
};

struct KernelPropertiesRow
{
    std::string name;
    std::string operatorName; // "CallTreeRoot" for root-level launches
    int64_t grid[3] = {0, 0, 0};
    int64_t block[3] = {0, 0, 0};
    int64_t registersPerThread = 0;
    int64_t sharedMemoryBytes = 0;
    KernelFamily family = KernelFamily::Other;
    bool tensorCoresUsed = false;
    bool operatorTensorCoreEligible = false;
    KernelTimes times;
};

struct KernelView
{
    bool hasBlocksPerSm = false;
    bool hasOccupancy = false;
    int64_t kernelCount = 0;       // Kernel-role slices
    double totalKernelUs = 0;      // their summed duration
    double tensorCoreKernelUs = 0; // of which tensor-core kernels
    std::vector<KernelNameRow> byName;
    std::vector<KernelNameRow> byNameOperator;
    std::vector<KernelPropertiesRow> byProperties;
    std::array<double, kKernelFamilyCount> familyUs{}; // kernel time per family
    std::array<double, kLaunchRuleCount> kernelUsByRule{};
    double kernelUsWithoutLaunch = 0;
    bool hasGraphCapture = false;
    double capturedKernelUs = 0; // replayed kernel time with a capture operator
};

KernelView buildKernelView(const Trace &trace, const OperatorTree &tree,
                           const GraphCaptureAttribution *capture = nullptr);
std::shared_ptr<const KernelView> kernelView(AnalysisCache &cache);

} // namespace tracedesk::core::analysis::pytorch
