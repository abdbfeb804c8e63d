#pragma once

// NsysImporter: an Nsight Systems SQLite export mapped into the store's one model, the way the
// Kineto reader maps a PyTorch trace, so the analyses read roles and side columns and never the
// format.
//
// - Processes and threads come from `globalTid` / `globalPid` (pid = bits 24-47, tid = bits
//   0-23): a host plane per process (PROCESSES names it), a track per thread (ThreadNames).
// - GPUs are device planes `GPU N` (N = deviceId), one track per (process, stream): CUPTI
//   kernels (role Kernel, with grid, block, registers and shared memory), memcpy, memset and
//   synchronisation, each with its correlation id, stream and device as side columns.
// - CUDA runtime and driver calls (one RUNTIME table) are Runtime slices on their threads and
//   are bound to their GPU activities by (process, correlation id) as flows, 1:N.
// - NVTX push/pop and start/end ranges are user annotations on the thread that opened them
//   (text inline or by string id), marks are instants; the domain names the category (nsys's
//   MPI tracing writes its calls as an `MPI` domain). PyTorch's emit_nvtx ranges
//   (`aten::mm, seq = 12, ...`) are CPU operators named by their operator. OS runtime, MPI, cuBLAS and cuDNN tables
//   are ranges on their threads.
// - Times are ns from the session start; the store keeps them (x1000, ps) from that origin and
//   RunMetadata::clockOriginNs holds the session's UTC start, which puts exports of one job on
//   one clock.
//
// A row without a start or a thread is dropped and counted, an end before its start is kept at
// zero length and counted, an unknown string id reads as "(string N)" and is counted: each
// count is one load warning naming the table. One thread; run() once.

#include "core/io/gpuactivitystager.h"
#include "core/io/nsys/nsysdatabase.h"
#include "core/model/tracebuilder.h"

#include <map>
#include <string>
#include <tuple>
#include <unordered_map>
#include <vector>

namespace tracedesk::core {
class LoadControl;
}

namespace tracedesk::core::nsys {

// CUPTI stream ids are 32-bit; a record that belongs to no stream (an event or context
// synchronisation) carries 0xFFFFFFFF.
inline constexpr int64_t kNoStream = 0xFFFFFFFF;

class NsysImporter
{
public:
    NsysImporter(NsysDatabase &db, TraceBuilder &builder, LoadControl &control);

    // The export's size, so progress is reported in bytes as every reader does.
    void setFileBytes(uint64_t bytes) { m_fileBytes = bytes; }
    // Reads every table it knows. Error: the file cannot be read (corrupt page, I/O), or the
    // load was cancelled (Error::cancelled).
    Result<bool> run();

private:
    // Problems of one table, reported as one warning each.
    struct TableProblems
    {
        uint64_t noStart = 0;
        uint64_t noThread = 0;
        uint64_t endBeforeStart = 0;
        uint64_t unknownString = 0;
        uint64_t unclosed = 0;
    };

    // Metadata (nsysmetadata.cpp)
    void readMetadata();
    void readGpus();
    void readProcessesAndThreads();

    // GPU activities (nsysgpu.cpp)
    Result<bool> readKernels();
    Result<bool> readMemcpy();
    Result<bool> readMemset();
    Result<bool> readSync();
    uint32_t streamTrack(int64_t device, int64_t globalPid, int64_t stream);
    // A row of a GPU activity table, whose query selects start, end, deviceId, streamId,
    // correlationId and globalPid first (kActivityStart .. kActivityPid).
    struct ActivityRow
    {
        TimePs start = 0, duration = 0;
        int64_t device = 0, globalPid = 0, stream = 0;
        uint32_t track = 0;
    };
    // False (counted) for a row without a start; else its times, ids and stream track.
    bool activityRow(const NsysQuery &q, TableProblems &problems, ActivityRow *row);
    // Stages the activity on its stream track (GpuActivityStager::addActivity), bound to its
    // launch by (process, correlation id). Returns the staged index.
    uint32_t addActivity(const NsysQuery &q, const ActivityRow &row, std::string_view name,
                         std::string_view category, SliceRole role, ArgsRef args = kNoArgs);

    // Host ranges (nsyshost.cpp)
    Result<bool> readRuntime();
    Result<bool> readNvtx();
    Result<bool> readHostRanges(const std::string &table, std::string_view category);

    // Shared (nsysimporter.cpp)
    uint32_t threadTrack(int64_t globalTid);
    uint32_t processPlane(int64_t globalPid);
    uint32_t kindFor(std::string_view name, std::string_view category, SliceRole role,
                     uint32_t plane)
    {
        return m_gpu.kindFor(name, category, role, plane);
    }
    // The string `id` names; "(string N)" counted as unknown when the export lacks it.
    std::string stringOr(std::optional<int64_t> id, std::string_view fallback,
                         TableProblems &problems);
    // Start and duration in ps from a row's ns; false (counted) when the row has no start.
    bool span(const NsysQuery &q, int startColumn, int endColumn, TableProblems &problems,
              TimePs *start, TimePs *duration);
    Result<bool> rowTick(const NsysQuery &q);
    Result<bool> finishTable(const NsysQuery &q, std::string_view table,
                             const TableProblems &problems);
    void nameStreamTracks();

    NsysDatabase &m_db;
    TraceBuilder &m_builder;
    LoadControl &m_control;
    GpuActivityStager m_gpu;
    uint64_t m_rowsRead = 0;
    uint64_t m_tableStartRows = 0;
    uint64_t m_rowsTotal = 0;
    uint64_t m_bytesReported = 0;
    uint64_t m_fileBytes = 0;

    std::unordered_map<int64_t, uint32_t> m_processPlanes;   // globalPid -> plane
    std::unordered_map<int64_t, std::string> m_processNames;  // globalPid -> name
    std::unordered_map<int64_t, uint32_t> m_threadTracks;     // globalTid -> track
    std::unordered_map<int64_t, std::string> m_threadNames;   // globalTid -> name
    struct StreamKey
    {
        int64_t device, globalPid, stream;
        bool operator<(const StreamKey &o) const
        {
            return std::tie(device, globalPid, stream) < std::tie(o.device, o.globalPid, o.stream);
        }
    };
    std::map<StreamKey, uint32_t> m_streamTracks;
    std::map<int64_t, std::string> m_memcpyKinds;              // copyKind -> label
    std::map<int64_t, std::string> m_nvtxDomains;              // domainId -> name
};

// Process and thread of a globalTid / globalPid: pid = bits 24-47, tid = bits 0-23.
inline int64_t pidOf(int64_t globalId)
{
    return (globalId >> 24) & 0xFFFFFF;
}
inline int64_t tidOf(int64_t globalTid)
{
    return globalTid & 0xFFFFFF;
}
// The globalPid a globalTid belongs to (its thread bits cleared).
inline int64_t globalPidOf(int64_t globalTid)
{
    return globalTid & ~int64_t(0xFFFFFF);
}

// "cudaMemcpy_v3020" -> "cudaMemcpy": the versioned entry point nsys records, named as the API
// documents it (nsys's own reports strip the suffix the same way).
std::string_view apiName(std::string_view recorded);

} // namespace tracedesk::core::nsys
