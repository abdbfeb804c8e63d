#pragma once

// KinetoIndex: one pass over a PyTorch profiler (Kineto) trace that finds, per host thread,
// the CPU nodes (CpuOp / UserAnnotation / PythonFunction slices) and the launch calls (Runtime
// slices), and on the device planes every GPU activity (Kernel / Memcpy / Memset), then links
// them: correlation id -> runtime, runtime -> its GPU activities (1:N, e.g. a cudaGraphLaunch),
// External id -> CPU node(s). The PyTorch analyses (operator tree, operator and kernel views,
// steps) build on it.
//
// Roles come from EventKind::role (set by the reader), never from category text. cuda_driver
// launches (cuLaunchKernel[Ex]) carry role Runtime and are indexed like cuda_runtime calls
// (PYTORCH.md §5), so Triton / inductor kernels find their launch. External id 0 (old files)
// and a missing External id both read as "none" (kNoValue), and so do the External ids of
// launches and GPU work in traces where each equals its correlation id (recent Kineto writes
// that; `externalIdsMirrorCorrelation`). Correlation ids are taken as unique within the trace
// (one Kineto file per Trace); when two runtimes share one, the first in (start, track) order
// wins and the second is indexed without GPU work.
//
// Plain value; immutable once built, safe to share across threads. Invariants:
// - threads are host tracks holding at least one node or runtime, ordered by track index;
// - nodes of one thread are contiguous in `nodes` ([nodeBegin, nodeEnd)), sorted by
//   (start, -end, row) so that a parent precedes its children;
// - runtimes of one thread are contiguous in `runtimes` ([runtimeBegin, runtimeEnd)), by start;
// - `activities` is sorted by (device, stream, start); `activitiesOf(r)` lists the indices of
//   runtime r's activities in start order; every activity appears in at most one runtime.

#include "core/analysis/analysiscache.h"
#include "core/model/trace.h"

#include <memory>
#include <span>
#include <string>
#include <unordered_map>
#include <vector>

namespace tracedesk::core::analysis::pytorch {

inline constexpr uint32_t kNoIndex = UINT32_MAX;

// A CpuOp, UserAnnotation or PythonFunction slice on a host thread. Python frames are nodes so
// that a launch from Python code under no operator can be attributed to its frame; the
// analyses that count operators or CPU time by role skip them.
struct KinetoNode
{
    SliceRef ref;
    uint32_t thread = 0; // index into KinetoIndex::threads
    SliceRole role = SliceRole::None;
    TimePs start = 0;
    TimePs end = 0;
    int64_t externalId = kNoValue; // kNoValue when absent or 0
};

// A runtime / driver API call on a host thread.
struct KinetoRuntime
{
    SliceRef ref;
    uint32_t thread = 0; // index into KinetoIndex::threads
    TimePs start = 0;
    TimePs end = 0;
    int64_t correlation = kNoValue;
    int64_t externalId = kNoValue; // kNoValue when absent or 0
};

// A Kernel, Memcpy or Memset on a device plane.
struct KinetoActivity
{
    SliceRef ref;
    SliceRole role = SliceRole::None;
    TimePs start = 0;
    TimePs end = 0;
    int64_t device = 0; // the Device side column, else the plane id
    int64_t stream = 0; // the Stream side column, else the track's source id
    int64_t correlation = kNoValue;
    int64_t externalId = kNoValue; // kNoValue when absent or 0
    uint32_t runtime = kNoIndex;   // index into KinetoIndex::runtimes, kNoIndex when unmatched
};

struct KinetoThread
{
    uint32_t track = 0; // index into Trace::tracks
    uint32_t plane = 0; // index into Trace::planes
    int64_t pid = 0;    // plane id (OS pid)
    int64_t tid = 0;    // track source id (OS tid)
    uint32_t nodeBegin = 0;
    uint32_t nodeEnd = 0;
    uint32_t runtimeBegin = 0;
    uint32_t runtimeEnd = 0;
    bool hasProfilerStep = false; // some node is named ProfilerStep#N
};

// The planes the PyTorch views read. A run of several ranks merged into one trace (rank
// sections, LoadInfo::hosts) is several processes whose correlation ids, steps and allocators
// are each their own: the views cover one rank section at a time, the first unless one is
// picked (kinetoScope(trace, section), rankanalyses.h), and `scopeLabel` says which.
struct KinetoScope
{
    bool wholeTrace = true;
    StringId host = kEmptyString;   // the rank's plane host when !wholeTrace
    uint32_t section = 0;           // its index in trace.info.hosts when !wholeTrace
    std::string scopeLabel;         // e.g. "rank 3 of 8"; empty for a single-process trace

