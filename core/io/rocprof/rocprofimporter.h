#pragma once

// RocprofImporter: rocprofv3's records (rocprofrecords.h) mapped into the store's one model, the
// way the Nsight Systems reader maps CUPTI's, so the analyses read roles and side columns and
// never the format. The format readers (JSON document, CSV set, rocpd database) decode records
// and hand them over one at a time; nothing here knows where they came from.
//
// - Agents that ran GPU work are device planes (`GPU N` when the GPU index is known, else
//   `Agent N`), one track per (process, queue): kernel dispatches (role Kernel, with grid,
//   workgroup, VGPRs and LDS as the Kineto side columns), a `Memory copies` track (role Memcpy),
//   memory allocation and scratch-memory tracks, and a counter track per collected counter
//   (its value over each dispatch, 0 between dispatches).
// - Host API calls are slices on their threads (a host plane per process): HIP and HSA calls are
//   Runtime slices, roctx markers user annotations (a mark is an instant), other domains (RCCL,
//   rocDecode, ...) plain ranges in a category named after the domain.
// - A call and the dispatches and copies it enqueued share rocprofv3's correlation id, numbered
//   per process: they are bound as flows (GpuActivityStager), 1:N for graph launches.
// - Times are rocprofv3's ns; the store keeps them (x1000, ps) from setOrigin(), and
//   RunMetadata::clockOriginNs holds that origin.
//
// An end before its start is kept at zero length and counted: each count is one load warning
// naming the source. One thread; finish() once.

#include "core/io/gpuactivitystager.h"
#include "core/io/rocprof/rocprofrecords.h"

#include <map>
#include <string>
#include <tuple>
#include <unordered_map>

namespace tracedesk::core::rocprof {

class RocprofImporter
{
public:
    explicit RocprofImporter(TraceBuilder &builder);

    // Time 0 on rocprofv3's clock, in ns.
    void setOrigin(int64_t ns);
    // Records that follow belong to this scope (what correlation ids are numbered per: a
    // process), labelled to tell its queues apart from another scope's on a shared GPU.
    void beginScope(int64_t scope, std::string label);
    void addAgent(const Agent &agent);
    void nameProcess(int64_t pid, std::string name);

    void addDispatch(const KernelDispatch &d);
    void addApiCall(const ApiCall &c);
    void addMemoryCopy(const MemoryCopy &c);
    void addMemoryOperation(const MemoryOperation &op);
    void addCounterSample(const CounterSample &s);

    // Binds launches to their GPU work, names the queue tracks, and reports what was mended as
    // warnings naming `source`.
    void finish(const std::string &source);

private:
    struct QueueKey
    {
        int64_t scope, device, queue;
        bool operator<(const QueueKey &o) const
        {
            return std::tie(scope, device, queue) < std::tie(o.scope, o.device, o.queue);
        }
    };

    const Agent &agent(int64_t key);
    uint32_t devicePlane(const Agent &a);
    uint32_t deviceTrack(const Agent &a, int64_t queue, std::string_view name, int32_t order);
    uint32_t threadTrack(int64_t pid, int64_t tid);
    NsSpan span(int64_t startNs, std::optional<int64_t> endNs);
    void count(std::string_view phase);
    void nameQueueTracks();

    TraceBuilder &m_builder;
    GpuActivityStager m_gpu;
    int64_t m_origin = 0;
    int64_t m_scope = 0;
    std::map<int64_t, std::string> m_scopeLabels;
    std::map<int64_t, Agent> m_agents;
    std::map<int64_t, std::string> m_processNames;
    std::unordered_map<int64_t, uint32_t> m_processPlanes;
    std::map<std::pair<int64_t, int64_t>, uint32_t> m_threadTracks;
    std::map<QueueKey, uint32_t> m_queueTracks;          // dispatch queues
    std::map<std::tuple<int64_t, int64_t, std::string>, uint32_t> m_namedTracks;
    std::map<std::pair<int64_t, std::string>, uint32_t> m_counterTracks;
    uint64_t m_endBeforeStart = 0;
    StringId m_keyDispatch = 0, m_keyKernelId = 0, m_keyQueue = 0, m_keyScratch = 0,
             m_keyAccumVgprs = 0, m_keySgprs = 0, m_keyAddress = 0, m_keySource = 0,
             m_keyDestination = 0;
};

} // namespace tracedesk::core::rocprof
