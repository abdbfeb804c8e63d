#pragma once

// KinetoEmitter: the vocabulary of a Kineto trace that the synthetic workloads
// (kinetogenerator.cpp, kinetorungenerator.cpp, kinetomoeshape.cpp, kinetoservingshape.cpp)
// speak in — nested host ops and Python frames, CUDA runtime calls and the GPU work they
// enqueue, CUDA graph replays and captures, [memory] instants, fwdbwd links — turned into
// KinetoJsonWriter records with consistent ids, times and counts.
//
// Invariants it keeps so the workload need not: ops on a thread nest properly (a parent is
// written when it closes, after its children); a GPU activity never starts before its launch
// nor before the previous activity of its stream or of the model's dependency chain; every
// launch writes one ac2g "s" on the runtime call and one "f" on each of its GPU activities (one,
// or every kernel of a graph), all with id = correlation; External ids are unique and increase
// with op start; a free names the Addr of an earlier allocation on the same device. Times are
// ns relative to baseTimeNanoseconds.
// Memory: the open-op stack only. Single-threaded.

#include "core/generate/kinetogenerator.h"
#include "core/generate/kinetojsonwriter.h"

#include <array>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace tracedesk::core::generator {

// splitmix64: tiny, fast and identical on every platform, so a seed always gives the same file.
class SplitMix
{
public:
    explicit SplitMix(uint64_t seed)
        : m_state(seed * 0x9e3779b97f4a7c15ull + 0x7f4a7c159e3779b9ull)
    {}
    uint64_t next()
    {
        uint64_t z = (m_state += 0x9e3779b97f4a7c15ull);
        z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
        z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
        return z ^ (z >> 31);
    }
    uint64_t below(uint64_t n) { return next() % n; }
    // Nanoseconds in [lo, hi].
    int64_t ns(int64_t lo, int64_t hi) { return lo + int64_t(below(uint64_t(hi - lo + 1))); }

private:
    uint64_t m_state;
};

enum class HostThread : uint8_t { Main, Autograd };
enum class OpCategory : uint8_t { CpuOp, UserAnnotation, PythonFunction };

// One GPU model, the same for every device (deviceProperties and the occupancy estimate).
struct GpuModel
{
    const char *name;
    uint64_t totalGlobalMem;
    int computeMajor, computeMinor;
    int maxThreadsPerBlock, maxThreadsPerMultiprocessor, regsPerBlock, regsPerMultiprocessor;
    int warpSize, sharedMemPerBlock, sharedMemPerMultiprocessor, sharedMemPerBlockOptin, numSms;
};

struct KernelSpec
{
    const char *name;
    std::array<int64_t, 3> block;
    int registers;    // per thread
    int sharedMemory; // bytes per block
    int minUs, maxUs; // duration range
};

// One kernel node of a CUDA graph (graphLaunch()).
struct GraphNode
{
    const KernelSpec *kernel = nullptr;
    std::array<int64_t, 3> grid{};
};

struct GpuQueue
{
    int device = 0;
    int stream = 7;
};

struct Allocation
{
    int device = -1; // -1: CPU
    uint64_t addr = 0;
    int64_t bytes = 0;
};

// Optional cpu_op args.
struct OpArgs
{
    std::string_view inputDims;  // JSON text, e.g. [[32,512],[]]
    std::string_view inputTypes; // JSON text, e.g. ["float","Scalar"]
    int64_t sequence = -1;       // "Sequence number"
    bool backward = false;       // adds "Fwd thread id" (the main thread)
    std::string_view extra;      // more members, KinetoArgs text
};

// A kernel launch whose GPU timing the caller decides (kinetorungenerator.cpp: a collective
// ends when the last rank arrives): launchKernel() writes the runtime call, placeKernel() the
// kernel. The op that launched it must still be open in between, and the start must not be
// before readyAt() (the emitter's ordering invariant then holds as for kernel()).
struct KernelLaunch
{
    int64_t correlation = 0;
    int64_t earliest = 0; // the GPU may start it from here
    int64_t externalId = 0;
};

class KinetoEmitter
{
public:
    KinetoEmitter(KinetoJsonWriter &writer, KinetoTraceStats &stats, const GpuModel &gpu,
                  uint64_t seed, int64_t pid, int64_t startNs);

    // Process and thread records (ph "M") at the window start; GPU pids are device indices.
    void processMetadata(int64_t pid, std::string_view label, int64_t sortIndex);
    void threadMetadata(int64_t pid, int64_t tid, std::string_view name);
    // The Spans sort index and the "Iteration Start" global instant.
    void windowStart();
    // The "PyTorch Profiler (0)" Trace span over the whole window and "Record Window End".
    void windowEnd(int64_t endNs);
    // windowEnd() 10 µs after the last work of `main` and of the GPUs; returns that end.
    int64_t endWindowAfterWork(HostThread main);

    // Recent Kineto writes each launch's and GPU activity's correlation id as its External id,
    // not the enclosing op's (PYTORCH.md 1.7); ops keep their own ids. Call before any launch.
    void mirrorExternalIds() { m_mirrorExternalIds = true; }
    // CUPTI's correlation counter runs over every API call of the process, so real ids are far
    // above the ops' External ids.
    void startCorrelationsAt(int64_t first) { m_nextCorrelation = first; }

    SplitMix &random() { return m_random; }
    int64_t now(HostThread t) const { return m_threads[size_t(t)].cursor; }
    int64_t tid(HostThread t) const { return m_threads[size_t(t)].tid; }
    // The later thread catches up with the earlier one's time (a hand-over between threads).
    void join(HostThread waiting, HostThread on);
    void advance(HostThread t, int64_t ns) { m_threads[size_t(t)].cursor += ns; }

