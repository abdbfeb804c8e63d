#pragma once

// Input pipeline analysis (FORMATS.md 2.7): the device side (step times, input share, the
// bottleneck classification) from the StepDb, and the host side (input op statistics and the
// InputTimeBreakdown) from the host op metrics DB.
//
// Plain value, immutable once built. Invariants: inputOps are sorted by self time descending and
// their selfTimePercent values sum to 100 (or all are 0); the four scaled file-read /
// preprocessing / unclassified figures of the breakdown sum to the non-enqueue time.

#include "core/analysis/bottleneck.h"
#include "core/analysis/opmetrics.h"
#include "core/analysis/stepbreakdown.h"
#include "core/analysis/tpubreakdown.h"

#include <memory>
#include <string>
#include <vector>

namespace tracedesk::core::analysis {

// InputOpDetails.category values.
inline constexpr const char *kInputEnqueue = "Enqueue";
inline constexpr const char *kInputDemandedFileRead = "Demanded file read";
inline constexpr const char *kInputAdvancedFileRead = "Advanced file read";
inline constexpr const char *kInputPreprocessing = "Preprocessing";
inline constexpr const char *kInputUnknown = "Unknown";

struct InputOpDetails
{
    std::string opName;
    int64_t count = 0;
    double timeMs = 0;
    double timePercent = 0;
    double selfTimeMs = 0;
    double selfTimePercent = 0;
    std::string category;
};

struct InputTimeBreakdown
{
    double demandedFileReadUs = 0;
    double advancedFileReadUs = 0;
    double preprocessingUs = 0;
    double enqueueUs = 0;
    double unclassifiedNonEnqueueUs = 0;
};

struct InputPipelineAnalysis
{
    StepHardware hardware = StepHardware::None;
    bool tpu = false;
    GenericStepTimeBreakdown generic;          // GPU/CPU
    TpuStepTimeBreakdown tpuSteps;             // TPU
    StepSummary stepTimeSummary;
    StepSummary inputPercentSummary;
    BottleneckAnalysis bottleneck;
    InputTimeBreakdown inputTimeBreakdown;
    std::vector<InputOpDetails> inputOps;
    std::vector<std::string> recommendationDetails;
    Diagnostics diagnostics;

    bool inputBound() const
    {
        return bottleneck.inputClassification == "host" || bottleneck.inputClassification == "both";
    }
};

// The category of a host op when it is an input op (empty otherwise).
std::string inputOpCategory(const OpMetrics &op);
std::vector<InputOpDetails> inputOpDetails(const OpMetricsDb &host);
InputTimeBreakdown inputTimeBreakdown(const std::vector<InputOpDetails> &ops,
                                      double averageHostToDeviceMs, double averageStepMs);

InputPipelineAnalysis computeInputPipeline(const StepDb &steps, const OpMetricsDb &host);
std::shared_ptr<const InputPipelineAnalysis> inputPipeline(AnalysisCache &cache);

} // namespace tracedesk::core::analysis
