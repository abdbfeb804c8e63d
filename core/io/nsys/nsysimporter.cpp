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
    : m_db(db), m_builder(builder), m_control(control)
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
    bindFlows();
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

uint32_t NsysImporter::kindFor(std::string_view name, std::string_view category, SliceRole role,
                               uint32_t plane)
{
    const StringId n = m_builder.intern(name);
    const StringId c = m_builder.intern(category);
    const auto key = std::make_tuple(n, c, uint8_t(role), plane);
    auto it = m_kinds.find(key);
    if (it != m_kinds.end())
        return it->second;
    EventKind kind;
    kind.name = n;
    kind.category = c;
    kind.role = role;
    kind.plane = plane;
    const uint32_t index = m_builder.addKind(kind);
    m_kinds.emplace(key, index);
    return index;
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
    const auto e = q.optInteger(endColumn);
    int64_t ns = 0;
    if (e && *e >= *s) {
        if (__builtin_sub_overflow(*e, *s, &ns))
            ns = 0;
    } else if (e) {
        ++problems.endBeforeStart;
    }
    // The TrackBuilder clamps what lies beyond the store's time range (and counts it).
    if (__builtin_mul_overflow(*s, int64_t(1000), start))
        *start = *s < 0 ? -kTimeLimitPs : kTimeLimitPs;
    if (__builtin_mul_overflow(ns, int64_t(1000), duration))
        *duration = kTimeLimitPs;
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

void NsysImporter::noteActivity(int64_t globalPid, int64_t correlation, uint32_t track,
                                uint32_t staged)
{
    m_activities.push_back({{pidOf(globalPid), correlation}, Staged{track, staged}});
}

void NsysImporter::bindFlows()
{
    // Correlation ids are per process (CUPTI numbers them per process), so a call and its GPU
    // work meet on (pid, id); a graph launch binds to each of its kernels.
    const StringId category = m_builder.intern("ac2g");
    for (const auto &[key, activity] : m_activities) {
        auto it = m_launches.find(key);
        if (it == m_launches.end())
            continue;
        m_builder.addFlowBetween(it->second.track, it->second.staged, activity.track,
                                 activity.staged, uint64_t(key.second), category);
    }
    m_launches.clear();
    m_activities.clear();
}

void NsysImporter::nameStreamTracks()
{
    // A stream id is per process: when several processes use one GPU, their streams are told
    // apart by pid.
    std::map<int64_t, std::set<int64_t>> pidsPerDevice;
    for (const auto &[key, track] : m_streamTracks)
        pidsPerDevice[key.device].insert(key.globalPid);
    for (const auto &[key, track] : m_streamTracks) {
        std::string name = "Stream " + std::to_string(key.stream);
        if (pidsPerDevice[key.device].size() > 1)
            name += " (pid " + std::to_string(pidOf(key.globalPid)) + ")";
        m_builder.track(track).name = m_builder.intern(name);
    }
}

} // namespace tracedesk::core::nsys
