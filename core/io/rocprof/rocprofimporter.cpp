#include "core/io/rocprof/rocprofimporter.h"

#include "core/base/asciilower.h"

#include <algorithm>
#include <set>

namespace tracedesk::core::rocprof {

namespace {

bool startsWith(std::string_view s, std::string_view prefix)
{
    return s.substr(0, prefix.size()) == prefix;
}

// "MEMORY_COPY_HOST_TO_DEVICE" -> "Memcpy HtoD": named as Kineto and Nsight Systems name copies,
// so a copy's name means the same whichever profiler recorded it.
std::string copyName(std::string_view direction)
{
    std::string_view d = direction;
    if (startsWith(d, "MEMORY_COPY_"))
        d.remove_prefix(12);
    static constexpr std::pair<std::string_view, std::string_view> kShort[] = {
        {"HOST_TO_DEVICE", "HtoD"}, {"DEVICE_TO_HOST", "DtoH"}, {"DEVICE_TO_DEVICE", "DtoD"},
        {"HOST_TO_HOST", "HtoH"},   {"NONE", "Unknown"}};
    for (const auto &[from, to] : kShort) {
        if (d == from)
            return "Memcpy " + std::string(to);
    }
    return d.empty() ? std::string("Memcpy") : "Memcpy " + std::string(d);
}

// What a host call is to the analyses, from the domain rocprofv3 files it under.
struct Domain
{
    std::string category;
    SliceRole role;
    std::string_view phase;   // the record list it counts under, as the JSON document names it
};

Domain domainOf(std::string_view domain, bool marker)
{
    if (marker || startsWith(domain, "MARKER_"))
        return {"roctx", SliceRole::UserAnnotation, "marker_api"};
    if (startsWith(domain, "HIP_RUNTIME"))
        return {"hip_runtime", SliceRole::Runtime, "hip_api"};
    if (startsWith(domain, "HIP_COMPILER"))
        return {"hip_compiler", SliceRole::Runtime, "hip_api"};
    if (startsWith(domain, "HSA_"))
        return {"hsa_api", SliceRole::Runtime, "hsa_api"};
    if (startsWith(domain, "RCCL"))
        return {"rccl_api", SliceRole::None, "rccl_api"};
    std::string c = domain.empty() ? std::string("api") : asciiLower(domain);
    return {c, SliceRole::None, {}};
}

} // namespace

RocprofImporter::RocprofImporter(TraceBuilder &builder) : m_builder(builder), m_gpu(builder)
{
    m_keyDispatch = builder.intern("dispatch id");
    m_keyKernelId = builder.intern("kernel id");
    m_keyQueue = builder.intern("queue");
    m_keyScratch = builder.intern("scratch bytes");
    m_keyAccumVgprs = builder.intern("accum VGPRs");
    m_keySgprs = builder.intern("SGPRs");
    m_keyAddress = builder.intern("address");
    m_keySource = builder.intern("source agent");
    m_keyDestination = builder.intern("destination agent");
}

void RocprofImporter::setOrigin(int64_t ns)
{
    m_origin = ns;
    m_builder.info().run.clockOriginNs = ns;
}

void RocprofImporter::beginScope(int64_t scope, std::string label)
{
    m_scope = scope;
    m_scopeLabels[scope] = std::move(label);
}

void RocprofImporter::addAgent(const Agent &a)
{
    m_agents[a.key] = a;
    if (!a.gpu)
        return;
    RunMetadata &run = m_builder.info().run;
    if (run.device(a.device))
        return;
    GpuDeviceInfo d;
    d.id = a.device;
    d.name = a.product.empty() ? a.name : a.product;
    d.totalGlobalMemBytes = a.memoryBytes;
    d.numSms = a.computeUnits;
    d.warpSize = a.wavefrontSize;
    if (a.maxWavesPerCu > 0 && a.maxWavesPerCu < 4096 && a.wavefrontSize > 0
        && a.wavefrontSize < 4096)
        d.maxThreadsPerMultiprocessor = a.maxWavesPerCu * a.wavefrontSize;
    run.devices.push_back(std::move(d));
}

void RocprofImporter::nameProcess(int64_t pid, std::string name)
{
    m_processNames[pid] = std::move(name);
}

const Agent &RocprofImporter::agent(int64_t key)
{
    auto it = m_agents.find(key);
    if (it == m_agents.end()) {
        // Only named by its number (a CSV set without agent_info): shown by that number.
        Agent a;
        a.key = key;
        a.device = key;
        it = m_agents.emplace(key, std::move(a)).first;
    }
    return it->second;
}

uint32_t RocprofImporter::devicePlane(const Agent &a)
{
    if (m_gpu.hasDevicePlane(a.device))
        return m_gpu.devicePlane(a.device);
    std::string name;
    if (!a.name.empty() && a.gpu)
        name = "GPU " + std::to_string(a.device) + " (" + a.name + ")";
    else if (!a.gpu)
        name = "CPU agent " + std::to_string(a.key);
    else if (a.gpuKnown)
        name = "GPU " + std::to_string(a.device);
    else
        name = "Agent " + std::to_string(a.device);
    return m_gpu.devicePlane(a.device, name);
}

uint32_t RocprofImporter::deviceTrack(const Agent &a, int64_t queue, std::string_view name,
                                      int32_t order)
{
    if (name.empty()) {
        const QueueKey key{m_scope, a.device, queue};
        if (auto it = m_queueTracks.find(key); it != m_queueTracks.end())
            return it->second;
        // Named once every queue is known (nameQueueTracks).
        const uint32_t track = m_builder.addTrack(devicePlane(a), {}, queue);
        m_builder.track(track).sortIndex = int32_t(std::clamp<int64_t>(queue, 0, INT32_MAX / 2));
        m_queueTracks.emplace(key, track);
        return track;
    }
    const auto key = std::make_tuple(m_scope, a.device, std::string(name));
    if (auto it = m_namedTracks.find(key); it != m_namedTracks.end())
        return it->second;
    const uint32_t track = m_builder.addTrack(devicePlane(a), name, -1);
    m_builder.track(track).sortIndex = order;
    m_namedTracks.emplace(key, track);
    return track;
}

uint32_t RocprofImporter::threadTrack(int64_t pid, int64_t tid)
{
    const auto key = std::make_pair(pid, tid);
    if (auto it = m_threadTracks.find(key); it != m_threadTracks.end())
        return it->second;
    auto plane = m_processPlanes.find(pid);
    if (plane == m_processPlanes.end()) {
        auto named = m_processNames.find(pid);
        const std::string name = named != m_processNames.end() && !named->second.empty()
                                     ? named->second + " (pid " + std::to_string(pid) + ")"
                                     : "Process " + std::to_string(pid);
        plane = m_processPlanes.emplace(pid, m_builder.addPlane(name, {}, pid, PlaneKind::Host))
                    .first;
    }
    const uint32_t track = m_builder.addTrack(plane->second, "Thread " + std::to_string(tid), tid);
    // The main thread (tid = pid) first.
    m_builder.track(track).sortIndex = tid == pid ? -1 : 0;
    m_threadTracks.emplace(key, track);
    return track;
}

NsSpan RocprofImporter::span(int64_t startNs, std::optional<int64_t> endNs)
{
    const NsSpan s = spanFromNs(startNs, endNs, m_origin);
    m_endBeforeStart += s.endBeforeStart;
    return s;
}

void RocprofImporter::count(std::string_view phase)
{
    ++m_builder.info().recordsByPhase[std::string(phase)];
}

void RocprofImporter::addDispatch(const KernelDispatch &d)
{
    count("kernel_dispatch");
    const Agent &a = agent(d.agent);
    GpuActivityStager::Activity act;
    const NsSpan s = span(d.startNs, d.endNs);
    act.start = s.start;
    act.duration = s.duration;
    act.device = a.device;
    act.stream = d.stream;
    act.track = deviceTrack(a, d.queue, {}, 0);
    act.correlation = d.correlation;
    act.scope = m_scope;
    TrackBuilder &tb = m_builder.trackBuilder(act.track);
    ArgsArena::Writer args(tb.args());
    if (d.dispatchId >= 0)
        args.addInt(m_keyDispatch, d.dispatchId);
    if (d.kernelId >= 0)
        args.addInt(m_keyKernelId, d.kernelId);
    args.addInt(m_keyQueue, d.queue);
    if (d.scratchBytes)
        args.addInt(m_keyScratch, *d.scratchBytes);
    if (d.accumVgprs)
        args.addInt(m_keyAccumVgprs, *d.accumVgprs);
    if (d.sgprs)
        args.addInt(m_keySgprs, *d.sgprs);
    const uint32_t staged =
        m_gpu.addActivity(act, d.name.empty() ? std::string_view("(unnamed kernel)") : d.name,
                          "kernel", SliceRole::Kernel, args.finish());
    if (d.vgprs)
        tb.setSide(staged, SideColumn::Registers, *d.vgprs);
    if (d.ldsBytes)
        tb.setSide(staged, SideColumn::SharedMemory, *d.ldsBytes);
    if (d.grid.x >= 0)
        tb.setSide(staged, SideColumn::Grid, packDim3(d.grid.x, d.grid.y, d.grid.z));
    if (d.workgroup.x >= 0)
        tb.setSide(staged, SideColumn::Block,
                   packDim3(d.workgroup.x, d.workgroup.y, d.workgroup.z));
}

void RocprofImporter::addApiCall(const ApiCall &c)
{
    const Domain domain = domainOf(c.domain, c.marker);
    count(domain.phase.empty() ? std::string_view(domain.category) : domain.phase);
    const uint32_t track = threadTrack(c.pid, c.tid);
    const NsSpan s = span(c.startNs, c.endNs);
    TrackBuilder &tb = m_builder.trackBuilder(track);
    const std::string_view name =
        c.function.empty() ? std::string_view("(unnamed call)") : c.function;
    const uint32_t staged = tb.addSlice(
        s.start, s.duration,
        m_gpu.kindFor(name, domain.category, domain.role, m_builder.track(track).plane));
    if (c.correlation) {
        tb.setSide(staged, SideColumn::CorrelationId, *c.correlation);
        if (domain.role == SliceRole::Runtime)
            m_gpu.noteLaunch(m_scope, *c.correlation, track, staged);
    }
}

void RocprofImporter::addMemoryCopy(const MemoryCopy &c)
{
    count("memory_copy");
    // A copy belongs to the GPU that takes part: the destination of a copy to a device, else
    // the source.
    const bool toDevice = c.direction.find("TO_DEVICE") != std::string_view::npos;
    int64_t key = toDevice ? c.dstAgent : c.srcAgent;
    if (key < 0 || !agent(key).gpu)
        key = key == c.dstAgent ? c.srcAgent : c.dstAgent;
    if (key < 0)
        key = std::max(c.srcAgent, c.dstAgent);
    const Agent &a = agent(key);
    GpuActivityStager::Activity act;
    const NsSpan s = span(c.startNs, c.endNs);
    act.start = s.start;
    act.duration = s.duration;
    act.device = a.device;
    act.stream = c.stream;
    act.track = deviceTrack(a, -1, "Memory copies", INT32_MAX / 2);
    act.correlation = c.correlation;
    act.scope = m_scope;
    TrackBuilder &tb = m_builder.trackBuilder(act.track);
    ArgsArena::Writer args(tb.args());
    if (c.srcAgent >= 0)
        args.addInt(m_keySource, agent(c.srcAgent).device);
    if (c.dstAgent >= 0)
        args.addInt(m_keyDestination, agent(c.dstAgent).device);
    const uint32_t staged =
        m_gpu.addActivity(act, copyName(c.direction), "memcpy", SliceRole::Memcpy, args.finish());
    if (c.bytes)
        tb.setSide(staged, SideColumn::Bytes, *c.bytes);
}

void RocprofImporter::addMemoryOperation(const MemoryOperation &op)
{
    count(op.category);
    const Agent &a = agent(op.agent);
    const bool scratch = op.category == "scratch_memory";
    const uint32_t track = deviceTrack(a, -1, scratch ? "Scratch memory" : "Memory allocations",
                                       INT32_MAX / 2 + (scratch ? 2 : 1));
    const NsSpan s = span(op.startNs, op.endNs);
    TrackBuilder &tb = m_builder.trackBuilder(track);
    ArgsArena::Writer args(tb.args());
    if (!op.address.empty())
        args.addString(m_keyAddress, op.address);
    // Not GPU activity: a plain range, so utilisation and the kernel views leave it out.
    const uint32_t staged = tb.addSlice(
        s.start, s.duration,
        m_gpu.kindFor(op.operation.empty() ? op.category : op.operation, op.category,
                      SliceRole::None, devicePlane(a)),
        args.finish());
    if (op.bytes)
        tb.setSide(staged, SideColumn::Bytes, *op.bytes);
}

void RocprofImporter::addCounterSample(const CounterSample &c)
{
    count("counter_collection");
    const Agent &a = agent(c.agent);
    const auto key = std::make_pair(a.device, std::string(c.counter));
    auto it = m_counterTracks.find(key);
    if (it == m_counterTracks.end()) {
        const uint32_t track =
            m_builder.addTrack(devicePlane(a), c.counter, -1, TrackType::Counter);
        m_builder.track(track).sortIndex = INT32_MAX / 2 + 3;
        it = m_counterTracks.emplace(key, track).first;
    }
    const NsSpan s = span(c.startNs, c.endNs);
    TrackBuilder &tb = m_builder.trackBuilder(it->second);
    tb.addCounterSample(s.start, c.value);
    if (s.duration > 0)
        tb.addCounterSample(s.start + s.duration, 0);
}

void RocprofImporter::nameQueueTracks()
{
    // Queue ids are per process: when several processes share a GPU, their queues are told
    // apart by the process.
    std::map<int64_t, std::set<int64_t>> scopesPerDevice;
    for (const auto &[key, track] : m_queueTracks)
        scopesPerDevice[key.device].insert(key.scope);
    for (const auto &[key, track] : m_queueTracks) {
        std::string name = "Queue " + std::to_string(key.queue);
        if (scopesPerDevice[key.device].size() > 1 && !m_scopeLabels[key.scope].empty())
            name += " (" + m_scopeLabels[key.scope] + ")";
        m_builder.track(track).name = m_builder.intern(name);
    }
}

void RocprofImporter::finish(const std::string &source)
{
    m_gpu.bindFlows();
    nameQueueTracks();
    LoadInfo &info = m_builder.info();
    if (m_endBeforeStart)
        info.warn(source + ": " + std::to_string(m_endBeforeStart)
                  + " records end before they start (kept with zero duration)");
}

} // namespace tracedesk::core::rocprof
