#pragma once

// The critical path of a step: the longest path through the dependency graph of
// criticalpathgraph.h (HolisticTraceAnalysis's lightweight critical path), its length, and what
// share of it is CPU work, GPU work, launch delay and kernel-to-kernel wait.
//
// The path is a longest path of the DAG by its edge weights (a topological order and one
// relaxation pass). Its segments are its timed edges, consecutive edges of one event and kind
// joined: "cpu" (an operator's or call's own time), "gpu" (a kernel, memcpy or memset),
// "launch" (launch call start to kernel start on an idle stream), "wait" (previous activity's end
// to the next one's start on a busy stream), "sync" (a blocking call waiting on the GPU where the
// trace recorded no sync to follow). `bound_by` names HTA's classes: cpu_bound,
// gpu_compute_bound, gpu_communication_bound, gpu_kernel_launch_overhead,
// gpu_kernel_kernel_overhead, and cpu_blocked_on_gpu for "sync".
//
// What-if: a speed-up divides the weight of every edge attributed to the events of one name (for
// an operator, with every call and operator under it on its thread), and the longest path is
// searched again over the new weights: a recomputed length, not an estimate. Launch and wait
// edges keep their measured weights. Pure functions of immutable inputs; any thread.

#include "core/analysis/gputime/criticalpathgraph.h"

#include <string>
#include <vector>

namespace tracedesk::core::analysis::gputime {

struct PathSegment
{
    std::string name;    // the event the time belongs to
    std::string kind;    // "cpu", "gpu", "launch", "wait" or "sync"
    std::string boundBy; // HTA's class of the time
    SliceRef ref;        // the event (for launch and wait: the kernel that was delayed)
    TimePs start = 0;    // when the segment's first edge starts
    TimePs weight = 0;   // ps on the path (after speed-ups)
    uint32_t event = pytorch::kNoIndex;
};

struct SpeedUp
{
    std::string name;  // every event of this name
    double factor = 1; // > 0; 2 halves their time
};

struct CriticalPath
{
    std::string error; // non-empty when no path could be found (a cycle in the graph)
    TimePs length = 0;
    TimePs cpu = 0;
    TimePs gpu = 0;
    TimePs launch = 0;
    TimePs wait = 0;
    TimePs sync = 0; // blocking calls no recorded sync explains (criticalpathgraph.h)
    std::vector<PathSegment> segments; // in path order
    std::vector<uint32_t> nodes;       // the path's nodes, in order
    size_t affectedEvents = 0;         // events the speed-ups touched

    // `part` as a percentage of the length (0 for an empty path).
    double percentOf(TimePs part) const
    {
        return length > 0 ? 100.0 * double(part) / double(length) : 0.0;
    }
};

CriticalPath criticalPath(const Trace &trace, const CriticalPathGraph &graph,
                          const std::vector<SpeedUp> &speedUps = {});

// The events the path passes through, by start, each once (to outline).
std::vector<SliceRef> pathSlices(const CriticalPathGraph &graph, const CriticalPath &path);
// Where the path moves from one track to another (a launch, a sync, a wait across streams), as
// flows from the event it leaves to the event it enters.
std::vector<Flow> pathHops(const CriticalPathGraph &graph, const CriticalPath &path);

// The k-th (0-based) CPU operator or annotation of the index's scope whose name contains
// `text`, as a window; nullopt when there is none.
std::optional<TimeWindow> annotationWindow(const Trace &trace, const pytorch::KinetoIndex &index,
                                           std::string_view text, size_t instance);

} // namespace tracedesk::core::analysis::gputime
