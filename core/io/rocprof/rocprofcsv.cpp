// rocprofv3's CSV set: each file's kind told by its header (csvkind.h), each column found by its
// name, so ROCm 6 and 7 layouts (numeric or "Agent N" agents, with or without Stream_Id, a
// leading Guid, every field quoted or not) read alike, and a column a version lacks is no data.

#include "core/io/rocprof/csvkind.h"
#include "core/io/rocprof/rocprofimporter.h"
#include "core/io/rocprof/rocprofreader.h"

#include "core/io/decompress.h"

#include <filesystem>
#include <map>

namespace fs = std::filesystem;

namespace tracedesk::core {

namespace {

using namespace rocprof;
using Row = std::vector<std::string_view>;

constexpr size_t kTickRows = 4096;   // rows between cancel checks

struct CsvFile
{
    std::string name;
    FileContents contents;
    CsvKind kind = CsvKind::Unknown;
    CsvColumns columns;
    int64_t scope = 0;
};

// Problems of one file, reported as one warning each.
struct RowProblems
{
    uint64_t noStart = 0;
    uint64_t badNumber = 0;
};

class CsvSetReader
{
public:
    CsvSetReader(TraceBuilder &builder, LoadControl &control)
        : m_builder(builder), m_control(control), m_importer(builder)
    {}

    // Takes the files' contents; errors name the file.
    Result<bool> add(const std::string &name, FileContents contents, bool alone);
    Result<bool> read();
    size_t usable() const { return m_files.size(); }

private:
    Result<bool> readFile(const CsvFile &f);
    void readAgents(const CsvFile &f);
    void stage(const CsvFile &f, const Row &row, RowProblems &p);
    std::optional<int64_t> earliestStart(const CsvFile &f);

    std::optional<int64_t> agentKey(std::string_view field) const;

