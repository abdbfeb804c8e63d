#pragma once

// The dependency graph of one rank's CPU operators, launches and GPU work, by
// HolisticTraceAnalysis's lightweight critical path rules (its `CPGraph`), for the longest-path
// search in criticalpath.h.
//
// Nodes are instants: each event has a start node (2e) and an end node (2e + 1). Events are the
// CPU operators (role CpuOp) and runtime / driver calls starting in the window with a duration,
// and the GPU activities (kernels, memcpys, memsets) whose launch call starts in it.
//
// Edges, each weighted by the time between its nodes unless it is a dependency:
// - Operator: inside an event, or from an event to its first child / from a child to the next
//   or to the parent's end, per host thread (call stack order). A blocking call
//   (cudaDeviceSynchronize, cudaStreamSynchronize, cudaEventSynchronize/Query, cudaMemcpy[Async],
//   their HIP names, hipMemcpyWithStream)
//   weighs nothing: its wait is the GPU's, reached through a sync edge. HTA's rule assumes the
//   trace recorded that sync (cuda_sync events, PyTorch 2.1+); where no sync edge reaches the
//   call, it keeps its measured time, or the path would lose the wait: as a wait on the GPU
//   (`unsyncedWait`), except an event query, which returns at once and is CPU time.
// - Dependency (weight 0): consecutive top-level operators of a thread, and calls that hold the
//   CUDA runtime lock (cudaLaunchKernel, cudaMemcpyAsync, cudaHostAlloc) across threads in the
//   order they finished. The backward thread's events join the forward thread's when each is
//   the only thread with "autograd" / "forward" operators.
// - LaunchDelay: launch call start -> kernel start, when the stream's queue was empty at the
//   launch (1 after it) and is empty once the kernel starts, the previous kernel of the stream
//   ended before the launch, and any GPU wait it had ended before the launch too. Otherwise a
//   zero-weight launch edge keeps the kernel after its launch when weights change (what-if).
// - KernelKernelDelay: previous activity's end -> this one's start on the same stream, when not
//   a launch delay and the gap is under kKernelKernelDelayThresholdUs (1.5 ms); longer gaps
//   have a dependency the trace does not show.
// - Sync (weight 0): from the cuda_sync events: a stream / context sync ties the last activity
//   of the stream / of every stream of the device to the end of the CPU call that waited; an
//   event sync ties the kernel launched last on the recorded stream before cudaEventRecord to
//   the waiting call's end; a stream wait event makes the next kernel launched on the waiting
//   stream (from that thread) start after that kernel.
//
// Weights are picoseconds, never negative (a child ending a rounding step after its parent
// weighs 0). Operator and kernel-kernel edges are attributed to an event (HTA's rule: the edge's
// start event when the edge leaves a start node, else the event it ends, else the enclosing
// operator between two siblings; a kernel-kernel gap to the kernel that waited). Pure function of
// immutable inputs; any thread.

#include "core/analysis/gputime/gputime.h"

#include <optional>
#include <string>
#include <vector>

namespace tracedesk::core::analysis::gputime {

inline constexpr double kKernelKernelDelayThresholdUs = 1500.0;

enum class PathEdgeKind : uint8_t { Operator, Dependency, LaunchDelay, KernelKernelDelay, Sync };

struct PathEvent
{
    SliceRef ref;
    TimePs start = 0;
    TimePs end = 0;
    bool gpu = false;
    bool blocking = false;               // a blocking CUDA call: its own edge weighs 0
    bool unsyncedWait = false;           // ... but no sync edge reaches it: it waits here
    bool communication = false;          // a GPU communication kernel
    uint32_t parent = pytorch::kNoIndex; // the enclosing CPU event on its thread
};

struct PathEdge
{
    uint32_t from = 0; // node: 2 * event (+1 for its end)
    uint32_t to = 0;
    PathEdgeKind kind = PathEdgeKind::Dependency;
    TimePs weight = 0;
    uint32_t event = pytorch::kNoIndex; // the event the edge's time belongs to, if any
};

// The most events a graph is built over. A step of a training or serving trace holds far fewer;
// a whole 10M-event profile without steps would hold millions, at about 300 bytes each in the
// graph and its search: such a window is refused with a note, not searched.
inline constexpr size_t kMaxPathEvents = 2'000'000;

struct CriticalPathGraph
{
    std::string error;       // non-empty when the window was refused (too many events)
    std::vector<PathEvent> events;
    std::vector<PathEdge> edges;
    TimeWindow window;       // the span the events were taken from
    bool syncEvents = false; // the trace recorded cuda_sync events (else GPU waits are unseen)

    uint32_t nodeCount() const { return uint32_t(events.size() * 2); }
    TimePs nodeTime(uint32_t node) const
    {
        const PathEvent &e = events[node / 2];
        return node % 2 ? e.end : e.start;
    }
};

// `window`: nullopt for the whole trace. A window of more than `maxEvents` events gets an
// empty graph with `error` set.
CriticalPathGraph buildCriticalPathGraph(const Trace &trace, const pytorch::KinetoIndex &index,
                                         const std::optional<TimeWindow> &window,
                                         size_t maxEvents = kMaxPathEvents);

} // namespace tracedesk::core::analysis::gputime