    // Python frames (OpCategory::PythonFunction) carry Python ids instead of an External id, so
    // a launch under one names no op.
    void open(HostThread t, std::string_view name, OpCategory category, const OpArgs &args = {});
    void close(HostThread t);
    // A fwdbwd flow: start() binds to the innermost open op of `t` and returns the flow id.
    uint64_t fwdbwdStart(HostThread t);
    void fwdbwdEnd(HostThread t, uint64_t id);

    // `extra`: more args members (KinetoArgs text), e.g. a collective's.
    void kernel(HostThread t, GpuQueue q, const KernelSpec &k, std::array<int64_t, 3> grid,
                std::string_view extra = {});
    KernelLaunch launchKernel(HostThread t);
    // When a kernel launched at `earliest` could start on `q`: after the stream and the chain.
    int64_t readyAt(GpuQueue q, int64_t earliest);
    // Writes the kernel at [start, start + duration); moves the stream and the chain past it.
    void placeKernel(const KernelLaunch &launch, GpuQueue q, const KernelSpec &k,
                     std::array<int64_t, 3> grid, int64_t start, int64_t duration,
                     std::string_view extra = {});
    // `name` e.g. "Memcpy HtoD (Pageable -> Device)"; peer copies pass fromDevice.
    void memcpy(HostThread t, GpuQueue q, std::string_view name, int64_t bytes, double gbPerS,
                int fromDevice = -1);
    void memset(HostThread t, GpuQueue q, int64_t bytes);
    // cudaStreamSynchronize: returns once everything queued on `q` has finished.
    void streamSync(HostThread t, GpuQueue q);

    // cudaGraphLaunch: the graph's kernels run back to back on `q` in node order, all with the
    // launch's correlation and no External id (a replay runs no op). Kernel times are drawn from
    // each spec's range and scaled by `scalePercent` (a prefill batch's longer sequences).
    void graphLaunch(HostThread t, GpuQueue q, const std::vector<GraphNode> &nodes, int64_t graphId,
                     int scalePercent = 100);
    // cudaLaunchKernel on a capturing stream: the kernel becomes a graph node and does not run,
    // so the call has its "s" but no GPU activity.
    void capturedLaunch(HostThread t);
    // A runtime call that enqueues no GPU work (cudaStreamBeginCapture, ...): no flow.
    void runtimeCall(HostThread t, std::string_view name, int cbid);

    Allocation allocate(HostThread t, int device, int64_t bytes);
    void release(HostThread t, const Allocation &a);
    // Start addresses over once nothing is live (the caching allocator reuses its blocks).
    void rewindArenas();

    int64_t latestGpuEnd() const { return m_chain; }

private:
    struct Frame
    {
        std::string_view name;
        OpCategory category;
        int64_t start = 0;
        int64_t externalId = 0; // 0 for a Python frame
        int64_t pythonId = 0;   // Python frames only
        std::string args;
    };
    struct Thread
    {
        int64_t tid = 0;
        int64_t cursor = 0;
        std::vector<Frame> stack;
        size_t depth = 0;
    };
    struct Queue
    {
        GpuQueue queue;
        int64_t free = 0;
    };
    struct Arena
    {
        uint64_t base = 0;
        uint64_t next = 0;
        int64_t allocated = 0;
        int64_t reserved = 0;
        int64_t live = 0;
    };

    Thread &thread(HostThread t) { return m_threads[size_t(t)]; }
    Frame &top(HostThread t);
    Queue &queue(GpuQueue q);
    Arena &arena(int device) { return m_arenas[size_t(device + 1)]; }
    // Writes the runtime call and its "s"; returns {correlation, earliest GPU start}. `fromOp`:
    // the call carries the innermost op's External id (unless mirrored).
    std::pair<int64_t, int64_t> launch(HostThread t, std::string_view name, int cbid,
                                       bool fromOp = true);
    // The External id a launch and its GPU work carry; 0 writes none.
    int64_t externalIdFor(HostThread t, int64_t correlation);
    // Places a GPU activity of `duration` on `q` after its dependencies; returns its start.
    int64_t schedule(Queue &q, int64_t earliest, int64_t duration);
    // `externalId` 0 writes none.
    void writeKernel(int64_t externalId, int64_t correlation, GpuQueue q, const KernelSpec &k,
                     std::array<int64_t, 3> grid, int64_t start, int64_t duration,
                     std::string_view extra);
    void memoryEvent(HostThread t, const Allocation &a, int64_t signedBytes);

    KinetoJsonWriter &m_writer;
    KinetoTraceStats &m_stats;
    const GpuModel &m_gpu;
    SplitMix m_random;
    int64_t m_pid;
    int64_t m_startNs;
    std::array<Thread, 2> m_threads;
    std::vector<Queue> m_queues;
    std::vector<Arena> m_arenas;
    int64_t m_chain = 0;
    int64_t m_nextExternalId = 1;
    int64_t m_nextCorrelation = 1;
    uint64_t m_nextFwdBwd = 1;
    int64_t m_nextPythonId = 0;
    int64_t m_evIdx = 0;
    bool m_mirrorExternalIds = false;
    KinetoArgs m_args;
};

// The events endWindowAfterWork writes after the last step: the Trace span and Record Window End.
inline constexpr uint64_t kTrailerEvents = 2;

// Calls step(n) for n = first, first + 1, ... until `writer` holds `events` events but for the
// trailer (at least one step); returns how many steps ran.
template<typename Step>
uint64_t runStepsUntil(const KinetoJsonWriter &writer, uint64_t events, uint64_t first, Step &&step)
{
    uint64_t n = first;
    do {
        step(n++);
    } while (writer.events() + kTrailerEvents < events);
    return n - first;
}

} // namespace tracedesk::core::generator