    bool includes(const Trace &trace, uint32_t plane) const
    {
        return wholeTrace || trace.planes[plane].host == host;
    }
};
// The rank sections a PyTorch view can pick from: trace.info.hosts.size() for a merged run of
// several Kineto rank traces, an XSpace run folder of several hosts or several Nsight Systems
// exports, else 1 (the whole trace is one process).
uint32_t kinetoSectionCount(const Trace &trace);
// The run's rank count for "rank k of N": its world size when the trace holds only some of its
// ranks (a run opened with a rank choice), else the sections.
uint32_t kinetoRankCount(const Trace &trace);
// The first rank section (the whole trace when it is not a merged run).
KinetoScope kinetoScope(const Trace &trace);
// Rank section `section` of a merged run (clamped to the last one); the whole trace otherwise.
KinetoScope kinetoScope(const Trace &trace, uint32_t section);

struct KinetoIndex
{
    std::vector<KinetoThread> threads;
    std::vector<KinetoNode> nodes;
    std::vector<KinetoRuntime> runtimes;
    std::vector<KinetoActivity> activities;
    std::vector<int64_t> devices; // distinct activity devices, ascending
    KinetoScope scope;            // the planes indexed
    bool hasKernels = false;      // some activity has role Kernel
    bool externalIdsMirrorCorrelation = false; // launches' External ids were correlation ids
    bool hasDeviceActivities = false;

    // Indices into `activities` of runtime r's GPU work (empty for most non-launch calls).
    std::span<const uint32_t> activitiesOf(uint32_t runtime) const;
    // Index into `runtimes` of the call with this correlation id, or kNoIndex.
    uint32_t runtimeForCorrelation(int64_t correlation) const;
    // Indices into `nodes` carrying this External id (usually one), in node order.
    std::span<const uint32_t> nodesForExternalId(int64_t externalId) const;
    // Index into `threads` of a host track, or kNoIndex.
    uint32_t threadOfTrack(uint32_t track) const;

    // Lookup tables behind the accessors above.
    std::vector<uint32_t> activityOffsets; // runtimes.size() + 1 offsets into activityOrder
    std::vector<uint32_t> activityOrder;
    std::unordered_map<int64_t, uint32_t> runtimeByCorrelation;
    std::unordered_map<int64_t, std::pair<uint32_t, uint32_t>>
        nodeRangeByExternalId; // into nodeOrder
    std::vector<uint32_t> nodeOrder;
    std::unordered_map<uint32_t, uint32_t> threadByTrack;
};


// True for the names torch-tb-profiler treats as steps: "ProfilerStep#<digits>".
bool isProfilerStepName(std::string_view name);

KinetoIndex buildKinetoIndex(const Trace &trace);
// The index of the planes `scope` includes (one rank of a merged run, for the distributed view).
KinetoIndex buildKinetoIndex(const Trace &trace, const KinetoScope &scope);
// The cache's index: of the KinetoScope put into the cache (a rank's analyses, rankanalyses.h),
// else of kinetoScope(trace).
std::shared_ptr<const KinetoIndex> kinetoIndex(AnalysisCache &cache);

} // namespace tracedesk::core::analysis::pytorch
