#include "core/io/rocprof/rpdtables.h"

#include "core/io/rocprof/rocpdrows.h"

#include <map>
#include <string>

namespace tracedesk::core::rocprof {

namespace {

using nsys::NsysDatabase;
using nsys::NsysQuery;

bool startsWith(std::string_view s, std::string_view prefix)
{
    return s.substr(0, prefix.size()) == prefix;
}

// rocpd_op's op types of copies, as rocprofv3 names their directions.
std::string_view copyDirection(std::string_view opType)
{
    if (opType == "CopyHostToDevice")
        return "MEMORY_COPY_HOST_TO_DEVICE";
    if (opType == "CopyDeviceToHost")
        return "MEMORY_COPY_DEVICE_TO_HOST";
    if (opType == "CopyDeviceToDevice")
        return "MEMORY_COPY_DEVICE_TO_DEVICE";
    if (opType == "CopyHostToHost")
        return "MEMORY_COPY_HOST_TO_HOST";
    return {};
}

class RpdReader
{
public:
    RpdReader(NsysDatabase &db, RocprofImporter &importer, LoadControl &control, LoadInfo &info)
        : m_db(db), m_importer(importer), m_info(info), m_rows(db, control)
    {}

    Result<bool> read()
    {
        setOrigin();
        readAgents();
        for (auto step : {&RpdReader::readApis, &RpdReader::readHsaApis, &RpdReader::readOps,
                          &RpdReader::readMonitor}) {
            if (auto done = (this->*step)(); !done)
                return done;
        }
        if (m_idlePackets > 0)
            m_info.warn(std::to_string(m_idlePackets)
                        + " barrier and marker packets (no GPU work) are not shown");
        return true;
    }

private:
    // Time 0 is the earliest call or operation (records of 0 were never completed).
    void setOrigin()
    {
        NsysQuery q(m_db, "SELECT min(s) FROM (SELECT min(start) AS s FROM rocpd_op WHERE start "
                          "> 0 UNION ALL SELECT min(start) FROM rocpd_api WHERE start > 0)");
        m_importer.setOrigin(q.next() && !q.isNull(0) ? q.integer(0) : 0);
    }

    void readAgents()
    {
        NsysQuery q(m_db, "SELECT DISTINCT gpuId FROM rocpd_op ORDER BY gpuId");
        while (q.next()) {
            if (q.isNull(0))
                continue;
            Agent a;
            a.key = a.device = q.integer(0);
            a.gpu = a.gpuKnown = true;
            m_importer.addAgent(a);
        }
    }

    Result<bool> readApiTable(const std::string &table, bool linked)
    {
        if (!m_db.hasTable(table))
            return true;
        NsysQuery q(m_db, "SELECT a.id, " + m_db.selectList(table, {"pid", "tid"})
                              + ", a.start, a.\"end\", n.string, g.string FROM \"" + table
                              + "\" a LEFT JOIN rocpd_string n ON n.id = a.apiName_id LEFT JOIN "
                                "rocpd_string g ON g.id = a.args_id ORDER BY a.start");
        while (q.next()) {
            if (auto t = m_rows.tick(); !t)
                return t;
            ApiCall c;
            c.pid = q.optInteger(1).value_or(0);
            c.tid = q.optInteger(2).value_or(c.pid);
            c.startNs = q.optInteger(3).value_or(0);
            c.endNs = q.optInteger(4);
            const std::string_view name = q.text(5);
            if (name == "UserMarker") {
                c.marker = true;
                c.domain = "MARKER_CORE_API";
                c.function = q.text(6);
            } else {
                c.function = name;
                c.domain = !linked                  ? "HSA_API"
                           : startsWith(name, "hip") ? "HIP_RUNTIME_API"
                                                     : "";
                if (linked && !q.isNull(0))
                    c.correlation = q.integer(0);
            }
            m_importer.addApiCall(c);
        }
        return m_rows.finish(q, table);
    }
    Result<bool> readApis() { return readApiTable("rocpd_api", true); }
    Result<bool> readHsaApis() { return readApiTable("rocpd_hsaApi", false); }

