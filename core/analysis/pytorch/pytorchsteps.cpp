#include "core/analysis/pytorch/pytorchsteps.h"

#include "core/analysis/pytorch/numberedsteps.h"

#include <algorithm>
#include <limits>
#include <numeric>
#include <tuple>
#include <unordered_map>

namespace tracedesk::core::analysis::pytorch {

namespace {

bool onHostPlane(const Trace &trace, const KinetoNode &node)
{
    return trace.planes[trace.tracks[node.ref.track].plane].kind == PlaneKind::Host;
}

// "ProfilerStep#0042" -> "42": the plugin names a step by int(N).
std::string stepNumber(std::string_view markerName)
{
    std::string_view digits = markerName.substr(markerName.find('#') + 1);
    while (digits.size() > 1 && digits.front() == '0')
        digits.remove_prefix(1);
    return std::string(digits);
}

std::vector<PyTorchStep> hostSteps(const Trace &trace, const KinetoIndex &index)
{
    std::vector<PyTorchStep> steps;
    for (const KinetoNode &node : index.nodes) {
        if (!onHostPlane(trace, node) || !isProfilerStepName(trace.name(node.ref)))
            continue;
        PyTorchStep step;
        step.name = stepNumber(trace.name(node.ref));
        step.hostStart = step.start = node.start;
        step.hostEnd = step.end = node.end;
        step.marker = node.ref;
        steps.push_back(std::move(step));
    }
    std::stable_sort(steps.begin(), steps.end(), [](const PyTorchStep &a, const PyTorchStep &b) {
        return std::tuple(a.hostStart, a.hostEnd) < std::tuple(b.hostStart, b.hostEnd);
    });
    return steps;
}

// Step "0" over the CPU ops when the trace has no step marker (empty when there is no CPU op).
std::vector<PyTorchStep> fallbackStep(const Trace &trace, const KinetoIndex &index,
                                      bool *fromRuntimeCalls)
{
    TimePs lo = std::numeric_limits<TimePs>::max();
    TimePs hi = std::numeric_limits<TimePs>::min();
    for (const KinetoNode &node : index.nodes) {
        if (node.role != SliceRole::CpuOp || !onHostPlane(trace, node))
            continue;
        lo = std::min(lo, node.start);
        hi = std::max(hi, node.end);
    }
    *fromRuntimeCalls = lo > hi;
    if (*fromRuntimeCalls) {
        for (const KinetoRuntime &rt : index.runtimes) {
            lo = std::min(lo, rt.start);
            hi = std::max(hi, rt.end);
        }
    }
    if (lo > hi)
        return {};
    PyTorchStep step;
    step.name = "0";
    step.hostStart = step.start = lo;
    step.hostEnd = step.end = hi;
    return {step};
}

// Each user annotation on a host thread, with whether it is top-level there (enclosed by no
// other operator or annotation), in each thread's node order.
template<typename Visit>
void forEachHostAnnotation(const Trace &trace, const KinetoIndex &index, Visit &&visit)
{
    for (const KinetoThread &thread : index.threads) {
        std::vector<TimePs> openEnds; // operators and annotations still open
        for (uint32_t n = thread.nodeBegin; n < thread.nodeEnd; ++n) {
            const KinetoNode &node = index.nodes[n];
            if (node.role == SliceRole::PythonFunction || !onHostPlane(trace, node))
                continue;
            while (!openEnds.empty() && openEnds.back() <= node.start)
                openEnds.pop_back();
            const bool top = openEnds.empty();
            openEnds.push_back(node.end);
            if (node.role == SliceRole::UserAnnotation)
                visit(node, top);
        }
    }
}

// Numbered step ranges (numberedsteps.h) as steps, named by their numbers, in start order:
// the top-level user annotations on host threads whose names are one step word and a number,
// at least two of them; of several words, the one with the most time. Nested repeats of the
// word (a range inside the previous one) are not steps of their own.
std::vector<PyTorchStep> numberedSteps(const Trace &trace, const KinetoIndex &index,
                                       std::string *word)
{
    struct Found
    {
        const KinetoNode *node;
        int64_t number;
    };
    std::unordered_map<std::string, std::vector<Found>> byWord;
    forEachHostAnnotation(trace, index, [&](const KinetoNode &node, bool top) {
        if (!top)
            return;
        if (auto parsed = parseNumberedStepName(trace.name(node.ref)))
            byWord[parsed->word].push_back({&node, parsed->number});
    });
    const std::vector<Found> *best = nullptr;
    TimePs bestTime = 0;
    for (const auto &[w, found] : byWord) {
        if (found.size() < 2)
            continue;
        TimePs t = 0;
        for (const Found &f : found)
            t += f.node->end - f.node->start;
        if (!best || t > bestTime || (t == bestTime && w < *word)) {
            best = &found;
            bestTime = t;
            *word = w;
        }
    }
    if (!best)
        return {};
    std::vector<Found> chosen = *best;
    std::stable_sort(chosen.begin(), chosen.end(), [](const Found &a, const Found &b) {
        return std::tuple(a.node->start, -a.node->end) < std::tuple(b.node->start, -b.node->end);
    });
    std::vector<PyTorchStep> steps;
    TimePs coveredUntil = std::numeric_limits<TimePs>::min();
    for (const Found &f : chosen) {
        if (f.node->end <= coveredUntil)
            continue;
        coveredUntil = f.node->end;
        PyTorchStep step;
        step.name = std::to_string(f.number);
        step.hostStart = step.start = f.node->start;
        step.hostEnd = step.end = f.node->end;
        step.marker = f.node->ref;
        step.iterationLabel = std::string(trace.name(f.node->ref));
        steps.push_back(std::move(step));
    }
    return steps;
}

// Serving-engine iterations (servingiterations.h) as steps, in start order: a listed engine's
// annotations (SGLang's over vLLM's), else the top-level user annotation that repeats.
std::vector<PyTorchStep> iterationSteps(const Trace &trace, const KinetoIndex &index,
                                        IterationEngine *engine)
{
    std::vector<std::pair<const KinetoNode *, IterationName>> listed[2];
    // Per name, the top-level (depth-0) user annotations of any host thread.
    std::unordered_map<StringId, std::vector<const KinetoNode *>> topLevel;
    forEachHostAnnotation(trace, index, [&](const KinetoNode &node, bool top) {
        const std::string_view name = trace.name(node.ref);
        if (auto it = parseIterationName(name))
            listed[it->engine == IterationEngine::SGLang ? 0 : 1].push_back({&node, *it});
        else if (top && !isProfilerStepName(name))
            topLevel[trace.kind(node.ref).name].push_back(&node);
    });
    std::vector<std::pair<const KinetoNode *, IterationName>> chosen;
    if (!listed[0].empty()) {
        chosen = std::move(listed[0]);
        *engine = IterationEngine::SGLang;
    } else if (!listed[1].empty()) {
        chosen = std::move(listed[1]);
        *engine = IterationEngine::Vllm;
    } else {
        const std::vector<const KinetoNode *> *best = nullptr;
        TimePs bestTime = 0;
        for (const auto &[name, nodes] : topLevel) {
            if (nodes.size() < 2)
                continue;
            TimePs t = 0;
            for (const KinetoNode *node : nodes)
                t += node->end - node->start;
            if (!best || t > bestTime || (t == bestTime && nodes.size() > best->size())) {
                best = &nodes;
                bestTime = t;
            }
        }
        if (!best)
            return {};
        for (const KinetoNode *node : *best)
            chosen.push_back({node, IterationName{}});
        *engine = IterationEngine::Repeated;
    }
    std::stable_sort(chosen.begin(), chosen.end(), [](const auto &a, const auto &b) {
        return std::tuple(a.first->start, -a.first->end) <
               std::tuple(b.first->start, -b.first->end);
    });
    std::vector<PyTorchStep> steps;
    TimePs coveredUntil = std::numeric_limits<TimePs>::min();
    for (const auto &[node, it] : chosen) {
        if (node->end <= coveredUntil)
            continue; // nested in the previous iteration of the same engine
        coveredUntil = node->end;
        PyTorchStep step;
        step.name = std::to_string(steps.size());
        step.hostStart = step.start = node->start;
        step.hostEnd = step.end = node->end;
        step.marker = node->ref;
        step.iteration = it;
        step.iterationLabel = std::string(trace.name(node->ref));
        steps.push_back(std::move(step));
    }
    return steps;
}

// Step 1 of the design note: GPU work of the runtimes lying fully inside each step. Marks the
// activities it matched in `matched`.
void matchDeviceWork(const KinetoIndex &index, std::vector<PyTorchStep> &steps,
                     std::vector<bool> &matched)
{
    std::vector<uint32_t> order(index.runtimes.size());
    std::iota(order.begin(), order.end(), 0u);
    std::stable_sort(order.begin(), order.end(), [&](uint32_t a, uint32_t b) {
        return index.runtimes[a].start < index.runtimes[b].start;
    });
    size_t s = 0;
    size_t r = 0;
    while (s < steps.size() && r < order.size()) {
        PyTorchStep &step = steps[s];
        const KinetoRuntime &rt = index.runtimes[order[r]];
        if (rt.start < step.hostStart) {
            ++r; // before the step or crossing its start edge
        } else if (rt.end <= step.hostEnd) {
            for (uint32_t a : index.activitiesOf(order[r])) {
                const KinetoActivity &act = index.activities[a];
                if (step.matchedActivities == 0) {
                    step.deviceStart = act.start;
                    step.deviceEnd = act.end;
                } else {
                    step.deviceStart = std::min(step.deviceStart, act.start);
                    step.deviceEnd = std::max(step.deviceEnd, act.end);
                }
                ++step.matchedActivities;
                matched[a] = true;
            }
            ++r;
        } else if (rt.start < step.hostEnd) {
            ++r; // crosses the step's end edge
        } else {
            ++s; // behind this step: try it against the next one
        }
    }
}

} // namespace

const char *stepsSourceName(const PyTorchSteps &steps)
{
    if (steps.steps.empty())
        return "none";
    if (steps.fromMarkers)
        return "profiler_step";
    if (steps.fromNumberedRanges)
        return "numbered_ranges";
    if (steps.fromIterations)
        return "serving_iterations";
    return steps.fromRuntimeCalls ? "runtime_calls" : "cpu_operators";
}

PyTorchSteps computePyTorchSteps(const Trace &trace, const KinetoIndex &index)
{
    PyTorchSteps result;
    std::vector<PyTorchStep> steps = hostSteps(trace, index);
    result.hostStepCount = uint32_t(steps.size());
    result.fromMarkers = !steps.empty();
    if (steps.empty()) {
        steps = numberedSteps(trace, index, &result.numberedWord);
        result.fromNumberedRanges = !steps.empty();
    }
    if (steps.empty()) {
        steps = iterationSteps(trace, index, &result.iterationEngine);
        result.fromIterations = !steps.empty();
    }
    if (steps.empty())
        steps = fallbackStep(trace, index, &result.fromRuntimeCalls);
    if (steps.empty())
        return result;

    std::vector<bool> matched(index.activities.size(), false);
    matchDeviceWork(index, steps, matched);
    const bool anyMatched = std::any_of(
        steps.begin(), steps.end(), [](const PyTorchStep &s) { return s.matchedActivities > 0; });
    if (anyMatched) {
        result.deviceAdjusted = true;
        TimePs prevEnd = steps.front().hostStart;
        if (steps.front().matchedActivities > 0) {
            // GPU work launched before the first step (e.g. warm-up) that is still running
            // when step 0 starts delays the step's start.
            for (size_t a = 0; a < index.activities.size(); ++a) {
                const KinetoActivity &act = index.activities[a];
                if (!matched[a] && act.end < steps.front().deviceStart)
                    prevEnd = std::max(prevEnd, act.end);
            }
        }
        for (PyTorchStep &step : steps) {
            step.start = std::max(prevEnd, step.hostStart);
            step.end = step.matchedActivities > 0 ? std::max(step.hostEnd, step.deviceEnd)
                                                  : std::max(step.hostEnd, step.start);
            step.end = std::max(step.end, step.start);
            prevEnd = step.end;
        }
        // Iterations of a server differ in size by design: no tail trimming for them.
        if (steps.size() > 1 && !result.fromIterations) {
            size_t last = steps.size() - 1;
            while (steps[last].matchedActivities == 0)
                --last; // terminates: some step matched
            // The last step with GPU work probably lost kernels when the capture stopped.
            if (last > 0 && 0.8 * steps[last - 1].matchedActivities > steps[last].matchedActivities)
                --last;
            result.trimmedSteps = uint32_t(steps.size() - (last + 1));
            steps.resize(last + 1);
        }
    }
    result.steps = std::move(steps);
    return result;
}

PyTorchSteps computePyTorchSteps(const Trace &trace)
{
    return computePyTorchSteps(trace, buildKinetoIndex(trace));
}

std::shared_ptr<const PyTorchSteps> pytorchSteps(AnalysisCache &cache)
{
    return cache.get<PyTorchSteps>(
        [](AnalysisCache &c) { return computePyTorchSteps(c.trace(), *kinetoIndex(c)); });
}

} // namespace tracedesk::core::analysis::pytorch
