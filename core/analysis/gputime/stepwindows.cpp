#include "core/analysis/gputime/stepwindows.h"

#include "core/analysis/framework.h"
#include "core/analysis/pytorch/pytorchsteps.h"
#include "core/analysis/steps.h"

#include <algorithm>

namespace tracedesk::core::analysis::gputime {

namespace {

// XProf's steps, for a profile its step rules read (not one whose views read roles: a Kineto
// trace without ProfilerStep has no XProf steps to find).
std::vector<TimeWindow> xprofStepWindows(AnalysisCache &cache)
{
    std::vector<TimeWindow> out;
    if (readsGpuWorkByRole(cache.trace()))
        return out;
    for (const StepInfo &s : stepDb(cache)->steps) {
        if (s.duration > 0)
            out.push_back({s.begin, s.begin + s.duration, "Step " + s.name});
    }
    std::stable_sort(out.begin(), out.end(),
                     [](const TimeWindow &a, const TimeWindow &b) { return a.start < b.start; });
    return out;
}

// Numbered step ranges (pytorch/numberedsteps.h), each its host span under its own name.
std::vector<TimeWindow> numberedRangeWindows(AnalysisCache &cache)
{
    std::vector<TimeWindow> out;
    const auto steps = pytorch::pytorchSteps(cache);
    if (!steps->fromNumberedRanges)
        return out;
    for (const pytorch::PyTorchStep &s : steps->steps)
        out.push_back({s.hostStart, s.hostEnd, s.iterationLabel});
    return out;
}

} // namespace

std::vector<TimeWindow> stepWindows(AnalysisCache &cache, const pytorch::KinetoIndex &index)
{
    std::vector<TimeWindow> steps = profilerStepWindows(cache.trace(), index);
    if (steps.empty())
        steps = numberedRangeWindows(cache);
    return steps.empty() ? xprofStepWindows(cache) : steps;
}

std::optional<TimeWindow> stepWindow(AnalysisCache &cache, const pytorch::KinetoIndex &index,
                                     int64_t step)
{
    if (auto window = profilerStepWindow(cache.trace(), index, step))
        return window;
    if (const auto steps = pytorch::pytorchSteps(cache); steps->fromNumberedRanges) {
        for (const pytorch::PyTorchStep &s : steps->steps) {
            if (s.name == std::to_string(step))
                return TimeWindow{s.hostStart, s.hostEnd, s.iterationLabel};
        }
    }
    const std::string wanted = "Step " + std::to_string(step);
    for (const TimeWindow &w : xprofStepWindows(cache)) {
        if (w.name == wanted)
            return w;
    }
    return std::nullopt;
}

} // namespace tracedesk::core::analysis::gputime
