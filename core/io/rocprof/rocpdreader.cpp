// The rocpd SQLite database (rocprofv3's default output from ROCm 7, rocpd schema 3.0.1 on):
// its tables carry a per-run suffix (`rocpd_kernel_dispatch<uuid>`), so each run's tables are
// found by their prefix and read together; rows reference processes, threads, agents, kernel
// symbols, strings and events by row id, joined here into rocprofrecords.h records.
//
// The database is opened read-only through the same SQLite wrapper as Nsight Systems exports;
// a table or column a run lacks is no data.

#include "core/io/nsys/nsysdatabase.h"
#include "core/io/rocprof/rocprofimporter.h"
#include "core/io/rocprof/rocpdrows.h"
#include "core/io/rocprof/rocprofreader.h"
#include "core/io/rocprof/rpdtables.h"

#include "core/base/loadcontrol.h"
#include "core/io/memoryguard.h"

#include <algorithm>
#include <filesystem>
#include <map>

namespace tracedesk::core {

namespace {

using nsys::NsysDatabase;
using nsys::NsysQuery;
using namespace rocprof;

// The suffix of each run's tables, told by its string table.
std::vector<std::string> runSuffixes(const NsysDatabase &db)
{
    std::vector<std::string> out;
    NsysQuery q(db, "SELECT name FROM sqlite_master WHERE type = 'table' AND name LIKE "
                    "'rocpd\\_string%' ESCAPE '\\' ORDER BY name");
    while (q.next())
        out.emplace_back(q.text(0).substr(std::string_view("rocpd_string").size()));
    return out;
}

class RocpdReader
{
public:
    RocpdReader(NsysDatabase &db, TraceBuilder &builder, LoadControl &control)
        : m_db(db), m_builder(builder), m_importer(builder), m_rows(db, control)
    {}

    Result<bool> read();

private:
    std::string table(std::string_view base) const { return "\"" + std::string(base) + m_suffix + "\""; }
    bool has(std::string_view base) const { return m_db.hasTable(std::string(base) + m_suffix); }
    bool hasColumn(std::string_view base, std::string_view column) const
    {
        return m_db.hasColumn(std::string(base) + m_suffix, column);
    }
    // The value of `column` of the row `id` refers to in table `base`, as an SQL expression.
    std::string lookup(std::string_view base, std::string_view column, const std::string &id) const
    {
        if (!has(base))
            return "NULL";
        return "(SELECT \"" + std::string(column) + "\" FROM " + table(base) + " WHERE id = " + id
               + ")";
    }
    void scope(int64_t pid);

    void readProcesses();
    void readAgents();
    Result<bool> readDispatches();
    Result<bool> readRegions();
    Result<bool> readCopies();
    Result<bool> readAllocations();
    Result<bool> readCounters();

