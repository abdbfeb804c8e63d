#pragma once

// StepComparison: the step times of two traces side by side, per step and on average, with the
// step-time breakdown categories (GPU/CPU: XProf's generic categories; TPU: TensorCore compute,
// idle, infeed, outfeed, all-reduce and host transfer). Steps are paired in order from each
// trace's first complete step (see alignment.h), which is what "step N of A against step N of
// B" means when the runs number their steps differently. Averages are over every step of a
// trace, as the overview reports them.
//
// Plain value; pure function. Invariant: every categoriesA/B vector has categories.size()
// entries.

#include "core/analysis/stepbreakdown.h"

#include <string>
#include <vector>

namespace tracedesk::core::compare {

struct StepPair
{
    int index = 0;                  // pair number
    std::string nameA;
    std::string nameB;
    TimePs beginA = 0;
    TimePs beginB = 0;
    double msA = 0;
    double msB = 0;
    std::vector<double> categoriesA;   // ms
    std::vector<double> categoriesB;
};

struct StepComparison
{
    int stepCountA = 0;
    int stepCountB = 0;
    std::vector<std::string> categories;
    std::vector<StepPair> pairs;
    double averageMsA = 0;
    double averageMsB = 0;
    double deltaPercent = 0;        // of averageMsA; NaN when a side has no steps
    std::vector<double> averageCategoryMsA;
    std::vector<double> averageCategoryMsB;

    bool hasSteps() const { return stepCountA > 0 && stepCountB > 0; }
};

StepComparison compareSteps(const Trace &a, const analysis::StepDb &stepsA, const Trace &b,
                            const analysis::StepDb &stepsB);

// The breakdown labels for a hardware kind, and one step's values in that order (ms).
std::vector<std::string> stepCategoryLabels(analysis::StepHardware hardware);
std::vector<double> stepCategoryValues(analysis::StepHardware hardware,
                                       const analysis::StepInfo &step);

} // namespace tracedesk::core::compare
