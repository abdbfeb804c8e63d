#pragma once

// Bottleneck classification and recommendation text (FORMATS.md 2.5).
//
// Totals are summed over the kept steps and every percent is 100 x category / step time. The
// classification is a pure function of those totals, so each threshold can be pinned by a test.
// Statements print percentages with one decimal, as XProf does.

#include "core/analysis/steps.h"

#include <string>

namespace tracedesk::core::analysis {

// Thresholds, in percent of step time.
inline constexpr double kHighlyInputBoundPercent = 20;
inline constexpr double kModeratelyInputBoundPercent = 5;
inline constexpr double kAllOtherInputHintPercent = 3;
inline constexpr double kHighlyOutputBoundPercent = 20;
inline constexpr double kModeratelyOutputBoundPercent = 5;
inline constexpr double kHighKernelLaunchPercent = 15;
inline constexpr double kModerateKernelLaunchPercent = 3;
inline constexpr double kHighAllOtherPercent = 15;
inline constexpr double kModerateAllOtherPercent = 3;
inline constexpr double kHighCollectivesPercent = 15;
inline constexpr double kModerateCollectivesPercent = 3;
inline constexpr double kTpuIdleReportPercent = 3;
inline constexpr double kTpuAllReduceReportPercent = 6;

// Totals in any one unit (the generic path sums picoseconds, so thresholds compare exactly).
struct BottleneckTotals
{
    double step = 0;
    double input = 0;          // host wait input + host to device (TPU: infeed)
    double output = 0;         // device to host (TPU: outfeed)
    double compute = 0;
    double collectives = 0;
    double kernelLaunch = 0;
    double allOther = 0;
    double idle = 0;           // TPU: TensorCore idle
    double allReduce = 0;      // TPU: all-reduce compute + sync
    bool tpu = false;
    bool tfDataInUse = false;    // demanded/advanced file read or preprocessing time > 0
};

struct BottleneckAnalysis
{
    double inputPercent = 0;
    double outputPercent = 0;
    double idlePercent = 0;
    double computePercent = 0;
    double collectivesPercent = 0;
    double kernelLaunchPercent = 0;
    double allOtherPercent = 0;
    double tcIdlePercent = 0;            // TPU
    double allReducePercent = 0;         // TPU
    std::string inputClassification;     // host, both, device, unknown
    std::string inputStatement;
    std::string outputClassification;    // host, both, device
    std::string outputStatement;
    std::string kernelLaunchClassification;   // high, moderate, no
    std::string kernelLaunchStatement;
    std::string allOtherClassification;
    std::string allOtherStatement;
    std::string deviceCollectivesClassification;
    std::string deviceCollectivesStatement;
    std::string tcIdleStatement;         // TPU, empty when below the threshold
    std::string allReduceStatement;      // TPU
    std::string summaryNextStep;
};

BottleneckTotals bottleneckTotals(const StepDb &db);
BottleneckAnalysis classifyBottleneck(const BottleneckTotals &totals);
// One decimal, as XProf's OneDigit.
std::string oneDigit(double value);

} // namespace tracedesk::core::analysis
