#pragma once

// Why the GPU waits: HolisticTraceAnalysis's breakdowns of a PyTorch profiler trace, computed
// from the store (PYTORCH.md §3), for one rank (the KinetoIndex's scope), optionally one step.
//
// - Temporal breakdown per device: with G its GPU activities (kernels, memcpys, memsets),
//   total = last end − first start of merge(G); idle = total − |merge(G)|; compute =
//   |merge(computation kernels)|; non-compute = total − compute − idle.
// - Idle breakdown per device and stream: each gap between consecutive activities of a stream
//   is host wait when the next activity's launch came after the stream went idle, else kernel
//   wait when shorter than kKernelWaitThreshold (HTA's `consecutive_kernel_delay`, 30 µs), else
//   other.
// - Kernel type time: computation, communication and memory kernels' merged time, each elementary
//   interval labelled by the types active in it ("COMPUTATION overlapping COMMUNICATION").
// - Launches: each kernel / memcpy / memset launch call (HTA's names on a PyTorch trace; on
//   another capture, whose driver calls HTA cannot know, every call that queues work on a
//   stream: launchcalls.h's, or a call named after its kernel in older TensorFlow captures)
//   with its GPU activity: CPU (runtime)
//   duration, GPU duration, launch delay = max(0, GPU start − runtime end); outliers past HTA's
//   cut-offs (runtime > 50 µs, delay > 100 µs).
// - Queue length per device and stream: +1 at each launch, −1 when its activity starts; the
//   step function's statistics and the time it sat at or above the 1,024 launches CUDA queues.
//
// Kernel types: HTA's rule names communication by `nccl` alone and counts every other kernel as
// computation; here communication is the shared classification's (kernels/kernelclass.h: NCCL,
// RCCL, DeepEP, NVSHMEM, custom all-reduce ...), memory is a memcpy / memset activity, and the
// rest is computation: HTA's result where its rule applies, right where it cannot know the
// kernel (a DeepEP dispatch is communication, not computation).
//
// Times are µs (doubles) as HTA reports them; the store's picoseconds are not rounded to whole
// µs as HTA does, so sums can differ from HTA's by a fraction of a µs per event. Pure function
// of immutable inputs; any thread.

#include "core/analysis/pytorch/kinetoindex.h"

#include <optional>
#include <string>
#include <vector>