    Result<bool> readOps()
    {
        // The launch configuration by the call that made the dispatch (rocpd_kernelapi), or by
        // the operation (the older rocpd_kernelop).
        const bool byApi = m_db.hasTable("rocpd_kernelapi");
        const std::string config = byApi ? "rocpd_kernelapi" : "rocpd_kernelop";
        const bool hasConfig = m_db.hasTable(config);
        const std::string configKey = byApi ? "l.api" : "o.id";
        const std::string configJoin =
            hasConfig ? " LEFT JOIN " + config + " k ON k." + (byApi ? "api_ptr_id" : "op_ptr_id")
                            + " = " + configKey
                      : "";
        const std::string configColumns =
            hasConfig ? m_db.selectList(config, {"gridX", "gridY", "gridZ", "workgroupX",
                                                 "workgroupY", "workgroupZ", "groupSegmentSize",
                                                 "privateSegmentSize"})
                      : "NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL";
        const bool hasCopies = m_db.hasTable("rocpd_copyapi");
        const std::string sql =
            "SELECT o.start, o.\"end\", o.gpuId, o.queueId, d.string, t.string, l.api, "
            + configColumns + ", "
            + (hasCopies ? m_db.selectList("rocpd_copyapi", {"size", "srcDevice", "dstDevice"})
                         : std::string("NULL, NULL, NULL"))
            + " FROM rocpd_op o LEFT JOIN rocpd_string d ON d.id = o.description_id LEFT JOIN "
              "rocpd_string t ON t.id = o.opType_id LEFT JOIN (SELECT op_id, min(api_id) AS "
              "api FROM rocpd_api_ops GROUP BY op_id) l ON l.op_id = o.id"
            + configJoin
            + (hasCopies ? " LEFT JOIN rocpd_copyapi c ON c.api_ptr_id = l.api" : "")
            + " ORDER BY o.start";
        NsysQuery q(m_db, sql);
        std::string named;
        while (q.next()) {
            if (auto t = m_rows.tick(); !t)
                return t;
            const int64_t start = q.optInteger(0).value_or(0);
            const std::optional<int64_t> end = q.optInteger(1);
            const int64_t gpu = q.optInteger(2).value_or(0);
            const std::string_view description = q.text(4);
            const std::string_view opType = q.text(5);
            const std::optional<int64_t> api = q.optInteger(6);
            if (startsWith(opType, "Barrier") || opType == "Marker") {
                ++m_idlePackets;
                continue;
            }
            if (const std::string_view direction = copyDirection(opType); !direction.empty()) {
                MemoryCopy c;
                c.direction = direction;
                c.startNs = start;
                c.endNs = end;
                c.correlation = api;
                c.bytes = q.optInteger(15);
                const bool toDevice = opType == "CopyHostToDevice";
                const bool fromDevice = opType == "CopyDeviceToHost";
                c.srcAgent = toDevice ? -1 : q.optInteger(16).value_or(gpu);
                c.dstAgent = fromDevice ? -1 : q.optInteger(17).value_or(gpu);
                if (opType == "CopyHostToHost")
                    c.srcAgent = c.dstAgent = gpu;
                m_importer.addMemoryCopy(c);
                continue;
            }
            KernelDispatch d;
            d.agent = gpu;
            d.queue = q.optInteger(3).value_or(0);
            d.startNs = start;
            d.endNs = end;
            d.correlation = api;
            // A kernel is named by its description; other work (a fill) by its op type.
            named = std::string(!description.empty() ? description
                                : !opType.empty()    ? opType
                                                     : std::string_view("(unnamed operation)"));
            d.name = named;
            d.grid = {q.optInteger(7).value_or(-1), q.optInteger(8).value_or(1),
                      q.optInteger(9).value_or(1)};
            d.workgroup = {q.optInteger(10).value_or(-1), q.optInteger(11).value_or(1),
                           q.optInteger(12).value_or(1)};
            d.ldsBytes = q.optInteger(13);
            d.scratchBytes = q.optInteger(14);
            m_importer.addDispatch(d);
        }
        return m_rows.finish(q, "rocpd_op");
    }

    Result<bool> readMonitor()
    {
        if (!m_db.hasTable("rocpd_monitor"))
            return true;
        NsysQuery q(m_db, "SELECT " + m_db.selectList("rocpd_monitor", {"deviceId", "monitorType",
                                                                        "start", "end", "value"})
                              + " FROM rocpd_monitor ORDER BY start");
        while (q.next()) {
            if (auto t = m_rows.tick(); !t)
                return t;
            CounterSample s;
            s.agent = q.optInteger(0).value_or(0);
            s.counter = q.text(1);
            s.startNs = q.optInteger(2).value_or(0);
            s.endNs = q.optInteger(3);
            s.value = q.real(4);
            m_importer.addCounterSample(s);
        }
        return m_rows.finish(q, "rocpd_monitor");
    }

    NsysDatabase &m_db;
    RocprofImporter &m_importer;
    LoadInfo &m_info;
    RocpdRows m_rows;
    uint64_t m_idlePackets = 0;
};

} // namespace

bool isRpdDatabase(const NsysDatabase &db)
{
    return db.hasTable("rocpd_op") && db.hasTable("rocpd_api") && db.hasTable("rocpd_string");
}

Result<bool> readRpdTables(NsysDatabase &db, RocprofImporter &importer, LoadControl &control,
                           LoadInfo &info)
{
    RpdReader reader(db, importer, control, info);
    return reader.read();
}

} // namespace tracedesk::core::rocprof
