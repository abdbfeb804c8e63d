#pragma once

// Step-time breakdown per step and its summaries (FORMATS.md 2.3, PerGenericStepDetails and
// GenericStepTimeBreakdown), derived from a StepDb. Plain values; pure functions.
// Invariant: for every step, the categories of kGenericCategories sum to stepTimeMs (up to
// rounding), because every EventType maps to exactly one category or to host-to-host time,
// which XProf shows nowhere and which is folded into "All others" here so nothing is lost.

#include "core/analysis/steps.h"

#include <array>
#include <vector>

namespace tracedesk::core::analysis {

struct StepSummary
{
    double average = 0;
    double standardDeviation = 0;   // sample (n - 1)
    double minimum = 0;
    double maximum = 0;
    int count = 0;
};
StepSummary summarize(const std::vector<double> &values);

struct GenericStepDetails
{
    int64_t stepNumber = 0;
    std::string stepName;
    TimePs begin = 0;
    double stepTimeMs = 0;
    double hostWaitInputMs = 0;
    double hostToDeviceMs = 0;
    double outputMs = 0;
    double deviceComputeMs = 0;
    double deviceToDeviceMs = 0;
    double deviceCollectivesMs = 0;
    double hostComputeMs = 0;
    double hostPrepareMs = 0;
    double hostCompileMs = 0;
    double unknownTimeMs = 0;

    double inputMs() const { return hostWaitInputMs + hostToDeviceMs; }
};

struct StepCategory
{
    const char *label;              // XProf's UI label
    double GenericStepDetails::*ms;
};
// In the order XProf stacks them.
extern const std::array<StepCategory, 10> kGenericCategories;

struct GenericStepTimeBreakdown
{
    std::vector<GenericStepDetails> steps;
    StepSummary stepTime;
    StepSummary unknownTime;
    StepSummary hostWaitInput;
    StepSummary hostToDevice;
    StepSummary input;
    StepSummary output;
    StepSummary deviceCompute;
    StepSummary deviceToDevice;
    StepSummary deviceCollectives;
    StepSummary hostCompute;
    StepSummary hostPrepare;
    StepSummary hostCompile;
    StepSummary inputPercent;       // per step 100 x input / step time
};

GenericStepDetails genericStepDetails(const StepInfo &step);
GenericStepTimeBreakdown genericStepTimeBreakdown(const StepDb &db);

} // namespace tracedesk::core::analysis