    TraceBuilder &m_builder;
    LoadControl &m_control;
    RocprofImporter m_importer;
    std::vector<CsvFile> m_files;
    std::map<std::string, int64_t> m_scopes;   // set prefix -> scope
    // agent_info's agents by their type-relative index ("GPU 1" with --agent-index
    // type-relative): their keys (Logical_Node_Id, what the default "Agent N" names).
    std::map<int64_t, int64_t> m_gpuKeys, m_cpuKeys;
};

std::string_view kindName(CsvKind k)
{
    switch (k) {
    case CsvKind::KernelTrace: return "kernel trace";
    case CsvKind::ApiTrace: return "API trace";
    case CsvKind::MemoryCopy: return "memory copy trace";
    case CsvKind::MemoryAllocation: return "memory allocation trace";
    case CsvKind::ScratchMemory: return "scratch memory trace";
    case CsvKind::CounterCollection: return "counter collection";
    case CsvKind::AgentInfo: return "agent list";
    case CsvKind::Unknown: break;
    }
    return "unknown";
}

Result<bool> CsvSetReader::add(const std::string &name, FileContents contents, bool alone)
{
    CsvFile f;
    f.name = name;
    f.contents = std::move(contents);
    CsvRows rows(f.contents.buffer.view());
    Row header;
    if (!rows.next(header)) {
        if (alone)
            return fileError(name, "is empty: a rocprofv3 CSV file starts with a header row");
        m_builder.info().warn(name + ": is empty (skipped)");
        return true;
    }
    f.columns = CsvColumns(header);
    f.kind = csvKind(f.columns);
    if (f.kind == CsvKind::Unknown) {
        if (alone)
            return fileError(name, "is not a CSV file rocprofv3 writes for a trace (its header "
                                   "names none of Kernel_Name, Domain and Function, Direction, "
                                   "Counter_Name, ...)");
        m_builder.info().warn(name + ": not a rocprofv3 trace file (skipped)");
        return true;
    }
    if (isTraceKind(f.kind) && !f.columns.has("Start_Timestamp")) {
        // Counter collection before ROCm 6.4 has no times: nothing places it on the timeline.
        return fileError(name, "is a rocprofv3 " + std::string(kindName(f.kind))
                                   + " without a Start_Timestamp column, so its records cannot "
                                     "be placed in time");
    }
    const std::string prefix = csvSetPrefix(fs::path(name).filename().string());
    f.scope = m_scopes.try_emplace(prefix, int64_t(m_scopes.size())).first->second;
    m_files.push_back(std::move(f));
    return true;
}

std::optional<int64_t> CsvSetReader::earliestStart(const CsvFile &f)
{
    CsvRows rows(f.contents.buffer.view());
    Row row;
    rows.next(row);
    const int start = f.columns.index("Start_Timestamp");
    std::optional<int64_t> earliest;
    while (rows.next(row)) {
        if (auto t = parseInt(fieldAt(row, start)); t && (!earliest || *t < *earliest))
            earliest = *t;
    }
    return earliest;
}

Result<bool> CsvSetReader::read()
{
    // The set shares the host's clock: time 0 is its earliest record.
    std::optional<int64_t> origin;
    for (const CsvFile &f : m_files) {
        if (!isTraceKind(f.kind))
            continue;
        if (auto t = earliestStart(f); t && (!origin || *t < *origin))
            origin = *t;
    }
    m_importer.setOrigin(origin.value_or(0));
    for (const CsvFile &f : m_files) {
        if (f.kind == CsvKind::AgentInfo)
            readAgents(f);
    }
    std::map<int64_t, std::string> labels;
    for (const auto &[prefix, scope] : m_scopes)
        labels[scope] = prefix;
    for (const CsvFile &f : m_files) {
        if (!isTraceKind(f.kind))
            continue;
        std::string label = labels[f.scope];
        while (!label.empty() && (label.back() == '_' || label.back() == '-'))
            label.pop_back();
        m_importer.beginScope(f.scope, label);
        if (auto done = readFile(f); !done)
            return done;
    }
    std::string source = m_files.empty() ? std::string() : m_files.front().name;
    if (m_files.size() > 1)
        source = fs::path(source).parent_path().string();
    m_importer.finish(source);
    return true;
}

void CsvSetReader::readAgents(const CsvFile &f)
{
    const CsvColumns &c = f.columns;
    const int id = c.firstOf({"Logical_Node_Id", "Node_Id"});
    // rocprofv3 writes no type-relative index here (rocprofiler-sdk's generateCSV.cpp: Node_Id,
    // Logical_Node_Id, Agent_Type, ... Name, Vendor_Name, Product_Name, Model_Name), but it
    // writes the agents by node: a GPU's place among the GPUs is its type-relative index.
    const int type = c.index("Agent_Type");
    const int name = c.index("Name"), product = c.index("Product_Name");
    const int cus = c.index("Cu_Count"), wave = c.index("Wave_Front_Size");
    const int waves = c.index("Max_Waves_Per_Cu");
    CsvRows rows(f.contents.buffer.view());
    Row row;
    rows.next(row);
    int64_t gpus = 0;
    while (rows.next(row)) {
        const auto key = parseInt(fieldAt(row, id));
        if (!key)
            continue;
        Agent a;
        a.key = *key;
        a.gpu = fieldAt(row, type).find("GPU") != std::string_view::npos;
        a.device = a.gpu ? gpus : 1000 + *key;
        if (a.gpu)
            m_gpuKeys.emplace(gpus, a.key);
        else
            m_cpuKeys.emplace(int64_t(m_cpuKeys.size()), a.key);
        gpus += a.gpu;
        a.name = std::string(fieldAt(row, name));
        a.product = std::string(fieldAt(row, product));
        a.computeUnits = parseInt(fieldAt(row, cus)).value_or(0);
        a.wavefrontSize = parseInt(fieldAt(row, wave)).value_or(0);
        a.maxWavesPerCu = parseInt(fieldAt(row, waves)).value_or(0);
        m_importer.addAgent(a);
    }
}

// "Agent 4" (the default relative index, or the absolute one) is that agent's key; "GPU 1" and
// "CPU 0" (type-relative) are the second GPU and the first CPU agent_info lists.
std::optional<int64_t> CsvSetReader::agentKey(std::string_view field) const
{
    const auto number = parseAgent(field);
    if (!number)
        return std::nullopt;
    while (!field.empty() && (field.front() == ' ' || field.front() == '\t'))
        field.remove_prefix(1);
    const std::map<int64_t, int64_t> *byType = field.starts_with("GPU ") ? &m_gpuKeys
                                               : field.starts_with("CPU ") ? &m_cpuKeys
                                                                           : nullptr;
    if (byType) {
        if (auto it = byType->find(*number); it != byType->end())
            return it->second;
    }
    return number;
}

Result<bool> CsvSetReader::readFile(const CsvFile &f)
{
    CsvRows rows(f.contents.buffer.view());
    Row row;
    rows.next(row);   // the header
    RowProblems p;
    uint64_t n = 0;
    while (rows.next(row)) {
        if (++n % kTickRows == 0 && m_control.cancelRequested())
            return Result<bool>::cancelled();
        stage(f, row, p);
    }
    LoadInfo &info = m_builder.info();
    if (p.noStart)
        info.warn(f.name + ": " + std::to_string(p.noStart)
                  + " rows without a Start_Timestamp skipped");
    if (p.badNumber)
        info.warn(f.name + ": " + std::to_string(p.badNumber)
                  + " rows with a field that is not a number where one belongs (read as missing)");
    if (rows.unterminatedQuote())
        info.warn(f.name + ": ends inside a quoted field (the file is cut short)");
    return true;
}

void CsvSetReader::stage(const CsvFile &f, const Row &row, RowProblems &p)
{
    const CsvColumns &c = f.columns;
    const auto start = parseInt(fieldAt(row, c.index("Start_Timestamp")));
    if (!start) {
        ++p.noStart;
        return;
    }
    // A field present but unreadable is counted once per row.
    bool bad = false;
    auto integer = [&](std::initializer_list<std::string_view> names) -> std::optional<int64_t> {
        const std::string_view v = fieldAt(row, c.firstOf(names));
        auto i = parseInt(v);
        if (!i && !v.empty())
            bad = true;
        return i;
    };
    auto agentAt = [&](std::string_view name) -> std::optional<int64_t> {
        const std::string_view v = fieldAt(row, c.index(name));
        auto a = agentKey(v);
        if (!a && !v.empty())
            bad = true;
        return a;
    };
    const auto end = integer({"End_Timestamp"});
    const auto correlation = integer({"Correlation_Id"});
    switch (f.kind) {
    case CsvKind::KernelTrace: {
        KernelDispatch d;
        d.startNs = *start;
        d.endNs = end;
        d.correlation = correlation;
        d.agent = agentAt("Agent_Id").value_or(0);
        d.queue = integer({"Queue_Id"}).value_or(0);
        d.stream = integer({"Stream_Id"}).value_or(-1);
        d.tid = integer({"Thread_Id"}).value_or(-1);
        d.dispatchId = integer({"Dispatch_Id"}).value_or(-1);
        d.kernelId = integer({"Kernel_Id"}).value_or(-1);
        d.name = fieldAt(row, c.index("Kernel_Name"));
        d.ldsBytes = integer({"LDS_Block_Size", "Group_Segment_Size"});
        d.scratchBytes = integer({"Scratch_Size", "Private_Segment_Size"});
        d.vgprs = integer({"VGPR_Count", "Arch_VGPR_Count"});
        d.accumVgprs = integer({"Accum_VGPR_Count"});
        d.sgprs = integer({"SGPR_Count"});
        if (c.has("Grid_Size_X")) {
            d.grid = {integer({"Grid_Size_X"}).value_or(-1), integer({"Grid_Size_Y"}).value_or(1),
                      integer({"Grid_Size_Z"}).value_or(1)};
        } else if (auto g = integer({"Grid_Size"})) {
            d.grid.x = *g;
        }
        if (c.has("Workgroup_Size_X")) {
            d.workgroup = {integer({"Workgroup_Size_X"}).value_or(-1),
                           integer({"Workgroup_Size_Y"}).value_or(1),
                           integer({"Workgroup_Size_Z"}).value_or(1)};
        } else if (auto w = integer({"Workgroup_Size"})) {
            d.workgroup.x = *w;
        }
        m_importer.addDispatch(d);
        break;
    }
    case CsvKind::ApiTrace: {
        ApiCall a;
        a.startNs = *start;
        a.endNs = end;
        a.correlation = correlation;
        a.domain = fieldAt(row, c.index("Domain"));
        a.function = fieldAt(row, c.index("Function"));
        a.pid = integer({"Process_Id"}).value_or(0);
        a.tid = integer({"Thread_Id"}).value_or(a.pid);
        m_importer.addApiCall(a);
        break;
    }
    case CsvKind::MemoryCopy: {
        MemoryCopy m;
        m.startNs = *start;
        m.endNs = end;
        m.correlation = correlation;
        m.direction = fieldAt(row, c.firstOf({"Direction", "Operation"}));
        m.srcAgent = agentAt("Source_Agent_Id").value_or(-1);
        m.dstAgent = agentAt("Destination_Agent_Id").value_or(-1);
        m.stream = integer({"Stream_Id"}).value_or(-1);
        m.bytes = integer({"Bytes", "Size", "Copy_Bytes"});
        m_importer.addMemoryCopy(m);
        break;
    }
    case CsvKind::MemoryAllocation:
    case CsvKind::ScratchMemory: {
        MemoryOperation m;
        m.category =
            f.kind == CsvKind::ScratchMemory ? "scratch_memory" : "memory_allocation";
        m.startNs = *start;
        m.endNs = end;
        m.operation = fieldAt(row, c.index("Operation"));
        m.agent = agentAt("Agent_Id").value_or(-1);
        m.bytes = integer({"Allocation_Size", "Size"});
        m.address = fieldAt(row, c.index("Address"));
        m_importer.addMemoryOperation(m);
        break;
    }
    case CsvKind::CounterCollection: {
        CounterSample s;
        s.startNs = *start;
        s.endNs = end;
        s.agent = agentAt("Agent_Id").value_or(0);
        s.counter = fieldAt(row, c.index("Counter_Name"));
        const std::string_view v = fieldAt(row, c.index("Counter_Value"));
        auto value = parseDouble(v);
        if (!value) {
            bad = true;
            break;
        }
        s.value = *value;
        m_importer.addCounterSample(s);
        break;
    }
    case CsvKind::AgentInfo:
    case CsvKind::Unknown: break;
    }
    p.badNumber += bad;
}

Result<std::shared_ptr<Trace>> finishBuild(TraceBuilder &builder, CsvSetReader &reader,
                                           const std::vector<std::string> &sources,
                                           uint64_t bytes, LoadControl *control)
{
    if (reader.usable() == 0)
        return fileError(sources.front(), "holds no rocprofv3 trace CSV file");
    if (auto done = reader.read(); !done)
        return done.error();
    LoadInfo &info = builder.info();
    info.format = "rocprof-csv";
    info.sources = sources;
    info.sourceBytes = bytes;
    std::shared_ptr<Trace> trace = builder.build(control);
    if (!trace)
        return Result<std::shared_ptr<Trace>>::cancelled();
    return trace;
}

} // namespace

Result<std::shared_ptr<Trace>> readRocprofCsv(const std::vector<std::string> &paths,
                                              LoadControl *control, const LoadOptions &options)
{
    LoadControl localControl;
    if (!control)
        control = &localControl;
    if (paths.empty())
        return Error{"no rocprofv3 CSV file given", false};
    uint64_t total = 0;
    for (const std::string &p : paths) {
        std::error_code ec;
        const uint64_t size = fs::file_size(p, ec);
        if (ec)
            return fileError(p, "cannot be read (" + ec.message() + ")");
        total += size;
    }
    control->addTotal(total);
    TraceBuilder builder;
    CsvSetReader reader(builder, *control);
    uint64_t bytes = 0;
    for (const std::string &p : paths) {
        auto contents = readWholeFile(p, control, options.maxDecompressedBytes);
        if (!contents)
            return contents.error();
        bytes += contents.value().fileBytes;
        if (auto added = reader.add(p, std::move(contents).value(), paths.size() == 1); !added)
            return added.error();
    }
    return finishBuild(builder, reader, paths, bytes, control);
}

Result<std::shared_ptr<Trace>> readRocprofCsvBytes(const std::string &name, const void *data,
                                                   size_t size, LoadControl *control,
                                                   const LoadOptions &options)
{
    LoadControl localControl;
    if (!control)
        control = &localControl;
    control->addTotal(size);
    auto contents = readWholeBuffer(name, data, size, control,
                                    DecompressLimit{options.maxDecompressedBytes, {}});
    if (!contents)
        return contents.error();
    TraceBuilder builder;
    CsvSetReader reader(builder, *control);
    if (auto added = reader.add(name, std::move(contents).value(), true); !added)
        return added.error();
    return finishBuild(builder, reader, {name}, size, control);
}

} // namespace tracedesk::core
