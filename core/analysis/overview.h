#pragma once

// Overview page (FORMATS.md 2.6): performance summary, per-step chart data, top device ops,
// run environment, recommendation and diagnostics, assembled from the StepDb, the input
// pipeline analysis and the op metrics (opmetrics.h).
//
// Plain value, immutable once built. Invariants: topDeviceOps holds at most 10 ops sorted by
// self time; fractions are in [0, 1]; percentages are 0 when their denominator is 0.

#include "core/analysis/inputpipeline.h"
#include "core/analysis/opmetrics.h"

#include <memory>
#include <string>
#include <vector>

namespace tracedesk::core::analysis {

struct OverviewTopOp
{
    std::string name;
    std::string category;
    int64_t occurrences = 0;
    TimePs selfTimePs = 0;
    double selfTimeFraction = 0;
    double cumulativeTimeFraction = 0;
    double flopRate = 0;                    // GFLOP/s
    bool isOpTensorCoreEligible = false;
    bool isOpUsingTensorCore = false;
};

// Program-execution latency of an inference profile without steps: XLA module runs on the
// devices, as percentiles (ms).
struct InferenceLatency
{
    bool available = false;
    std::string source;                     // what the latencies measure
    int64_t count = 0;
    double averageMs = 0;
    std::vector<std::pair<double, double>> percentiles;   // (percentile, ms)
};

struct OverviewPage
{
    StepHardware hardware = StepHardware::None;
    std::shared_ptr<const InputPipelineAnalysis> input;   // steps, breakdown, bottleneck
    int stepCount = 0;
    double averageStepTimeMs = 0;
    double stepTimeStdDevMs = 0;
    std::vector<std::pair<std::string, double>> averageBreakdownMs;   // category, avg ms

    bool hasPeaks = false;                  // peak FLOP/s and bandwidth known
    double deviceGflopsPerSecond = 0;       // achieved, over device op time
    double deviceGbytesPerSecond = 0;
    double flopRateUtilizationPercent = 0;  // of the peak FLOP/s
    double memoryBwUtilizationPercent = 0;  // of the peak HBM bandwidth
    double deviceDutyCyclePercent = 0;      // TPU
    double deviceIdleTimePercent = 0;
    double hostIdleTimePercent = 0;
    double deviceCompute16bitPercent = 0;
    double deviceCompute32bitPercent = 0;
    double hostTfOpPercent = 0;             // share of op counts placed on the host
    double deviceTfOpPercent = 0;
    double hostOpTimeEagerPercent = 0;
    double deviceOpTimeEagerPercent = 0;

    std::vector<OverviewTopOp> topDeviceOps;
    RunEnvironment runEnvironment;
    PerfEnv perfEnv;

    std::string bottleneck;                 // input classification
    std::string statement;                  // input statement
    std::string outputStatement;
    std::string kernelLaunchStatement;
    std::string allOtherStatement;
    std::string deviceCollectivesStatement;
    std::string precisionStatement;
    std::string eagerStatement;
    std::string tpuStatement;               // TPU idle / all-reduce remarks
    std::vector<std::string> hostTips;
    std::vector<std::string> deviceTips;
    std::vector<std::string> documentationTips;

    InferenceLatency inferenceLatency;
    Diagnostics diagnostics;
};

OverviewPage computeOverviewPage(const Trace &trace, const StepDb &steps,
                                 std::shared_ptr<const InputPipelineAnalysis> input,
                                 const OpStats &ops);
std::shared_ptr<const OverviewPage> overviewPage(AnalysisCache &cache);

// Device ops rolled up to framework ops (provenance), IDLE dropped, top `limit` by self time.
std::vector<OverviewTopOp> topDeviceOps(const OpStats &ops, size_t limit = 10);
InferenceLatency inferenceLatency(const Trace &trace);

} // namespace tracedesk::core::analysis