    NsysDatabase &m_db;
    TraceBuilder &m_builder;
    RocprofImporter m_importer;
    std::string m_suffix;
    RocpdRows m_rows;
    std::optional<int64_t> m_scope;
};

void RocpdReader::scope(int64_t pid)
{
    // Correlation ids are numbered per process.
    if (m_scope == pid)
        return;
    m_scope = pid;
    m_importer.beginScope(pid, "pid " + std::to_string(pid));
}

Result<bool> RocpdReader::read()
{
    const std::vector<std::string> suffixes = runSuffixes(m_db);
    // Every run of one database shares the host's clock: time 0 is the earliest record.
    std::optional<int64_t> origin;
    for (const std::string &s : suffixes) {
        m_suffix = s;
        for (std::string_view base : {"rocpd_kernel_dispatch", "rocpd_region", "rocpd_memory_copy"}) {
            if (!has(base) || !hasColumn(base, "start"))
                continue;
            NsysQuery q(m_db, "SELECT min(\"start\") FROM " + table(base));
            if (q.next() && !q.isNull(0) && (!origin || q.integer(0) < *origin))
                origin = q.integer(0);
        }
    }
    m_importer.setOrigin(origin.value_or(0));
    for (const std::string &s : suffixes) {
        m_suffix = s;
        m_scope.reset();
        if (has("rocpd_kernel_dispatch") && !hasColumn("rocpd_kernel_dispatch", "start"))
            return fileError(m_db.name(), "uses a rocpd schema older than 3.0.1 (times in a "
                                          "rocpd_timestamp table), which is not read");
        readProcesses();
        readAgents();
        using Step = Result<bool> (RocpdReader::*)();
        for (Step step : {&RocpdReader::readDispatches, &RocpdReader::readRegions,
                          &RocpdReader::readCopies, &RocpdReader::readAllocations,
                          &RocpdReader::readCounters}) {
            if (auto done = (this->*step)(); !done)
                return done;
        }
    }
    m_importer.finish(m_db.name());
    return true;
}

void RocpdReader::readProcesses()
{
    if (!hasColumn("rocpd_info_process", "command"))
        return;
    NsysQuery q(m_db, "SELECT pid, command FROM " + table("rocpd_info_process"));
    while (q.next()) {
        const std::string_view command = q.text(1);
        if (q.isNull(0) || command.empty())
            continue;
        const std::string first(command.substr(0, command.find(' ')));
        m_importer.nameProcess(q.integer(0), std::filesystem::path(first).filename().string());
        m_builder.info().run.properties.emplace_back("command", std::string(command));
    }
}

void RocpdReader::readAgents()
{
    if (!has("rocpd_info_agent"))
        return;
    NsysQuery q(m_db, "SELECT " + m_db.selectList("rocpd_info_agent" + m_suffix,
                                                  {"id", "type", "type_index", "logical_index",
                                                   "name", "product_name"})
                          + " FROM " + table("rocpd_info_agent"));
    while (q.next()) {
        if (q.isNull(0))
            continue;
        Agent a;
        a.key = q.integer(0);
        a.gpu = q.text(1) == "GPU";
        a.device = a.gpu ? q.optInteger(2).value_or(a.key)
                         : 1000 + q.optInteger(3).value_or(a.key);
        a.name = std::string(q.text(4));
        a.product = std::string(q.text(5));
        m_importer.addAgent(a);
    }
}

Result<bool> RocpdReader::readDispatches()
{
    if (!has("rocpd_kernel_dispatch"))
        return true;
    const std::string symbol = "k.kernel_id";
    NsysQuery q(m_db,
                "SELECT k.\"start\", k.\"end\", k.agent_id, k.queue_id, k.stream_id, "
                "k.dispatch_id, k.kernel_id, "
                "coalesce(" + lookup("rocpd_info_kernel_symbol", "display_name", symbol) + ", "
                    + lookup("rocpd_info_kernel_symbol", "kernel_name", symbol) + "), "
                + lookup("rocpd_event", "correlation_id", "k.event_id") + ", "
                + lookup("rocpd_info_process", "pid", "k.pid") + ", "
                + lookup("rocpd_info_thread", "tid", "k.tid") + ", "
                "k.grid_size_x, k.grid_size_y, k.grid_size_z, k.workgroup_size_x, "
                "k.workgroup_size_y, k.workgroup_size_z, k.group_segment_size, "
                "k.private_segment_size, "
                + lookup("rocpd_info_kernel_symbol", "arch_vgpr_count", symbol) + ", "
                + lookup("rocpd_info_kernel_symbol", "accum_vgpr_count", symbol) + ", "
                + lookup("rocpd_info_kernel_symbol", "sgpr_count", symbol)
                + " FROM " + table("rocpd_kernel_dispatch") + " k ORDER BY k.\"start\"");
    std::string unnamed;
    while (q.next()) {
        if (auto t = m_rows.tick(); !t)
            return t;
        KernelDispatch d;
        d.startNs = q.optInteger(0).value_or(0);
        d.endNs = q.optInteger(1);
        d.agent = q.optInteger(2).value_or(0);
        d.queue = q.optInteger(3).value_or(0);
        d.stream = q.optInteger(4).value_or(-1);
        d.dispatchId = q.optInteger(5).value_or(-1);
        d.kernelId = q.optInteger(6).value_or(-1);
        d.name = q.text(7);
        if (d.name.empty()) {
            unnamed = "(kernel " + std::to_string(d.kernelId) + ")";
            d.name = unnamed;
        }
        d.correlation = q.optInteger(8);
        scope(q.optInteger(9).value_or(0));
        d.tid = q.optInteger(10).value_or(-1);
        d.grid = {q.optInteger(11).value_or(-1), q.optInteger(12).value_or(1),
                  q.optInteger(13).value_or(1)};
        d.workgroup = {q.optInteger(14).value_or(-1), q.optInteger(15).value_or(1),
                       q.optInteger(16).value_or(1)};
        d.ldsBytes = q.optInteger(17);
        d.scratchBytes = q.optInteger(18);
        d.vgprs = q.optInteger(19);
        d.accumVgprs = q.optInteger(20);
        d.sgprs = q.optInteger(21);
        m_importer.addDispatch(d);
    }
    return m_rows.finish(q, "rocpd_kernel_dispatch");
}

Result<bool> RocpdReader::readRegions()
{
    if (!has("rocpd_region") || !hasColumn("rocpd_region", "start"))
        return true;
    NsysQuery q(m_db, "SELECT r.\"start\", r.\"end\", "
                          + lookup("rocpd_string", "string", "r.name_id") + ", "
                          + lookup("rocpd_string", "string",
                                   lookup("rocpd_event", "category_id", "r.event_id"))
                          + ", " + lookup("rocpd_event", "correlation_id", "r.event_id") + ", "
                          + lookup("rocpd_info_process", "pid", "r.pid") + ", "
                          + lookup("rocpd_info_thread", "tid", "r.tid") + " FROM "
                          + table("rocpd_region") + " r ORDER BY r.\"start\"");
    while (q.next()) {
        if (auto t = m_rows.tick(); !t)
            return t;
        ApiCall c;
        c.startNs = q.optInteger(0).value_or(0);
        c.endNs = q.optInteger(1);
        c.function = q.text(2);
        c.domain = q.text(3);
        c.correlation = q.optInteger(4);
        c.pid = q.optInteger(5).value_or(0);
        c.tid = q.optInteger(6).value_or(c.pid);
        scope(c.pid);
        m_importer.addApiCall(c);
    }
    return m_rows.finish(q, "rocpd_region");
}

Result<bool> RocpdReader::readCopies()
{
    if (!has("rocpd_memory_copy") || !hasColumn("rocpd_memory_copy", "start"))
        return true;
    NsysQuery q(m_db, "SELECT m.\"start\", m.\"end\", "
                          + lookup("rocpd_string", "string", "m.name_id")
                          + ", m.size, m.src_agent_id, m.dst_agent_id, "
                          + m_db.selectList("rocpd_memory_copy" + m_suffix, {"stream_id"}) + ", "
                          + lookup("rocpd_event", "correlation_id", "m.event_id") + ", "
                          + lookup("rocpd_info_process", "pid", "m.pid") + " FROM "
                          + table("rocpd_memory_copy") + " m ORDER BY m.\"start\"");
    while (q.next()) {
        if (auto t = m_rows.tick(); !t)
            return t;
        MemoryCopy c;
        c.startNs = q.optInteger(0).value_or(0);
        c.endNs = q.optInteger(1);
        c.direction = q.text(2);
        c.bytes = q.optInteger(3);
        c.srcAgent = q.optInteger(4).value_or(-1);
        c.dstAgent = q.optInteger(5).value_or(-1);
        c.stream = q.optInteger(6).value_or(-1);
        c.correlation = q.optInteger(7);
        scope(q.optInteger(8).value_or(0));
        m_importer.addMemoryCopy(c);
    }
    return m_rows.finish(q, "rocpd_memory_copy");
}

Result<bool> RocpdReader::readAllocations()
{
    if (!has("rocpd_memory_allocate") || !hasColumn("rocpd_memory_allocate", "start"))
        return true;
    NsysQuery q(m_db, "SELECT " + m_db.selectList("rocpd_memory_allocate" + m_suffix,
                                                  {"start", "end", "type", "level", "agent_id",
                                                   "size", "address"})
                          + " FROM " + table("rocpd_memory_allocate"));
    std::string operation, address;
    while (q.next()) {
        if (auto t = m_rows.tick(); !t)
            return t;
        MemoryOperation m;
        m.startNs = q.optInteger(0).value_or(0);
        m.endNs = q.optInteger(1);
        const bool scratch = q.text(3) == "SCRATCH";
        m.category = scratch ? "scratch_memory" : "memory_allocation";
        operation = (scratch ? "SCRATCH_MEMORY_" : "MEMORY_ALLOCATION_") + std::string(q.text(2));
        m.operation = operation;
        m.agent = q.optInteger(4).value_or(-1);
        m.bytes = q.optInteger(5);
        if (auto a = q.optInteger(6)) {
            char buf[24];
            std::snprintf(buf, sizeof buf, "0x%016llx", static_cast<unsigned long long>(*a));
            address = buf;
            m.address = address;
        }
        m_importer.addMemoryOperation(m);
    }
    return m_rows.finish(q, "rocpd_memory_allocate");
}

Result<bool> RocpdReader::readCounters()
{
    if (!has("rocpd_pmc_event") || !has("rocpd_info_pmc") || !has("rocpd_kernel_dispatch"))
        return true;
    // A counter's instances summed per dispatch, as rocprofv3's CSV does, over the dispatch's
    // time.
    NsysQuery q(m_db, "SELECT k.\"start\", k.\"end\", k.agent_id, i.name, sum(e.value) FROM "
                          + table("rocpd_pmc_event") + " e JOIN " + table("rocpd_info_pmc")
                          + " i ON i.id = e.pmc_id JOIN " + table("rocpd_kernel_dispatch")
                          + " k ON k.event_id = e.event_id GROUP BY e.event_id, i.name ORDER BY "
                            "k.\"start\"");
    while (q.next()) {
        if (auto t = m_rows.tick(); !t)
            return t;
        CounterSample s;
        s.startNs = q.optInteger(0).value_or(0);
        s.endNs = q.optInteger(1);
        s.agent = q.optInteger(2).value_or(0);
        s.counter = q.text(3);
        s.value = q.real(4);
        m_importer.addCounterSample(s);
    }
    return m_rows.finish(q, "rocpd_pmc_event");
}

// What a row of a record table costs at the load's peak (as for Nsight Systems exports: its
// staged slice with side columns and args, its row in the store, its flow endpoints).
constexpr uint64_t kPeakBytesPerRow = 200;

// Rows of the tables that hold records: every rocpd table but strings, metadata and the info
// tables, read from each table's b-tree without a scan.
uint64_t recordRows(const NsysDatabase &db)
{
    uint64_t rows = 0;
    for (const std::string &table : db.tables()) {
        if (!table.starts_with("rocpd_") || table.starts_with("rocpd_string")
            || table.starts_with("rocpd_info_") || table.starts_with("rocpd_metadata"))
            continue;
        // A damaged file can claim any rowid: keep the estimate's product in range.
        rows = std::min<uint64_t>(rows + db.lastRowid(table), UINT64_MAX / (2 * kPeakBytesPerRow));
    }
    return rows;
}

Result<std::shared_ptr<Trace>> importRocpd(Result<NsysDatabase> opened, uint64_t bytes,
                                           LoadControl *control, const LoadOptions &options)
{
    LoadControl localControl;
    if (!control)
        control = &localControl;
    if (!opened)
        return opened.error();
    NsysDatabase &db = opened.value();
    if (runSuffixes(db).empty())
        return fileError(db.name(), "is an SQLite database but not a rocpd database (it has no "
                                    "rocpd_string table)");
    // Refused before anything is staged when it would not fit, rather than ended by the OOM
    // killer half way through.
    const MemoryGuard guard(options.memoryLimitBytes);
    if (auto fits = guard.admit(db.name(), recordRows(db) * kPeakBytesPerRow + bytes,
                                kSuggestSmallerTrace);
        !fits)
        return fits.error();
    control->addTotal(bytes);
    TraceBuilder builder;
    const bool rpd = isRpdDatabase(db);
    if (rpd) {
        RocprofImporter importer(builder);
        if (auto done = readRpdTables(db, importer, *control, builder.info()); !done)
            return done.error();
        importer.finish(db.name());
    } else {
        RocpdReader reader(db, builder, *control);
        if (auto done = reader.read(); !done)
            return done.error();
    }
    control->addDone(bytes);
    LoadInfo &info = builder.info();
    info.format = rpd ? "rpd" : "rocpd";
    info.sources = {db.name()};
    info.sourceBytes = bytes;
    std::shared_ptr<Trace> trace = builder.build(control);
    if (!trace)
        return Result<std::shared_ptr<Trace>>::cancelled();
    return trace;
}

} // namespace

Result<std::shared_ptr<Trace>> readRocpd(const std::string &path, LoadControl *control,
                                         const LoadOptions &options)
{
    std::error_code ec;
    const uint64_t bytes = std::filesystem::file_size(path, ec);
    if (ec)
        return fileError(path, "cannot be read (" + ec.message() + ")");
    return importRocpd(NsysDatabase::openFile(path), bytes, control, options);
}

Result<std::shared_ptr<Trace>> readRocpdBytes(const std::string &name, const void *data,
                                              size_t size, LoadControl *control,
                                              const LoadOptions &options)
{
    if (size < nsys::kSqliteMagic.size()
        || std::string_view(static_cast<const char *>(data), nsys::kSqliteMagic.size())
               != nsys::kSqliteMagic)
        return fileError(name, "is not an SQLite database (no \"SQLite format 3\" header)");
    return importRocpd(NsysDatabase::openBytes(name, data, size), size, control, options);
}

bool isRocpdDatabase(const std::string &path)
{
    auto db = NsysDatabase::openFile(path);
    return db && !runSuffixes(db.value()).empty();
}

} // namespace tracedesk::core
