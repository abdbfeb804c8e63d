#pragma once

// GraphCapture: which operator recorded each kernel a CUDA / HIP graph replays.
//
// A replayed graph's kernels all hang off one `cudaGraphLaunch` / `hipGraphLaunch`, so the
// replay trace can only say "the graph ran" (operatortree.h attributes them to whatever
// encloses the launch: `CUDAGraph.replay`, a serving engine's iteration). The operators that
// built the graph ran once, at capture time, and a trace of the capture holds them: each
// kernel launch between `*StreamBeginCapture*` and `*StreamEndCapture*` on a thread enqueued a
// graph node instead of running (captured launches have no GPU activity), under the operator
// that issued it.
//
// Design note (matching). A capture window's captured launches, in launch order, are the
// graph's kernel nodes in capture order; a replay launch's activities in start order are the
// same nodes in execution order. For the graphs serving engines and torch.compile capture (one
// stream, no branches) the orders agree. A replay launch is matched to the capture window with
// exactly as many captured launches as it has activities (the first such window not yet used
// by an equal-sized earlier launch is preferred, so several replays of one graph all match
// it); a launch whose count no window has stays unmatched and is listed, never guessed.
// Kineto writes no graph node id on capture-time launches, so order is the only key it offers.
//
// Plain value; immutable once built, safe to share across threads.

#include "core/analysis/analysiscache.h"
#include "core/analysis/pytorch/kinetoindex.h"

#include <memory>
#include <string>
#include <vector>

namespace tracedesk::core::analysis::pytorch {

// The capture trace given with a replay (`--capture FILE`). Put into the replay's AnalysisCache
// before any analysis asks for it; without one, the capture the loader attached to the trace
// (Trace::graphCapture: both files opened together, or a folder holding both) is used.
struct GraphCaptureSource
{
    TracePtr capture;
    std::string label; // the capture file's name, for the panels
};

struct GraphCaptureAttribution
{
    bool hasCapture = false;
    std::string label;
    uint32_t captureWindows = 0;                // begin/end capture pairs in the capture trace
    uint32_t graphLaunches = 0;                 // replay launches with GPU work named *GraphLaunch*
    uint32_t matchedLaunches = 0;               // ... matched to a capture window
    uint64_t matchedActivities = 0;             // replayed activities given a capture operator
    TimePs matchedTime = 0;                     // their GPU time
    std::vector<std::string> opNames;           // the capture operators, interned here
    std::vector<uint32_t> opOfActivity;         // per replay KinetoIndex activity: into opNames, or
                                                // kNoIndex
    std::vector<uint32_t> unmatchedLaunchSizes; // activity counts of unmatched graph launches

    // The capture operator of replay activity `a`, or empty.
    std::string_view captureOperator(uint32_t a) const
    {
        return a < opOfActivity.size() && opOfActivity[a] != kNoIndex
                   ? std::string_view(opNames[opOfActivity[a]])
                   : std::string_view();
    }
};

bool isGraphLaunchName(std::string_view runtimeName);

GraphCaptureAttribution attributeGraphCapture(const Trace &replay, const KinetoIndex &replayIndex,
                                              const Trace &capture, std::string label);
// From the cache: empty (hasCapture false) unless a GraphCaptureSource was put into it.
std::shared_ptr<const GraphCaptureAttribution> graphCaptureAttribution(AnalysisCache &cache);

} // namespace tracedesk::core::analysis::pytorch
