#include "core/compare/stepcompare.h"

#include "core/compare/alignment.h"

#include <cmath>
#include <limits>

namespace tracedesk::core::compare {

namespace {

constexpr double kPsPerMs = 1e9;

const char *const kTpuCategories[] = {"TensorCore compute", "TensorCore idle", "Infeed",
                                      "Outfeed", "All-reduce", "Host transfer"};

double averageOf(const std::vector<analysis::StepInfo> &steps)
{
    if (steps.empty())
        return 0;
    double sum = 0;
    for (const analysis::StepInfo &s : steps)
        sum += double(s.duration) / kPsPerMs;
    return sum / double(steps.size());
}

std::vector<double> averageCategories(analysis::StepHardware hardware,
                                      const std::vector<analysis::StepInfo> &steps, size_t n)
{
    std::vector<double> sum(n, 0.0);
    for (const analysis::StepInfo &s : steps) {
        const std::vector<double> v = stepCategoryValues(hardware, s);
        for (size_t i = 0; i < n && i < v.size(); ++i)
            sum[i] += v[i];
    }
    if (!steps.empty()) {
        for (double &x : sum)
            x /= double(steps.size());
    }
    return sum;
}

} // namespace

std::vector<std::string> stepCategoryLabels(analysis::StepHardware hardware)
{
    std::vector<std::string> labels;
    if (hardware == analysis::StepHardware::Tpu) {
        for (const char *c : kTpuCategories)
            labels.emplace_back(c);
    } else {
        for (const analysis::StepCategory &c : analysis::kGenericCategories)
            labels.emplace_back(c.label);
    }
    return labels;
}

std::vector<double> stepCategoryValues(analysis::StepHardware hardware,
                                       const analysis::StepInfo &step)
{
    if (hardware == analysis::StepHardware::Tpu) {
        const analysis::TpuStepDetails &t = *step.tpu;
        return {t.tcComputeMs, t.tcIdleMs, t.tcInfeedMs, t.tcOutfeedMs,
                t.allReduceComputeMs + t.allReduceSyncMs, t.hostTransferMs};
    }
    const analysis::GenericStepDetails details = analysis::genericStepDetails(step);
    std::vector<double> values;
    for (const analysis::StepCategory &c : analysis::kGenericCategories)
        values.push_back(details.*c.ms);
    return values;
}

StepComparison compareSteps(const Trace &a, const analysis::StepDb &stepsA, const Trace &b,
                            const analysis::StepDb &stepsB)
{
    StepComparison out;
    out.stepCountA = int(stepsA.steps.size());
    out.stepCountB = int(stepsB.steps.size());
    // One label set for both sides: A's kind of hardware unless A has no steps.
    const analysis::StepHardware hardware =
        !stepsA.steps.empty() ? stepsA.hardware : stepsB.hardware;
    out.categories = stepCategoryLabels(hardware);
    const size_t n = out.categories.size();
    out.averageMsA = averageOf(stepsA.steps);
    out.averageMsB = averageOf(stepsB.steps);
    out.deltaPercent = out.hasSteps() && out.averageMsA > 0
                           ? 100.0 * (out.averageMsB - out.averageMsA) / out.averageMsA
                           : std::numeric_limits<double>::quiet_NaN();
    out.averageCategoryMsA = averageCategories(hardware, stepsA.steps, n);
    out.averageCategoryMsB = averageCategories(hardware, stepsB.steps, n);

    const int pairs = stepPairCount(a, stepsA, b, stepsB);
    const int firstA = firstCompleteStep(a, stepsA);
    const int firstB = firstCompleteStep(b, stepsB);
    for (int k = 0; k < pairs; ++k) {
        const analysis::StepInfo &sa = stepsA.steps[size_t(firstA + k)];
        const analysis::StepInfo &sb = stepsB.steps[size_t(firstB + k)];
        StepPair p;
        p.index = k;
        p.nameA = sa.name;
        p.nameB = sb.name;
        p.beginA = sa.begin;
        p.beginB = sb.begin;
        p.msA = double(sa.duration) / kPsPerMs;
        p.msB = double(sb.duration) / kPsPerMs;
        p.categoriesA = stepCategoryValues(hardware, sa);
        p.categoriesB = stepCategoryValues(hardware, sb);
        p.categoriesA.resize(n, 0.0);
        p.categoriesB.resize(n, 0.0);
        out.pairs.push_back(std::move(p));
    }
    return out;
}

} // namespace tracedesk::core::compare
