// What an Nsight Systems export says about its run: the exporter and schema versions, the
// session's wall-clock start, the GPUs, and the names of processes and threads.

#include "core/io/nsys/nsysimporter.h"

namespace tracedesk::core::nsys {

void NsysImporter::readMetadata()
{
    RunMetadata &run = m_builder.info().run;
    // EXPORT_META_DATA up to schema 3.1, META_DATA_EXPORT from 3.4 on.
    const std::string table = m_db.firstTable({"META_DATA_EXPORT", "EXPORT_META_DATA"});
    if (!table.empty() && m_db.hasColumn(table, "name") && m_db.hasColumn(table, "value")) {
        NsysQuery q(m_db, "SELECT name, value FROM " + table);
        while (q.next()) {
            const std::string_view key = q.text(0);
            if (key == "EXPORT_PRODUCT_VERSION")
                run.properties.emplace_back("nsys_version", std::string(q.text(1)));
            else if (key == "EXPORT_SCHEMA_VERSION")
                run.properties.emplace_back("export_schema_version", std::string(q.text(1)));
        }
    }
    if (m_db.hasColumn("TARGET_INFO_SESSION_START_TIME", "utcEpochNs")) {
        NsysQuery q(m_db, "SELECT utcEpochNs, " + m_db.selectList("TARGET_INFO_SESSION_START_TIME",
                                                                    {"utcTime"})
                              + " FROM TARGET_INFO_SESSION_START_TIME LIMIT 1");
        if (q.next()) {
            if (auto ns = q.optInteger(0); ns && *ns > 0)
                run.clockOriginNs = *ns;
            if (!q.isNull(1))
                run.properties.emplace_back("session_start_utc", std::string(q.text(1)));
        }
    }
    if (m_db.hasColumn("ENUM_CUDA_MEMCPY_OPER", "id") && m_db.hasColumn("ENUM_CUDA_MEMCPY_OPER", "label")) {
        NsysQuery q(m_db, "SELECT id, label FROM ENUM_CUDA_MEMCPY_OPER");
        while (q.next()) {
            if (!q.isNull(0) && !q.isNull(1))
                m_memcpyKinds[q.integer(0)] = std::string(q.text(1));
        }
    }
}

void NsysImporter::readGpus()
{
    const std::string_view t = "TARGET_INFO_GPU";
    if (!m_db.hasColumn(t, "id"))
        return;
    NsysQuery q(m_db, "SELECT " + m_db.selectList(t, {"id", "name", "totalMemory", "computeMajor",
                                                      "computeMinor", "smCount", "threadsPerWarp",
                                                      "maxWarpsPerSm"})
                          + " FROM TARGET_INFO_GPU");
    RunMetadata &run = m_builder.info().run;
    while (q.next()) {
        if (q.isNull(0) || run.device(q.integer(0)))
            continue;
        GpuDeviceInfo d;
        d.id = q.integer(0);
        d.name = std::string(q.text(1));
        d.totalGlobalMemBytes = uint64_t(std::max<int64_t>(0, q.optInteger(2).value_or(0)));
        d.computeMajor = q.optInteger(3).value_or(-1);
        d.computeMinor = q.optInteger(4).value_or(-1);
        d.numSms = q.optInteger(5).value_or(0);
        d.warpSize = q.optInteger(6).value_or(0);
        const int64_t warps = q.optInteger(7).value_or(0);
        if (warps > 0 && warps < 4096 && d.warpSize > 0 && d.warpSize < 4096)
            d.maxThreadsPerMultiprocessor = warps * d.warpSize;
        run.devices.push_back(std::move(d));
    }
}

void NsysImporter::readProcessesAndThreads()
{
    if (m_db.hasColumn("PROCESSES", "globalPid") && m_db.hasColumn("PROCESSES", "name")) {
        NsysQuery q(m_db, "SELECT globalPid, name FROM PROCESSES");
        while (q.next()) {
            if (!q.isNull(0) && !q.isNull(1))
                m_processNames[q.integer(0)] = std::string(q.text(1));
        }
    }
    if (m_db.hasColumn("ThreadNames", "globalTid") && m_db.hasColumn("ThreadNames", "nameId")) {
        // Several names per thread: the highest priority one, as Nsight Systems shows it.
        NsysQuery q(m_db, "SELECT globalTid, nameId FROM ThreadNames ORDER BY "
                              + std::string(m_db.hasColumn("ThreadNames", "priority")
                                                ? "priority"
                                                : "rowid"));
        while (q.next()) {
            if (q.isNull(0) || q.isNull(1))
                continue;
            if (auto s = m_db.string(q.integer(1)))
                m_threadNames[q.integer(0)] = std::string(*s);
        }
    }
}

} // namespace tracedesk::core::nsys
