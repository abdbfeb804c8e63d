#pragma once

// PyTorchSteps: the training steps of a PyTorch profiler (Kineto) trace, as torch-tb-profiler
// defines them (../shared/PYTORCH.md §2.2), with the device-side adjustment and tail trimming.
//
// Host steps are the `ProfilerStep#N` slices with role CpuOp or UserAnnotation on host planes;
// the device-side copies (GpuAnnotation on a stream) are deliberately not steps, they would
// duplicate every step in new traces. Without any step marker, numbered step ranges
// (numberedsteps.h: `iteration10`, `step 12` NVTX ranges and the like, an extension for
// captures made without the PyTorch profiler) are the steps, named by their numbers and
// trimmed like markers. Without those, a serving engine's iterations
// (servingiterations.h) are the steps, named "0", "1", ... in start order with their kind,
// batch size and tokens, and are never tail-trimmed (iterations differ in size by design).
// Without those either, one step "0" spans the CPU ops; a trace with GPU work but no CPU
// operators (an Nsight Systems or rocprofv3 capture without NVTX/roctx steps) gets one step "0"
// spanning its runtime (launch) calls instead, so its GPU work is still measured.
//
// Design note (device adjustment). Runtimes in start order are walked against the steps in
// order: a runtime lying fully inside a host step contributes its GPU activities (found by
// correlation id) to that step; a runtime crossing a step edge contributes nothing. When any
// step got GPU work, each step becomes [max(prev_end, host start), max(host end, device end)]
// where prev_end is the previous step's adjusted end (for step 0: the host start, pushed to the
// end of GPU work not launched from any step that finishes before step 0's first GPU activity).
// With more than one step, trailing steps without matched GPU work are dropped, and so is the
// last one with work if it has fewer than 0.8 x the matched activities of the one before.
//
// Plain value; immutable once built, safe to share across threads. Invariants: steps are in
// host start order; adjusted steps never overlap and start <= end.

#include "core/analysis/analysiscache.h"
#include "core/analysis/pytorch/kinetoindex.h"
#include "core/analysis/pytorch/servingiterations.h"
#include "core/model/trace.h"

#include <memory>
#include <string>
#include <vector>

namespace tracedesk::core::analysis::pytorch {

struct PyTorchStep
{
    std::string name;     // N of ProfilerStep#N as written, "0" for the fallback step
    TimePs hostStart = 0; // the host-side marker (fallback: CPU op span)
    TimePs hostEnd = 0;
    TimePs start = 0; // after the device-side adjustment
    TimePs end = 0;
    TimePs deviceStart = 0;         // GPU work launched from inside the step; valid when
    TimePs deviceEnd = 0;           // matchedActivities > 0
    uint32_t matchedActivities = 0; // GPU activities launched by runtimes fully inside the step
    SliceRef marker;                // the ProfilerStep#N or iteration annotation slice (unset
                                    // for the fallback step)
    IterationName iteration;        // for a serving iteration: kind, batch size, tokens
    std::string iterationLabel;     // its annotation's name (an iteration, a numbered range)

    TimePs hostDuration() const { return hostEnd - hostStart; } // the annotation's own length
    TimePs duration() const { return end - start; }
};

struct PyTorchSteps
{
    std::vector<PyTorchStep> steps; // the kept steps
    bool fromMarkers = false;       // from ProfilerStep#N markers
    bool fromNumberedRanges = false; // from numbered step ranges (no ProfilerStep#N)
    std::string numberedWord;        // their step word, e.g. "iteration"
    bool fromIterations = false;    // from serving-engine iterations (no ProfilerStep#N)
    bool fromRuntimeCalls = false;  // the fallback step spans runtime calls (no CPU operators)
    IterationEngine iterationEngine = IterationEngine::Repeated; // when fromIterations
    bool deviceAdjusted = false;    // some step got GPU work, so boundaries moved
    uint32_t hostStepCount = 0;     // host ProfilerStep#N slices found
    uint32_t trimmedSteps = 0;      // tail steps dropped by the trimming rule

    bool empty() const { return steps.empty(); }
    // "All steps time" [first start, last end] used by the GPU metrics; {0, 0} when empty.
    TimePs allStart() const { return steps.empty() ? 0 : steps.front().start; }
    TimePs allEnd() const { return steps.empty() ? 0 : steps.back().end; }
};

// Which rule found the steps: "profiler_step", "numbered_ranges", "serving_iterations",
// "runtime_calls" (one step over them), "cpu_operators" (one step over them) or "none".
const char *stepsSourceName(const PyTorchSteps &steps);

PyTorchSteps computePyTorchSteps(const Trace &trace, const KinetoIndex &index);
PyTorchSteps computePyTorchSteps(const Trace &trace);
std::shared_ptr<const PyTorchSteps> pytorchSteps(AnalysisCache &cache);

} // namespace tracedesk::core::analysis::pytorch
