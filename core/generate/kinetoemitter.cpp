#include "core/generate/kinetoemitter.h"

#include <algorithm>

namespace tracedesk::core::generator {

namespace {

constexpr int64_t kContext = 1;
// RecordFunction's own thread numbering, not the OS tid: the forward thread is 1.
constexpr int64_t kFwdThreadId = 1;
constexpr int64_t kReserveGranule = int64_t(2) << 20;
constexpr int kCbidLaunchKernel = 211;
constexpr int kCbidMemcpyAsync = 41;
constexpr int kCbidMemsetAsync = 51;
constexpr int kCbidStreamSynchronize = 131;
constexpr int kCbidGraphLaunch = 311;

std::string dim3Text(const std::array<int64_t, 3> &d)
{
    return "[" + std::to_string(d[0]) + "," + std::to_string(d[1]) + "," + std::to_string(d[2]) +
           "]";
}

} // namespace

KinetoEmitter::KinetoEmitter(KinetoJsonWriter &writer, KinetoTraceStats &stats, const GpuModel &gpu,
                             uint64_t seed, int64_t pid, int64_t startNs)
    : m_writer(writer)
    , m_stats(stats)
    , m_gpu(gpu)
    , m_random(seed)
    , m_pid(pid)
    , m_startNs(startNs)
{
    // The autograd engine's worker is a separate OS thread of the same process.
    m_threads[0].tid = pid;
    m_threads[1].tid = pid + 37;
    m_threads[0].cursor = startNs;
    m_threads[1].cursor = startNs;
    m_chain = startNs;
}

void KinetoEmitter::processMetadata(int64_t pid, std::string_view label, int64_t sortIndex)
{
    m_args.clear();
    m_writer.metadata("process_name", pid, 0, m_startNs, m_args.string("name", "python").text());
    m_args.clear();
    m_writer.metadata("process_labels", pid, 0, m_startNs, m_args.string("labels", label).text());
    m_args.clear();
    m_writer.metadata("process_sort_index", pid, 0, m_startNs,
                      m_args.integer("sort_index", sortIndex).text());
    m_stats.metadata += 3;
}

void KinetoEmitter::threadMetadata(int64_t pid, int64_t tid, std::string_view name)
{
    m_args.clear();
    m_writer.metadata("thread_name", pid, tid, m_startNs, m_args.string("name", name).text());
    m_args.clear();
    m_writer.metadata("thread_sort_index", pid, tid, m_startNs,
                      m_args.integer("sort_index", tid).text());
    m_stats.metadata += 2;
}

void KinetoEmitter::windowStart()
{
    std::string &sort = m_writer.beginRaw();
    sort += "{\"ph\":\"M\",\"name\":\"process_sort_index\",\"pid\":\"Spans\",\"tid\":0,\"ts\":";
    appendKinetoMicros(sort, m_startNs);
    sort += ",\"args\":{\"sort_index\":536870912}}";
    m_writer.endEvent();
    ++m_stats.metadata;
    std::string &start = m_writer.beginRaw();
    start += "{\"ph\":\"i\",\"s\":\"g\",\"name\":\"Iteration Start: PyTorch Profiler\","
             "\"pid\":\"Traces\",\"tid\":\"Trace PyTorch Profiler\",\"ts\":";
    appendKinetoMicros(start, m_startNs);
    start += '}';
    m_writer.endEvent();
    ++m_stats.globalInstants;
}

int64_t KinetoEmitter::endWindowAfterWork(HostThread main)
{
    const int64_t end = std::max(now(main), latestGpuEnd()) + 10'000;
    windowEnd(end);
    return end;
}

void KinetoEmitter::windowEnd(int64_t endNs)
{
    std::string &span = m_writer.beginRaw();
    span += "{\"ph\":\"X\",\"cat\":\"Trace\",\"name\":\"PyTorch Profiler (0)\",\"pid\":\"Spans\","
            "\"tid\":\"PyTorch Profiler\",\"ts\":";
    appendKinetoMicros(span, m_startNs);
    span += ",\"dur\":";
    appendKinetoMicros(span, endNs - m_startNs);
    span += ",\"args\":{\"Op count\":0}}";
    m_writer.endEvent();
    ++m_stats.spans;
    // Kineto writes this marker with empty pid and tid.
    std::string &window = m_writer.beginRaw();
    window += "{\"ph\":\"i\",\"s\":\"g\",\"name\":\"Record Window End\",\"pid\":\"\",\"tid\":\"\","
              "\"ts\":";
    appendKinetoMicros(window, endNs);
    window += '}';
    m_writer.endEvent();
    ++m_stats.globalInstants;
}

void KinetoEmitter::join(HostThread waiting, HostThread on)
{
    Thread &w = thread(waiting);
    w.cursor = std::max(w.cursor, thread(on).cursor) + m_random.ns(2000, 9000);
}

KinetoEmitter::Frame &KinetoEmitter::top(HostThread t)
{
    Thread &th = thread(t);
    return th.stack[th.depth - 1];
}

void KinetoEmitter::open(HostThread t, std::string_view name, OpCategory category,
                         const OpArgs &args)
{
    Thread &th = thread(t);
    if (th.stack.size() == th.depth)
        th.stack.emplace_back();
    Frame &f = th.stack[th.depth++];
    th.cursor += m_random.ns(300, 1500);
    f.name = name;
    f.category = category;
    f.start = th.cursor;
    m_args.clear();
    if (category == OpCategory::PythonFunction) {
        // The Python tracer's own ids: a frame names its caller, never an op.
        f.externalId = 0;
        f.pythonId = ++m_nextPythonId;
        for (size_t i = th.depth - 1; i-- > 0;) {
            if (th.stack[i].category == OpCategory::PythonFunction) {
                m_args.integer("Python parent id", th.stack[i].pythonId);
                break;
            }
        }
        m_args.integer("Python id", f.pythonId).integer("Ev Idx", m_evIdx++);
        f.args = m_args.text();
        th.cursor += m_random.ns(400, 2500);
        return;
    }
    f.externalId = m_nextExternalId++;
    m_args.integer("External id", f.externalId).integer("Record function id", 0);
    if (args.sequence >= 0)
        m_args.integer("Sequence number", args.sequence);
    if (args.backward)
        m_args.integer("Fwd thread id", kFwdThreadId);
    if (!args.inputDims.empty())
        m_args.raw("Input Dims", args.inputDims);
    if (!args.inputTypes.empty())
        m_args.raw("Input type", args.inputTypes);
    m_args.integer("Ev Idx", m_evIdx++).append(args.extra);
    f.args = m_args.text();
    // Dispatch overhead before the op's body starts.
    th.cursor += m_random.ns(400, 2500);
}

void KinetoEmitter::close(HostThread t)
{
    Thread &th = thread(t);
    Frame &f = th.stack[--th.depth];
    th.cursor += m_random.ns(300, 1800);
    switch (f.category) {
    case OpCategory::CpuOp:
        m_writer.complete("cpu_op", f.name, m_pid, th.tid, f.start, th.cursor - f.start, f.args);
        ++m_stats.cpuOps;
        break;
    case OpCategory::UserAnnotation:
        m_writer.complete("user_annotation", f.name, m_pid, th.tid, f.start, th.cursor - f.start,
                          f.args);
        ++m_stats.userAnnotations;
        break;
    case OpCategory::PythonFunction:
        m_writer.complete("python_function", f.name, m_pid, th.tid, f.start, th.cursor - f.start,
                          f.args);
        ++m_stats.pythonFunctions;
        break;
    }
}

uint64_t KinetoEmitter::fwdbwdStart(HostThread t)
{
    const uint64_t id = m_nextFwdBwd++;
    m_writer.flow(true, "fwdbwd", id, m_pid, tid(t), top(t).start);
    return id;
}

void KinetoEmitter::fwdbwdEnd(HostThread t, uint64_t id)
{
    m_writer.flow(false, "fwdbwd", id, m_pid, tid(t), top(t).start);
    ++m_stats.fwdbwdFlows;
}

KinetoEmitter::Queue &KinetoEmitter::queue(GpuQueue q)
{
    for (Queue &existing : m_queues) {
        if (existing.queue.device == q.device && existing.queue.stream == q.stream)
            return existing;
    }
    if (m_stats.deviceStreams.size() <= size_t(q.device)) {
        m_stats.deviceStreams.resize(size_t(q.device) + 1, 0);
        m_stats.deviceActivities.resize(size_t(q.device) + 1, 0);
    }
    ++m_stats.deviceStreams[size_t(q.device)];
    ++m_stats.streams;
    m_queues.push_back({q, 0});
    return m_queues.back();
}

int64_t KinetoEmitter::externalIdFor(HostThread t, int64_t correlation)
{
    return m_mirrorExternalIds ? correlation : top(t).externalId;
}

std::pair<int64_t, int64_t> KinetoEmitter::launch(HostThread t, std::string_view name, int cbid,
                                                  bool fromOp)
{
    Thread &th = thread(t);
    const int64_t correlation = m_nextCorrelation++;
    const int64_t start = th.cursor + m_random.ns(300, 1500);
    const int64_t duration = m_random.ns(2500, 9000);
    const int64_t externalId = fromOp || m_mirrorExternalIds ? externalIdFor(t, correlation) : 0;
    m_args.clear();
    if (externalId != 0)
        m_args.integer("External id", externalId);
    m_args.integer("cbid", cbid).integer("correlation", correlation);
    m_writer.complete("cuda_runtime", name, m_pid, th.tid, start, duration, m_args.text());
    m_writer.flow(true, "ac2g", uint64_t(correlation), m_pid, th.tid, start);
    ++m_stats.runtime;
    ++m_stats.ac2gFlows;
    th.cursor = start + duration;
    // The GPU can pick the work up before the call returns.
    return {correlation, start + duration / 2 + m_random.ns(500, 3000)};
}

int64_t KinetoEmitter::schedule(Queue &q, int64_t earliest, int64_t duration)
{
    const int64_t start = std::max({earliest, q.free + m_random.ns(500, 2500), m_chain});
    q.free = start + duration;
    m_chain = q.free;
    ++m_stats.deviceActivities[size_t(q.queue.device)];
    return start;
}

void KinetoEmitter::kernel(HostThread t, GpuQueue q, const KernelSpec &k,
                           std::array<int64_t, 3> grid, std::string_view extra)
{
    const auto [correlation, earliest] = launch(t, "cudaLaunchKernel", kCbidLaunchKernel);
    Queue &queue = this->queue(q);
    const int64_t duration = m_random.ns(int64_t(k.minUs) * 1000, int64_t(k.maxUs) * 1000);
    const int64_t start = schedule(queue, earliest, duration);
    writeKernel(externalIdFor(t, correlation), correlation, q, k, grid, start, duration, extra);
}

KernelLaunch KinetoEmitter::launchKernel(HostThread t)
{
    const auto [correlation, earliest] = launch(t, "cudaLaunchKernel", kCbidLaunchKernel);
    return {correlation, earliest, externalIdFor(t, correlation)};
}

int64_t KinetoEmitter::readyAt(GpuQueue q, int64_t earliest)
{
    return std::max({earliest, queue(q).free, m_chain});
}

void KinetoEmitter::placeKernel(const KernelLaunch &launch, GpuQueue q, const KernelSpec &k,
                                std::array<int64_t, 3> grid, int64_t start, int64_t duration,
                                std::string_view extra)
{
    Queue &queue = this->queue(q);
    queue.free = std::max(queue.free, start + duration);
    m_chain = std::max(m_chain, queue.free);
    ++m_stats.deviceActivities[size_t(q.device)];
    writeKernel(launch.externalId, launch.correlation, q, k, grid, start, duration, extra);
}

void KinetoEmitter::writeKernel(int64_t externalId, int64_t correlation, GpuQueue q,
                                const KernelSpec &k, std::array<int64_t, 3> grid, int64_t start,
                                int64_t duration, std::string_view extra)
{
    // Kineto's metrics (PYTORCH.md 1.6), with a simple occupancy-calculator stand-in for the
    // resident block limit: threads, registers, shared memory and 32 blocks per SM.
    const int64_t threads = k.block[0] * k.block[1] * k.block[2];
    const int64_t warpThreads = (threads + 31) / 32 * 32;
    int64_t active = std::min<int64_t>(m_gpu.maxThreadsPerMultiprocessor / warpThreads, 32);
    if (k.registers > 0)
        active =
            std::min<int64_t>(active, m_gpu.regsPerMultiprocessor / (k.registers * warpThreads));
    if (k.sharedMemory > 0)
        active = std::min<int64_t>(active, m_gpu.sharedMemPerMultiprocessor / k.sharedMemory);
    const double blocksPerSm = double(grid[0] * grid[1] * grid[2]) / m_gpu.numSms;
    const double occupancy =
        std::min(double(active), blocksPerSm) * double(threads) / m_gpu.maxThreadsPerMultiprocessor;

    m_args.clear();
    if (externalId != 0)
        m_args.integer("External id", externalId);
    m_args.integer("queued", 0)
        .integer("device", q.device)
        .integer("context", kContext)
        .integer("stream", q.stream)
        .integer("correlation", correlation)
        .integer("registers per thread", k.registers)
        .integer("shared memory", k.sharedMemory)
        .number("blocks per SM", blocksPerSm)
        .number("warps per SM", blocksPerSm * double(threads) / 32.0)
        .raw("grid", dim3Text(grid))
        .raw("block", dim3Text(k.block))
        .integer("est. achieved occupancy %", int64_t(0.5 + 100.0 * occupancy));
    m_args.append(extra);
    m_writer.complete("kernel", k.name, q.device, q.stream, start, duration, m_args.text());
    m_writer.flow(false, "ac2g", uint64_t(correlation), q.device, q.stream, start);
    ++m_stats.kernels;
    ++m_stats.ac2gFlowEnds;
}

void KinetoEmitter::memcpy(HostThread t, GpuQueue q, std::string_view name, int64_t bytes,
                           double gbPerS, int fromDevice)
{
    const auto [correlation, earliest] = launch(t, "cudaMemcpyAsync", kCbidMemcpyAsync);
    const int64_t duration = int64_t(double(bytes) / gbPerS) + m_random.ns(800, 2500);
    const int64_t start = schedule(queue(q), earliest, duration);
    m_args.clear();
    if (const int64_t externalId = externalIdFor(t, correlation); externalId != 0)
        m_args.integer("External id", externalId);
    if (fromDevice >= 0) {
        m_args.integer("fromDevice", fromDevice)
            .integer("inDevice", q.device)
            .integer("toDevice", q.device)
            .integer("fromContext", kContext)
            .integer("inContext", kContext)
            .integer("toContext", kContext)
            .integer("stream", q.stream)
            .integer("correlation", correlation);
    } else {
        m_args.integer("device", q.device)
            .integer("context", kContext)
            .integer("stream", q.stream)
            .integer("correlation", correlation);
    }
    // GB/s = bytes per ns.
    m_args.integer("bytes", bytes)
        .number("memory bandwidth (GB/s)", double(bytes) / double(duration));
    m_writer.complete("gpu_memcpy", name, q.device, q.stream, start, duration, m_args.text());
    m_writer.flow(false, "ac2g", uint64_t(correlation), q.device, q.stream, start);
    ++m_stats.memcpys;
    ++m_stats.ac2gFlowEnds;
}

void KinetoEmitter::memset(HostThread t, GpuQueue q, int64_t bytes)
{
    const auto [correlation, earliest] = launch(t, "cudaMemsetAsync", kCbidMemsetAsync);
    const int64_t duration = bytes / 600 + m_random.ns(900, 2200);
    const int64_t start = schedule(queue(q), earliest, duration);
    m_args.clear();
    if (const int64_t externalId = externalIdFor(t, correlation); externalId != 0)
        m_args.integer("External id", externalId);
    m_args.integer("device", q.device)
        .integer("context", kContext)
        .integer("stream", q.stream)
        .integer("correlation", correlation)
        .integer("bytes", bytes)
        .number("memory bandwidth (GB/s)", double(bytes) / double(duration));
    m_writer.complete("gpu_memset", "Memset (Device)", q.device, q.stream, start, duration,
                      m_args.text());
    m_writer.flow(false, "ac2g", uint64_t(correlation), q.device, q.stream, start);
    ++m_stats.memsets;
    ++m_stats.ac2gFlowEnds;
}

void KinetoEmitter::streamSync(HostThread t, GpuQueue q)
{
    Thread &th = thread(t);
    const int64_t start = th.cursor + m_random.ns(300, 1200);
    const int64_t end =
        std::max(start + m_random.ns(1500, 4000), queue(q).free + m_random.ns(1000, 3000));
    // No GPU record is written for the sync, so no flow either (an "s" would stay unmatched).
    const int64_t correlation = m_nextCorrelation++;
    m_args.clear();
    if (const int64_t externalId = externalIdFor(t, correlation); externalId != 0)
        m_args.integer("External id", externalId);
    m_args.integer("cbid", kCbidStreamSynchronize).integer("correlation", correlation);
    m_writer.complete("cuda_runtime", "cudaStreamSynchronize", m_pid, th.tid, start, end - start,
                      m_args.text());
    ++m_stats.runtime;
    th.cursor = end;
}

void KinetoEmitter::graphLaunch(HostThread t, GpuQueue q, const std::vector<GraphNode> &nodes,
                                int64_t graphId, int scalePercent)
{
    const auto [correlation, earliest] =
        launch(t, "cudaGraphLaunch", kCbidGraphLaunch, /*fromOp=*/false);
    const int64_t externalId = m_mirrorExternalIds ? correlation : 0;
    Queue &queue = this->queue(q);
    KinetoArgs graph;
    for (size_t n = 0; n < nodes.size(); ++n) {
        const KernelSpec &k = *nodes[n].kernel;
        const int64_t duration =
            m_random.ns(int64_t(k.minUs) * 1000, int64_t(k.maxUs) * 1000) * scalePercent / 100;
        const int64_t start = schedule(queue, earliest, duration);
        graph.clear();
        graph.integer("graph id", graphId).integer("graph node id", graphId * 4096 + int64_t(n));
        writeKernel(externalId, correlation, q, k, nodes[n].grid, start, duration, graph.text());
    }
}

void KinetoEmitter::capturedLaunch(HostThread t)
{
    launch(t, "cudaLaunchKernel", kCbidLaunchKernel);
}

void KinetoEmitter::runtimeCall(HostThread t, std::string_view name, int cbid)
{
    Thread &th = thread(t);
    const int64_t start = th.cursor + m_random.ns(300, 1500);
    const int64_t duration = m_random.ns(1500, 6000);
    m_args.clear();
    m_args.integer("cbid", cbid).integer("correlation", m_nextCorrelation++);
    m_writer.complete("cuda_runtime", name, m_pid, th.tid, start, duration, m_args.text());
    ++m_stats.runtime;
    th.cursor = start + duration;
}

Allocation KinetoEmitter::allocate(HostThread t, int device, int64_t bytes)
{
    if (size_t(device + 1) >= m_arenas.size()) {
        const size_t old = m_arenas.size();
        m_arenas.resize(size_t(device + 2));
        for (size_t i = old; i < m_arenas.size(); ++i) {
            Arena &a = m_arenas[i];
            // Below 2^53, so the addresses survive readers that parse numbers as doubles.
            a.base = i == 0 ? 0x55d4a0000000ull : 0x7f2c00000000ull + (i - 1) * 0x10000000000ull;
            a.allocated = i == 0 ? 0 : 97517568 + int64_t(i) * 1048576; // the model's weights
            a.reserved = (a.allocated + kReserveGranule - 1) / kReserveGranule * kReserveGranule;
        }
    }
    Arena &a = arena(device);
    const Allocation alloc{device, a.base + a.next, bytes};
    a.next += (uint64_t(bytes) + 511) / 512 * 512;
    a.allocated += bytes;
    a.live += 1;
    a.reserved = std::max(a.reserved,
                          (a.allocated + kReserveGranule - 1) / kReserveGranule * kReserveGranule);
    memoryEvent(t, alloc, bytes);
    return alloc;
}

void KinetoEmitter::release(HostThread t, const Allocation &alloc)
{
    Arena &a = arena(alloc.device);
    a.allocated -= alloc.bytes;
    a.live -= 1;
    memoryEvent(t, alloc, -alloc.bytes);
}

void KinetoEmitter::rewindArenas()
{
    for (Arena &a : m_arenas) {
        if (a.live == 0)
            a.next = 0;
    }
}

void KinetoEmitter::memoryEvent(HostThread t, const Allocation &alloc, int64_t signedBytes)
{
    Thread &th = thread(t);
    th.cursor += m_random.ns(100, 600);
    const Arena &a = arena(alloc.device);
    m_args.clear();
    m_args.integer("Total Reserved", a.reserved)
        .integer("Total Allocated", a.allocated)
        .integer("Bytes", signedBytes)
        .integer("Addr", int64_t(alloc.addr))
        .integer("Device Id", alloc.device)
        .integer("Device Type", alloc.device < 0 ? 0 : 1)
        .integer("Ev Idx", m_evIdx++);
    m_writer.instant("cpu_instant_event", "[memory]", m_pid, th.tid, th.cursor, m_args.text());
    th.cursor += m_random.ns(100, 400);
    ++m_stats.memoryEvents;
}

} // namespace tracedesk::core::generator
