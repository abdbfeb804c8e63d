#include "core/io/nsys/nsysimporter.h"

#include "core/base/loadcontrol.h"

#include <algorithm>
#include <cctype>
#include <set>

namespace tracedesk::core::nsys {

namespace {

constexpr uint64_t kTickRows = 4096;   // rows between cancel checks and progress reports

// Tables counted up front for progress, in reading order.
constexpr std::string_view kEventTables[] = {
    "CUPTI_ACTIVITY_KIND_KERNEL", "CUPTI_ACTIVITY_KIND_MEMCPY", "CUPTI_ACTIVITY_KIND_MEMSET",
    "CUPTI_ACTIVITY_KIND_SYNCHRONIZATION", "CUPTI_ACTIVITY_KIND_RUNTIME", "NVTX_EVENTS",
    "OSRT_API", "MPI_P2P_EVENTS", "MPI_COLLECTIVES_EVENTS", "MPI_START_WAIT_EVENTS",
    "MPI_OTHER_EVENTS", "CUBLAS_EVENTS", "CUDNN_EVENTS"};

} // namespace

std::string_view apiName(std::string_view recorded)
{
    const size_t v = recorded.rfind("_v");
    if (v == std::string_view::npos || v == 0 || v + 2 >= recorded.size())
        return recorded;
    for (size_t i = v + 2; i < recorded.size(); ++i) {
        if (!std::isdigit(static_cast<unsigned char>(recorded[i])))
            return recorded;
    }
    return recorded.substr(0, v);
}

NsysImporter::NsysImporter(NsysDatabase &db, TraceBuilder &builder, LoadControl &control)
    : m_db(db), m_builder(builder), m_control(control), m_gpu(builder)
{}

Result<bool> NsysImporter::run()
{
    for (std::string_view table : kEventTables) {
        if (!m_db.hasTable(table))
            continue;
        NsysQuery q(m_db, "SELECT count(*) FROM \"" + std::string(table) + "\"");
        if (q.next())
            m_rowsTotal += uint64_t(std::max<int64_t>(0, q.integer(0)));
        if (q.failed())
            return m_db.sqliteError("cannot be read: table " + std::string(table));
    }
    readMetadata();
    readGpus();
    readProcessesAndThreads();
    using Step = Result<bool> (NsysImporter::*)();
    for (Step step : {&NsysImporter::readKernels, &NsysImporter::readMemcpy,
                      &NsysImporter::readMemset, &NsysImporter::readSync,
                      &NsysImporter::readRuntime, &NsysImporter::readNvtx}) {
        auto done = (this->*step)();
        if (!done)
            return done;
    }
    for (auto [table, category] : {std::pair<std::string_view, std::string_view>{"OSRT_API", "osrt"},
                                   {"MPI_P2P_EVENTS", "mpi"},
                                   {"MPI_COLLECTIVES_EVENTS", "mpi"},
                                   {"MPI_START_WAIT_EVENTS", "mpi"},
                                   {"MPI_OTHER_EVENTS", "mpi"},
                                   {"CUBLAS_EVENTS", "cublas"},
                                   {"CUDNN_EVENTS", "cudnn"}}) {
        auto done = readHostRanges(std::string(table), category);
        if (!done)
            return done;
    }
    // Correlation ids are per process (CUPTI numbers them per process), so a call and its GPU
    // work meet on (pid, id).
    m_gpu.bindFlows();
    nameStreamTracks();
    if (m_fileBytes > m_bytesReported)
        m_control.addDone(m_fileBytes - m_bytesReported);
    return true;
}

uint32_t NsysImporter::processPlane(int64_t globalPid)
{
    auto it = m_processPlanes.find(globalPid);
    if (it != m_processPlanes.end())
        return it->second;
    const int64_t pid = pidOf(globalPid);
    auto named = m_processNames.find(globalPid);
    std::string name = named != m_processNames.end() && !named->second.empty()
                           ? named->second
                           : "Process " + std::to_string(pid);
    const uint32_t plane = m_builder.addPlane(name, {}, pid, PlaneKind::Host);
    m_processPlanes.emplace(globalPid, plane);
    return plane;
}

uint32_t NsysImporter::threadTrack(int64_t globalTid)
{
    auto it = m_threadTracks.find(globalTid);
    if (it != m_threadTracks.end())
        return it->second;
    const uint32_t plane = processPlane(globalPidOf(globalTid));
    const int64_t tid = tidOf(globalTid);
    auto named = m_threadNames.find(globalTid);
    std::string name = named != m_threadNames.end() && !named->second.empty()
                           ? named->second + " " + std::to_string(tid)
                           : "Thread " + std::to_string(tid);
    const uint32_t track = m_builder.addTrack(plane, name, tid);
    // The main thread (tid = pid) first, as Nsight Systems lists it.
    m_builder.track(track).sortIndex = tid == pidOf(globalTid) ? -1 : 0;
    m_threadTracks.emplace(globalTid, track);
    return track;
}

std::string NsysImporter::stringOr(std::optional<int64_t> id, std::string_view fallback,
                                   TableProblems &problems)
{
    if (!id)
        return std::string(fallback);
    if (auto s = m_db.string(*id))
        return std::string(*s);
    ++problems.unknownString;
    return "(string " + std::to_string(*id) + ")";
}

bool NsysImporter::span(const NsysQuery &q, int startColumn, int endColumn,
                        TableProblems &problems, TimePs *start, TimePs *duration)
{
    const auto s = q.optInteger(startColumn);
    if (!s) {
        ++problems.noStart;
        return false;
    }
    const NsSpan ns = spanFromNs(*s, q.optInteger(endColumn));
    problems.endBeforeStart += ns.endBeforeStart;
    *start = ns.start;
    *duration = ns.duration;
    return true;
}

Result<bool> NsysImporter::rowTick(const NsysQuery &)
{
    if (++m_rowsRead % kTickRows != 0)
        return true;
    if (m_control.cancelRequested())
        return Result<bool>::cancelled();
    if (m_rowsTotal > 0 && m_fileBytes > 0) {
        const uint64_t target =
            uint64_t(double(m_fileBytes) * double(std::min(m_rowsRead, m_rowsTotal))
                     / double(m_rowsTotal));
        if (target > m_bytesReported) {
            m_control.addDone(target - m_bytesReported);
            m_bytesReported = target;
        }
    }
    return true;
}

Result<bool> NsysImporter::finishTable(const NsysQuery &q, std::string_view table,
                                       const TableProblems &p)
{
    if (q.failed())
        return m_db.sqliteError("cannot be read: table " + std::string(table));
    if (m_control.cancelRequested())
        return Result<bool>::cancelled();
    const std::string t(table);
    LoadInfo &info = m_builder.info();
    info.recordsByPhase[t] = m_rowsRead - m_tableStartRows;
    m_tableStartRows = m_rowsRead;
    if (p.noStart)
        info.warn(t + ": " + std::to_string(p.noStart) + " rows without a start time skipped");
    if (p.noThread)
        info.warn(t + ": " + std::to_string(p.noThread)
                  + " rows without a thread, process or device skipped");
    if (p.endBeforeStart)
        info.warn(t + ": " + std::to_string(p.endBeforeStart)
                  + " rows end before they start (kept with zero duration)");
    if (p.unknownString)
        info.warn(t + ": " + std::to_string(p.unknownString)
                  + " names refer to a string id the export lacks (shown as \"(string N)\")");
    if (p.unclosed)
        info.warn(t + ": " + std::to_string(p.unclosed)
                  + " ranges never ended (kept with zero duration)");
    return true;
}

void NsysImporter::nameStreamTracks()
{
    // A stream id is per process: when several processes use one GPU, their streams are told
    // apart by pid.
    std::map<int64_t, std::set<int64_t>> pidsPerDevice;
    for (const auto &[key, track] : m_streamTracks)
        pidsPerDevice[key.device].insert(key.globalPid);
    for (const auto &[key, track] : m_streamTracks) {
        // Nsight Systems draws these on the device's own row, not as a stream.
        std::string name = key.stream == kNoStream ? std::string("Synchronization (no stream)")
                                                   : "Stream " + std::to_string(key.stream);
        if (pidsPerDevice[key.device].size() > 1)
            name += " (pid " + std::to_string(pidOf(key.globalPid)) + ")";
        m_builder.track(track).name = m_builder.intern(name);
    }
}

} // namespace tracedesk::core::nsys
