#include "core/compare/alignment.h"

#include <algorithm>

namespace tracedesk::core::compare {

int firstCompleteStep(const Trace &trace, const analysis::StepDb &steps)
{
    if (steps.steps.empty())
        return -1;
    if (steps.stepsArePaired)
        return 0;
    for (size_t i = 0; i < steps.steps.size(); ++i) {
        const analysis::StepInfo &s = steps.steps[i];
        if (s.begin > trace.begin && s.begin + s.duration < trace.end)
            return int(i);
    }
    return 0;
}

int stepPairCount(const Trace &a, const analysis::StepDb &stepsA, const Trace &b,
                  const analysis::StepDb &stepsB)
{
    if (stepsA.steps.empty() || stepsB.steps.empty())
        return 0;
    return int(std::min(stepsA.steps.size() - size_t(firstCompleteStep(a, stepsA)),
                        stepsB.steps.size() - size_t(firstCompleteStep(b, stepsB))));
}

TraceAlignment alignTraces(const Trace &a, const analysis::StepDb &stepsA, const Trace &b,
                           const analysis::StepDb &stepsB, std::optional<int> step)
{
    TraceAlignment alignment;
    alignment.anchorA = a.begin;
    alignment.anchorB = b.begin;
    if (stepsA.steps.empty() || stepsB.steps.empty())
        return alignment;
    const int pair =
        std::clamp(step.value_or(0), 0, std::max(stepPairCount(a, stepsA, b, stepsB) - 1, 0));
    alignment.stepA = firstCompleteStep(a, stepsA) + pair;
    alignment.stepB = firstCompleteStep(b, stepsB) + pair;
    alignment.byStep = true;
    alignment.anchorA = stepsA.steps[size_t(alignment.stepA)].begin;
    alignment.anchorB = stepsB.steps[size_t(alignment.stepB)].begin;
    return alignment;
}

} // namespace tracedesk::core::compare