namespace tracedesk::core::analysis::gputime {

inline constexpr double kKernelWaitThresholdUs = 30.0;
inline constexpr double kRuntimeOutlierUs = 50.0;
inline constexpr double kLaunchDelayOutlierUs = 100.0;
inline constexpr int64_t kMaxLaunchQueue = 1024;

enum class KernelType : uint8_t { Computation, Communication, Memory };
const char *kernelTypeName(KernelType type); // "COMPUTATION", "COMMUNICATION", "MEMORY"
KernelType kernelTypeOf(std::string_view name, SliceRole role);

// kernelTypeOf per event kind, each kind classified once: a trace has a few thousand kinds and
// millions of kernels, and classifying a name is a dozen case-insensitive searches.
class KernelTypeCache
{
public:
    explicit KernelTypeCache(const Trace &trace)
        : m_trace(trace)
        , m_types(trace.kinds.size(), -1)
    {}
    KernelType of(SliceRef slice)
    {
        const auto kind = size_t(m_trace.row(slice).kind[slice.index]);
        int8_t &type = m_types[kind];
        if (type < 0) {
            const EventKind &k = m_trace.kinds[kind];
            type = int8_t(kernelTypeOf(m_trace.string(k.name), k.role));
        }
        return KernelType(type);
    }

private:
    const Trace &m_trace;
    std::vector<int8_t> m_types;
};

struct TemporalBreakdown
{
    int64_t device = 0;
    double totalUs = 0;
    double idleUs = 0;
    double computeUs = 0;
    double nonComputeUs = 0;
    double idlePct() const { return totalUs > 0 ? 100.0 * idleUs / totalUs : 0.0; }
    double computePct() const { return totalUs > 0 ? 100.0 * computeUs / totalUs : 0.0; }
    double nonComputePct() const { return totalUs > 0 ? 100.0 * nonComputeUs / totalUs : 0.0; }
};

struct IdleBreakdown
{
    int64_t device = 0;
    int64_t stream = 0;
    double hostWaitUs = 0;
    double kernelWaitUs = 0;
    double otherUs = 0;
    int64_t gaps = 0;
};

struct KernelTypeTime
{
    std::string type;  // one type, or several joined by " overlapping "
    double sumUs = 0;  // merged time in which exactly these types run
    int64_t count = 0; // activities of a single type; 0 for an overlap label
};

// Within each type, the kernels by name (HTA's get_gpu_kernel_breakdown): count and the sum,
// max, min, mean and sample std of their durations, by sum. A type with more than
// kKernelNamesKept names keeps the first names whose running sum stays within the
// kKernelNameQuantile quantile of the running sums (linear interpolation), at most
// kKernelNamesKept of them; the rest are one "others" row. HTA describes "others" by the sums
// of the names it folds (its max is the largest name's total); here its max, min, mean and std
// are of the kernels themselves, as every other row's are.
inline constexpr size_t kKernelNamesKept = 10;
inline constexpr double kKernelNameQuantile = 0.8;
struct KernelNameTime
{
    std::string type; // COMPUTATION, COMMUNICATION or MEMORY
    std::string name; // the kernel's name, or "others"
    int64_t count = 0;
    double sumUs = 0;
    double maxUs = 0;
    double minUs = 0;
    double meanUs = 0;
    double stdUs = 0; // sample standard deviation; 0 for a single kernel
};

struct LaunchStat
{
    SliceRef call;     // the launch call on its host thread
    SliceRef activity; // the GPU work it launched
    int64_t correlation = 0;   // names: trace.name(call), trace.name(activity)
    int64_t device = 0;
    int64_t stream = 0;
    double startUs = 0;  // the launch call's start, from the trace's start
    double cpuDurationUs = 0;
    double gpuDurationUs = 0;
    double launchDelayUs = 0;
    bool runtimeOutlier() const { return cpuDurationUs > kRuntimeOutlierUs; }
    bool delayOutlier() const { return launchDelayUs > kLaunchDelayOutlierUs; }
};

struct QueueLength
{
    int64_t device = 0;
    int64_t stream = 0;
    int64_t count = 0; // points of the step function (launches + starts)
    double mean = 0;
    double std = 0;    // sample standard deviation, as pandas' describe()
    double min = 0;
    double p50 = 0;
    double max = 0;
    double blockedUs = 0; // time at or above kMaxLaunchQueue
};

// One operator and the kernels it launched, over every call that launched exactly this
// sequence (HTA's get_aten_op_kernels_and_delay): the operator of a launch is the latest-starting
// `aten::` operator on the launch's thread that holds the whole launch call.
struct OpKernelSequence
{
    std::string op;
    std::vector<std::string> kernels; // in launch order
    int64_t occurrences = 0;
    double opToLaunchUs = 0;   // mean of (each launch's start - the operator's start)
    double launchToKernelUs = 0; // mean of (each kernel's start - its launch's start)
};

struct GpuTimeReport
{
    std::vector<TemporalBreakdown> temporal; // by device
    std::vector<IdleBreakdown> idle;         // by device, stream
    std::vector<KernelTypeTime> kernelTypes; // by time, descending
    std::vector<KernelNameTime> kernelNames; // by type, then sum descending, "others" last
    std::vector<LaunchStat> launches;        // by launch start (see LaunchDetail)
    int64_t launchCount = 0;                 // every launch, kept or not
    int64_t outlierCount = 0;                // launches that are outliers, kept or not
    std::vector<SliceRef> outlierCalls;      // LaunchDetail::Outliers: every outlier's call
    std::vector<QueueLength> queueLength;    // by device, stream
    std::vector<OpKernelSequence> opKernels; // by occurrences, descending
    std::string window;                      // "whole trace" or the step's name
    std::string scope;                       // "rank 3 of 8" for a merged run, else empty
    // Launches are HTA's launch calls (a PyTorch trace), else every call that queues work on
    // a stream.
    bool htaLaunchCalls = true;
};

// `window`: only GPU activities starting in it, and launches whose call starts in it.
struct TimeWindow
{
    TimePs start = 0;
    TimePs end = 0;
    std::string name;
};
// What the breakdowns and the critical path index: the launch calls and GPU activities of the
// trace (slices whose kind has role Runtime, Kernel, Memcpy or Memset), counted by kind over the
// rows. Their index, the report's interval lists and the what-if graph of a step take about
// kBytesPerGpuWorkEvent each at their peak (measured on generated 10M and 100M XSpace traces:
// 133 and 126 bytes), so a view can say what a profile of tens of millions will cost first.
inline constexpr uint64_t kBytesPerGpuWorkEvent = 130;
uint64_t gpuWorkEvents(const Trace &trace);

// Which launches the report keeps: all (the CLI's contract), or the outliers a view lists:
// the kListedLaunchOutliers with the longest launch delay (ties: the longer call), with every
// outlier's call in outlierCalls. Most launches of a busy trace are outliers (7,273 of 9,096 in
// a 2021 ResNet-50 trace); millions of rows would take gigabytes and read as nothing.
enum class LaunchDetail : uint8_t { All, Outliers };
inline constexpr size_t kListedLaunchOutliers = 2000;

GpuTimeReport gpuTimeReport(const Trace &trace, const pytorch::KinetoIndex &index,
                            const std::optional<TimeWindow> &window = std::nullopt,
                            LaunchDetail detail = LaunchDetail::All);

// Every host step `ProfilerStep#N` of the index's scope, by start.
std::vector<TimeWindow> profilerStepWindows(const Trace &trace, const pytorch::KinetoIndex &index);
// The span of host step `ProfilerStep#<step>` of the index's scope, nullopt when absent.
std::optional<TimeWindow> profilerStepWindow(const Trace &trace, const pytorch::KinetoIndex &index,
                                             int64_t step);

} // namespace tracedesk::core::analysis::gputime
