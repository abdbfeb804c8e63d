// GPU activities of an Nsight Systems export (CUPTI kernel, memcpy, memset and synchronisation
// records) on device planes, one track per stream, with the side columns the kernel analyses
// read.

#include "core/io/nsys/nsysimporter.h"

#include <array>

namespace tracedesk::core::nsys {

namespace {

// The columns every activity query selects first, in this order.
enum ActivityColumn { kActivityStart, kActivityEnd, kActivityDevice, kActivityStream,
                      kActivityCorrelation, kActivityPid };

std::string memcpyName(int64_t kind, const std::map<int64_t, std::string> &labels)
{
    // CUpti_ActivityMemcpyKind, named as Kineto and Nsight Systems abbreviate them.
    static constexpr std::array<std::string_view, 14> kShort = {
        "Unknown", "HtoD", "DtoH", "HtoA", "AtoH", "AtoA", "AtoD",
        "DtoA",    "DtoD", "HtoH", "PtoP", "HtoD (UVM)", "DtoH (UVM)", "DtoD (UVM)"};
    if (kind >= 0 && kind < int64_t(kShort.size()))
        return "Memcpy " + std::string(kShort[size_t(kind)]);
    if (auto it = labels.find(kind); it != labels.end())
        return "Memcpy " + it->second;
    return "Memcpy (kind " + std::to_string(kind) + ")";
}

std::string_view syncName(std::optional<int64_t> type)
{
    // CUpti_ActivitySynchronizationType.
    switch (type.value_or(0)) {
    case 1: return "Event Sync";
    case 2: return "Stream Wait Event";
    case 3: return "Stream Sync";
    case 4: return "Context Sync";
    default: return "Sync";
    }
}

} // namespace

uint32_t NsysImporter::streamTrack(int64_t device, int64_t globalPid, int64_t stream)
{
    const StreamKey key{device, globalPid, stream};
    if (auto it = m_streamTracks.find(key); it != m_streamTracks.end())
        return it->second;
    // Named once every stream is known (nameStreamTracks).
    const uint32_t track =
        m_builder.addTrack(m_gpu.devicePlane(device), {}, stream == kNoStream ? -1 : stream);
    m_builder.track(track).sortIndex = stream == kNoStream ? INT32_MAX : int32_t(stream & 0xFFFFFF);
    m_streamTracks.emplace(key, track);
    return track;
}

bool NsysImporter::activityRow(const NsysQuery &q, TableProblems &problems, ActivityRow *row)
{
    if (!span(q, kActivityStart, kActivityEnd, problems, &row->start, &row->duration))
        return false;
    row->device = q.optInteger(kActivityDevice).value_or(0);
    row->globalPid = q.optInteger(kActivityPid).value_or(0);
    row->stream = q.optInteger(kActivityStream).value_or(kNoStream);
    row->track = streamTrack(row->device, row->globalPid, row->stream);
    return true;
}

uint32_t NsysImporter::addActivity(const NsysQuery &q, const ActivityRow &row,
                                   std::string_view name, std::string_view category,
                                   SliceRole role, ArgsRef args)
{
    GpuActivityStager::Activity a;
    a.start = row.start;
    a.duration = row.duration;
    a.device = row.device;
    a.stream = row.stream == kNoStream ? -1 : row.stream;
    a.track = row.track;
    a.correlation = q.optInteger(kActivityCorrelation);
    a.scope = pidOf(row.globalPid);
    return m_gpu.addActivity(a, name, category, role, args);
}

Result<bool> NsysImporter::readKernels()
{
    const std::string_view t = "CUPTI_ACTIVITY_KIND_KERNEL";
    if (!m_db.hasTable(t))
        return true;
    enum { Start, End, Device, Stream, Correlation, Pid, Demangled, Short, Mangled, Registers,
           GridX, GridY, GridZ, BlockX, BlockY, BlockZ, StaticShared, DynamicShared, GraphNode };
    NsysQuery q(m_db, "SELECT "
                          + m_db.selectList(t, {"start", "end", "deviceId", "streamId",
                                                "correlationId", "globalPid", "demangledName",
                                                "shortName", "mangledName", "registersPerThread",
                                                "gridX", "gridY", "gridZ", "blockX", "blockY",
                                                "blockZ", "staticSharedMemory",
                                                "dynamicSharedMemory", "graphNodeId"})
                          + " FROM " + std::string(t));
    TableProblems problems;
    const StringId shortKey = m_builder.intern("short name");
    const StringId graphNodeKey = m_builder.intern("graph node");
    while (q.next()) {
        if (auto tick = rowTick(q); !tick)
            return tick;
        ActivityRow row;
        if (!activityRow(q, problems, &row))
            continue;
        std::optional<int64_t> nameId = q.optInteger(Demangled);
        if (!nameId)
            nameId = q.optInteger(Short);
        if (!nameId)
            nameId = q.optInteger(Mangled);
        const std::string name = stringOr(nameId, "(unnamed kernel)", problems);
        TrackBuilder &tb = m_builder.trackBuilder(row.track);
        ArgsArena::Writer args(tb.args());
        if (auto shortId = q.optInteger(Short); shortId && shortId != nameId) {
            if (auto s = m_db.string(*shortId))
                args.addString(shortKey, *s);
        }
        if (auto node = q.optInteger(GraphNode); node && *node != 0)
            args.addInt(graphNodeKey, *node);
        const uint32_t staged =
            addActivity(q, row, name, "kernel", SliceRole::Kernel, args.finish());
        if (auto r = q.optInteger(Registers))
            tb.setSide(staged, SideColumn::Registers, *r);
        if (!q.isNull(StaticShared) || !q.isNull(DynamicShared))
            tb.setSide(staged, SideColumn::SharedMemory,
                       q.optInteger(StaticShared).value_or(0) + q.optInteger(DynamicShared).value_or(0));
        if (!q.isNull(GridX))
            tb.setSide(staged, SideColumn::Grid,
                       packDim3(q.integer(GridX), q.optInteger(GridY).value_or(1),
                                q.optInteger(GridZ).value_or(1)));
        if (!q.isNull(BlockX))
            tb.setSide(staged, SideColumn::Block,
                       packDim3(q.integer(BlockX), q.optInteger(BlockY).value_or(1),
                                q.optInteger(BlockZ).value_or(1)));
    }
    return finishTable(q, t, problems);
}

Result<bool> NsysImporter::readMemcpy()
{
    const std::string_view t = "CUPTI_ACTIVITY_KIND_MEMCPY";
    if (!m_db.hasTable(t))
        return true;
    enum { Start, End, Device, Stream, Correlation, Pid, Bytes, CopyKind };
    NsysQuery q(m_db, "SELECT "
                          + m_db.selectList(t, {"start", "end", "deviceId", "streamId",
                                                "correlationId", "globalPid", "bytes", "copyKind"})
                          + " FROM " + std::string(t));
    TableProblems problems;
    while (q.next()) {
        if (auto tick = rowTick(q); !tick)
            return tick;
        ActivityRow row;
        if (!activityRow(q, problems, &row))
            continue;
        const std::string name = memcpyName(q.optInteger(CopyKind).value_or(0), m_memcpyKinds);
        const uint32_t staged = addActivity(q, row, name, "memcpy", SliceRole::Memcpy);
        if (auto b = q.optInteger(Bytes))
            m_builder.trackBuilder(row.track).setSide(staged, SideColumn::Bytes, *b);
    }
    return finishTable(q, t, problems);
}

Result<bool> NsysImporter::readMemset()
{
    const std::string_view t = "CUPTI_ACTIVITY_KIND_MEMSET";
    if (!m_db.hasTable(t))
        return true;
    enum { Start, End, Device, Stream, Correlation, Pid, Bytes };
    NsysQuery q(m_db, "SELECT "
                          + m_db.selectList(t, {"start", "end", "deviceId", "streamId",
                                                "correlationId", "globalPid", "bytes"})
                          + " FROM " + std::string(t));
    TableProblems problems;
    while (q.next()) {
        if (auto tick = rowTick(q); !tick)
            return tick;
        ActivityRow row;
        if (!activityRow(q, problems, &row))
            continue;
        const uint32_t staged = addActivity(q, row, "Memset", "memset", SliceRole::Memset);
        if (auto b = q.optInteger(Bytes))
            m_builder.trackBuilder(row.track).setSide(staged, SideColumn::Bytes, *b);
    }
    return finishTable(q, t, problems);
}

Result<bool> NsysImporter::readSync()
{
    const std::string_view t = "CUPTI_ACTIVITY_KIND_SYNCHRONIZATION";
    if (!m_db.hasTable(t))
        return true;
    enum { Start, End, Device, Stream, Correlation, Pid, SyncType };
    NsysQuery q(m_db, "SELECT "
                          + m_db.selectList(t, {"start", "end", "deviceId", "streamId",
                                                "correlationId", "globalPid", "syncType"})
                          + " FROM " + std::string(t));
    TableProblems problems;
    while (q.next()) {
        if (auto tick = rowTick(q); !tick)
            return tick;
        ActivityRow row;
        if (activityRow(q, problems, &row))
            addActivity(q, row, syncName(q.optInteger(SyncType)), "sync", SliceRole::Sync);
    }
    return finishTable(q, t, problems);
}

} // namespace tracedesk::core::nsys
