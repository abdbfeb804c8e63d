// The rocprofv3 JSON results document (`rocprofiler-sdk-tool`, rocprofv3-schema.json): one entry
// per process with its agents, kernel symbols, the name tables of its record kinds and
// operations, and its buffer records (kernel dispatches, API calls, markers, memory copies and
// allocations) and counter collection callbacks, decoded into rocprofrecords.h records.

#include "core/io/rocprof/rocprofimporter.h"
#include "core/io/rocprof/rocprofreader.h"

#include "core/io/decompress.h"

#include <simdjson.h>

#include <filesystem>
#include <limits>
#include <unordered_map>

namespace tracedesk::core {

namespace {

using simdjson::dom::array;
using simdjson::dom::element;
using simdjson::dom::object;
using namespace rocprof;

constexpr std::string_view kRoot = "rocprofiler-sdk-tool";
constexpr size_t kTickRecords = 4096;   // records between cancel checks

std::optional<int64_t> intOf(element e)
{
    int64_t i = 0;
    uint64_t u = 0;
    double d = 0;
    if (e.get_int64().get(i) == simdjson::SUCCESS)
        return i;
    if (e.get_uint64().get(u) == simdjson::SUCCESS)
        return int64_t(std::min<uint64_t>(u, uint64_t(INT64_MAX)));
    if (e.get_double().get(d) == simdjson::SUCCESS && d > -9e18 && d < 9e18)
        return int64_t(d);
    return std::nullopt;
}

std::optional<int64_t> intAt(object o, std::string_view key)
{
    element e;
    if (o[key].get(e) != simdjson::SUCCESS)
        return std::nullopt;
    return intOf(e);
}

// `{"handle": N}` (agent, queue, stream and counter ids).
std::optional<int64_t> handleAt(object o, std::string_view key)
{
    object h;
    if (o[key].get_object().get(h) != simdjson::SUCCESS)
        return intAt(o, key);
    return intAt(h, "handle");
}

std::string_view stringAt(object o, std::string_view key)
{
    std::string_view s;
    if (o[key].get_string().get(s) != simdjson::SUCCESS)
        return {};
    return s;
}

Dim3 dim3At(object o, std::string_view key)
{
    object d;
    Dim3 out;
    if (o[key].get_object().get(d) != simdjson::SUCCESS)
        return out;
    out.x = intAt(d, "x").value_or(-1);
    out.y = intAt(d, "y").value_or(1);
    out.z = intAt(d, "z").value_or(1);
    return out;
}

// Kinds and their operations by number: `strings.buffer_records[kind] = {kind, operations}`.
struct NameTables
{
    std::vector<std::string_view> kinds;
    std::vector<std::vector<std::string_view>> operations;

    std::string_view kind(int64_t k) const
    {
        return k >= 0 && size_t(k) < kinds.size() ? kinds[size_t(k)] : std::string_view();
    }
    std::string_view operation(int64_t k, int64_t op) const
    {
        if (k < 0 || size_t(k) >= operations.size() || op < 0
            || size_t(op) >= operations[size_t(k)].size())
            return {};
        return operations[size_t(k)][size_t(op)];
    }
};

class DocumentReader
{
public:
    DocumentReader(std::string name, TraceBuilder &builder, LoadControl &control)
        : m_name(std::move(name)), m_builder(builder), m_control(control), m_importer(builder)
    {}

    Result<bool> read(array processes);

private:
    struct ListProblems
    {
        uint64_t malformed = 0;   // not an object, or without a start time
    };

    void readProcess(object process, int64_t index);
    void readAgents(object process);
    void readNames(object process);
    void readKernelDispatches(array records, ListProblems &p);
    void readApiCalls(array records, bool marker, ListProblems &p);
    void readMemoryCopies(array records, ListProblems &p);
    void readMemoryOperations(array records, std::string_view category, ListProblems &p);
    void readCounters(object process, ListProblems &p);
    bool tick();
    void warn(std::string_view list, const ListProblems &p);

    std::string m_name;
    TraceBuilder &m_builder;
    LoadControl &m_control;
    RocprofImporter m_importer;
    bool m_cancelled = false;
    uint64_t m_records = 0;
    int64_t m_pid = 0;
    NameTables m_names;
    std::vector<std::string_view> m_kernelNames;
    std::unordered_map<int64_t, std::string_view> m_markerMessages;
    std::unordered_map<int64_t, std::string_view> m_counterNames;
    std::unordered_map<int64_t, std::pair<int64_t, int64_t>> m_dispatchTimes;   // id -> ns
};

bool DocumentReader::tick()
{
    if (++m_records % kTickRecords == 0 && m_control.cancelRequested())
        m_cancelled = true;
    return !m_cancelled;
}

void DocumentReader::warn(std::string_view list, const ListProblems &p)
{
    if (p.malformed)
        m_builder.info().warn(m_name + ": " + std::string(list) + ": "
                              + std::to_string(p.malformed)
                              + " records that are not objects with a start_timestamp skipped");
}

Result<bool> DocumentReader::read(array processes)
{
    // Every process of one document shares the host's clock: time 0 is the earliest start.
    std::optional<int64_t> origin;
    for (element e : processes) {
        object p, meta;
        if (e.get_object().get(p) != simdjson::SUCCESS
            || p["metadata"].get_object().get(meta) != simdjson::SUCCESS)
            continue;
        if (auto t = intAt(meta, "init_time"); t && (!origin || *t < *origin))
            origin = *t;
    }
    if (!origin) {
        // No metadata: the first dispatch or call found.
        for (element e : processes) {
            object p, lists;
            if (e.get_object().get(p) != simdjson::SUCCESS
                || p["buffer_records"].get_object().get(lists) != simdjson::SUCCESS)
                continue;
            for (auto field : lists) {
                array records;
                if (field.value.get_array().get(records) != simdjson::SUCCESS)
                    continue;
                for (element r : records) {
                    object o;
                    if (r.get_object().get(o) != simdjson::SUCCESS)
                        continue;
                    if (auto t = intAt(o, "start_timestamp"); t && (!origin || *t < *origin))
                        origin = *t;
                }
            }
        }
    }
    m_importer.setOrigin(origin.value_or(0));
    int64_t index = 0;
    for (element e : processes) {
        object p;
        if (e.get_object().get(p) != simdjson::SUCCESS)
            return fileError(m_name, "entry " + std::to_string(index) + " of \""
                                         + std::string(kRoot) + "\" is not an object");
        readProcess(p, index++);
        if (m_cancelled)
            return Result<bool>::cancelled();
    }
    m_importer.finish(m_name);
    return true;
}

void DocumentReader::readProcess(object process, int64_t index)
{
    object meta;
    m_pid = index;
    if (process["metadata"].get_object().get(meta) == simdjson::SUCCESS) {
        m_pid = intAt(meta, "pid").value_or(index);
        RunMetadata &run = m_builder.info().run;
        array command;
        if (meta["command"].get_array().get(command) == simdjson::SUCCESS) {
            std::string line;
            for (element c : command) {
                std::string_view s;
                if (c.get_string().get(s) == simdjson::SUCCESS)
                    line += (line.empty() ? "" : " ") + std::string(s);
            }
            if (!line.empty()) {
                run.properties.emplace_back("command", line);
                std::string_view first = line.substr(0, line.find(' '));
                m_importer.nameProcess(
                    m_pid, std::filesystem::path(std::string(first)).filename().string());
            }
        }
        object node;
        if (meta["node"].get_object().get(node) == simdjson::SUCCESS) {
            if (auto host = stringAt(node, "hostname"); !host.empty())
                run.properties.emplace_back("hostname", std::string(host));
        }
    }
    m_importer.beginScope(m_pid, "pid " + std::to_string(m_pid));
    readAgents(process);
    readNames(process);

    object lists;
    if (process["buffer_records"].get_object().get(lists) == simdjson::SUCCESS) {
        // Dispatches first: the counter callbacks take their times from them.
        array records;
        ListProblems p;
        if (lists["kernel_dispatch"].get_array().get(records) == simdjson::SUCCESS)
            readKernelDispatches(records, p);
        warn("buffer_records.kernel_dispatch", p);
        for (auto field : lists) {
            const std::string_view key = field.key;
            if (key == "kernel_dispatch" || field.value.get_array().get(records) != simdjson::SUCCESS)
                continue;
            ListProblems lp;
            if (key == "memory_copy")
                readMemoryCopies(records, lp);
            else if (key == "memory_allocation" || key == "scratch_memory")
                readMemoryOperations(records, key, lp);
            else if (key.size() > 4 && key.substr(key.size() - 4) == "_api")
                readApiCalls(records, key == "marker_api", lp);
            else
                continue;   // PC samples, thread traces: nothing the timeline shows
            warn("buffer_records." + std::string(key), lp);
            if (m_cancelled)
                return;
        }
    }
    ListProblems cp;
    readCounters(process, cp);
    warn("callback_records.counter_collection", cp);
}

void DocumentReader::readAgents(object process)
{
    array agents;
    if (process["agents"].get_array().get(agents) != simdjson::SUCCESS)
        return;
    int64_t gpuIndex = 0;
    for (element e : agents) {
        object o;
        if (e.get_object().get(o) != simdjson::SUCCESS)
            continue;
        const auto handle = handleAt(o, "id");
        if (!handle)
            continue;
        Agent a;
        a.key = *handle;
        a.gpu = intAt(o, "type") == 2;   // HSA_DEVICE_TYPE_GPU
        const int64_t node = intAt(o, "logical_node_id").value_or(intAt(o, "node_id").value_or(0));
        a.device = a.gpu ? intAt(o, "logical_node_type_id").value_or(gpuIndex) : 1000 + node;
        gpuIndex += a.gpu;
        a.name = std::string(stringAt(o, "name"));
        a.product = std::string(stringAt(o, "product_name"));
        a.computeUnits = intAt(o, "cu_count").value_or(0);
        a.wavefrontSize = intAt(o, "wave_front_size").value_or(0);
        a.maxWavesPerCu = intAt(o, "max_waves_per_cu").value_or(0);
        array banks;
        if (o["mem_banks"].get_array().get(banks) == simdjson::SUCCESS) {
            for (element b : banks) {
                object bo;
                if (b.get_object().get(bo) == simdjson::SUCCESS)
                    a.memoryBytes += uint64_t(std::max<int64_t>(0, intAt(bo, "size_in_bytes").value_or(0)));
            }
        }
        m_importer.addAgent(a);
    }
}

void DocumentReader::readNames(object process)
{
    m_names = {};
    m_kernelNames.clear();
    m_markerMessages.clear();
    m_counterNames.clear();
    m_dispatchTimes.clear();
    object strings;
    if (process["strings"].get_object().get(strings) == simdjson::SUCCESS) {
        array kinds;
        if (strings["buffer_records"].get_array().get(kinds) == simdjson::SUCCESS) {
            for (element k : kinds) {
                object o;
                if (k.get_object().get(o) != simdjson::SUCCESS)
                    continue;
                m_names.kinds.push_back(stringAt(o, "kind"));
                auto &ops = m_names.operations.emplace_back();
                array list;
                if (o["operations"].get_array().get(list) == simdjson::SUCCESS) {
                    for (element op : list) {
                        std::string_view s;
                        ops.push_back(op.get_string().get(s) == simdjson::SUCCESS ? s
                                                                                 : std::string_view());
                    }
                }
            }
        }
        array markers;
        if (strings["marker_api"].get_array().get(markers) == simdjson::SUCCESS) {
            for (element m : markers) {
                object o;
                if (m.get_object().get(o) != simdjson::SUCCESS)
                    continue;
                if (auto key = intAt(o, "key"))
                    m_markerMessages[*key] = stringAt(o, "value");
            }
        }
    }
    array symbols;
    if (process["kernel_symbols"].get_array().get(symbols) == simdjson::SUCCESS) {
        for (element s : symbols) {
            object o;
            if (s.get_object().get(o) != simdjson::SUCCESS)
                continue;
            const auto id = intAt(o, "kernel_id");
            if (!id || *id < 0 || *id > int64_t(1) << 24)
                continue;
            // The name rocprofv3's own CSV and summaries show: demangled, without the `.kd`.
            std::string_view name = stringAt(o, "formatted_kernel_name");
            if (name.empty())
                name = stringAt(o, "demangled_kernel_name");
            if (name.empty())
                name = stringAt(o, "kernel_name");
            if (size_t(*id) >= m_kernelNames.size())
                m_kernelNames.resize(size_t(*id) + 1);
            m_kernelNames[size_t(*id)] = name;
        }
    }
    array counters;
    if (process["counters"].get_array().get(counters) == simdjson::SUCCESS) {
        for (element c : counters) {
            object o;
            if (c.get_object().get(o) != simdjson::SUCCESS)
                continue;
            if (auto id = handleAt(o, "id"))
                m_counterNames[*id] = stringAt(o, "name");
        }
    }
}

void DocumentReader::readKernelDispatches(array records, ListProblems &p)
{
    std::string unnamed;
    for (element e : records) {
        if (!tick())
            return;
        object o, info;
        std::optional<int64_t> start;
        if (e.get_object().get(o) != simdjson::SUCCESS
            || !(start = intAt(o, "start_timestamp"))
            || o["dispatch_info"].get_object().get(info) != simdjson::SUCCESS) {
            ++p.malformed;
            continue;
        }
        KernelDispatch d;
        d.startNs = *start;
        d.endNs = intAt(o, "end_timestamp");
        d.agent = handleAt(info, "agent_id").value_or(0);
        d.queue = handleAt(info, "queue_id").value_or(0);
        d.stream = handleAt(o, "stream_id").value_or(-1);
        d.tid = intAt(o, "thread_id").value_or(-1);
        object corr;
        if (o["correlation_id"].get_object().get(corr) == simdjson::SUCCESS)
            d.correlation = intAt(corr, "internal");
        d.dispatchId = intAt(info, "dispatch_id").value_or(-1);
        d.kernelId = intAt(info, "kernel_id").value_or(-1);
        if (d.kernelId >= 0 && size_t(d.kernelId) < m_kernelNames.size())
            d.name = m_kernelNames[size_t(d.kernelId)];
        if (d.name.empty() && d.kernelId >= 0) {
            unnamed = "(kernel " + std::to_string(d.kernelId) + ")";
            d.name = unnamed;
        }
        d.grid = dim3At(info, "grid_size");
        d.workgroup = dim3At(info, "workgroup_size");
        d.ldsBytes = intAt(info, "group_segment_size");
        d.scratchBytes = intAt(info, "private_segment_size");
        if (d.dispatchId >= 0)
            m_dispatchTimes[d.dispatchId] = {d.startNs, d.endNs.value_or(d.startNs)};
        m_importer.addDispatch(d);
    }
}

void DocumentReader::readApiCalls(array records, bool marker, ListProblems &p)
{
    for (element e : records) {
        if (!tick())
            return;
        object o;
        std::optional<int64_t> start;
        if (e.get_object().get(o) != simdjson::SUCCESS || !(start = intAt(o, "start_timestamp"))) {
            ++p.malformed;
            continue;
        }
        ApiCall c;
        c.startNs = *start;
        c.endNs = intAt(o, "end_timestamp");
        const int64_t kind = intAt(o, "kind").value_or(-1);
        const int64_t op = intAt(o, "operation").value_or(-1);
        c.domain = m_names.kind(kind);
        c.function = m_names.operation(kind, op);
        c.pid = m_pid;
        c.tid = intAt(o, "thread_id").value_or(m_pid);
        c.marker = marker;
        object corr;
        if (o["correlation_id"].get_object().get(corr) == simdjson::SUCCESS)
            c.correlation = intAt(corr, "internal");
        if (marker && c.correlation) {
            // A roctx range or mark is named by its message.
            auto it = m_markerMessages.find(*c.correlation);
            if (it != m_markerMessages.end() && !it->second.empty())
                c.function = it->second;
        }
        m_importer.addApiCall(c);
    }
}

void DocumentReader::readMemoryCopies(array records, ListProblems &p)
{
    for (element e : records) {
        if (!tick())
            return;
        object o;
        std::optional<int64_t> start;
        if (e.get_object().get(o) != simdjson::SUCCESS || !(start = intAt(o, "start_timestamp"))) {
            ++p.malformed;
            continue;
        }
        MemoryCopy c;
        c.startNs = *start;
        c.endNs = intAt(o, "end_timestamp");
        c.direction = m_names.operation(intAt(o, "kind").value_or(-1),
                                        intAt(o, "operation").value_or(-1));
        c.srcAgent = handleAt(o, "src_agent_id").value_or(-1);
        c.dstAgent = handleAt(o, "dst_agent_id").value_or(-1);
        c.stream = handleAt(o, "stream_id").value_or(-1);
        c.bytes = intAt(o, "bytes");
        object corr;
        if (o["correlation_id"].get_object().get(corr) == simdjson::SUCCESS)
            c.correlation = intAt(corr, "internal");
        m_importer.addMemoryCopy(c);
    }
}

void DocumentReader::readMemoryOperations(array records, std::string_view category,
                                          ListProblems &p)
{
    std::string address;
    for (element e : records) {
        if (!tick())
            return;
        object o;
        std::optional<int64_t> start;
        if (e.get_object().get(o) != simdjson::SUCCESS || !(start = intAt(o, "start_timestamp"))) {
            ++p.malformed;
            continue;
        }
        MemoryOperation m;
        m.category = category;
        m.startNs = *start;
        m.endNs = intAt(o, "end_timestamp");
        m.operation = m_names.operation(intAt(o, "kind").value_or(-1),
                                        intAt(o, "operation").value_or(-1));
        m.agent = handleAt(o, "agent_id").value_or(-1);
        m.bytes = intAt(o, "allocation_size");
        if (!m.bytes)
            m.bytes = intAt(o, "size");
        if (auto a = handleAt(o, "address")) {
            char buf[24];
            snprintf(buf, sizeof buf, "0x%016llx", static_cast<unsigned long long>(*a));
            address = buf;
            m.address = address;
        }
        m_importer.addMemoryOperation(m);
    }
}

void DocumentReader::readCounters(object process, ListProblems &p)
{
    object callbacks;
    array records;
    if (process["callback_records"].get_object().get(callbacks) != simdjson::SUCCESS
        || callbacks["counter_collection"].get_array().get(records) != simdjson::SUCCESS)
        return;
    std::string unnamed;
    for (element e : records) {
        if (!tick())
            return;
        object o, data, info;
        array values;
        if (e.get_object().get(o) != simdjson::SUCCESS
            || o["dispatch_data"].get_object().get(data) != simdjson::SUCCESS
            || data["dispatch_info"].get_object().get(info) != simdjson::SUCCESS
            || o["records"].get_array().get(values) != simdjson::SUCCESS) {
            ++p.malformed;
            continue;
        }
        // A counter's instances (per XCC, shader engine, ...) summed, as rocprofv3's CSV does.
        auto when = m_dispatchTimes.find(intAt(info, "dispatch_id").value_or(-1));
        if (when == m_dispatchTimes.end()) {
            ++p.malformed;   // no dispatch record says when it ran
            continue;
        }
        std::map<int64_t, double> sums;
        for (element v : values) {
            object vo;
            double value = 0;
            if (v.get_object().get(vo) != simdjson::SUCCESS)
                continue;
            element ve;
            if (vo["value"].get(ve) != simdjson::SUCCESS || ve.get_double().get(value) != simdjson::SUCCESS) {
                if (auto i = intAt(vo, "value"))
                    value = double(*i);
                else
                    continue;
            }
            sums[handleAt(vo, "counter_id").value_or(-1)] += value;
        }
        for (const auto &[id, value] : sums) {
            CounterSample s;
            s.agent = handleAt(info, "agent_id").value_or(0);
            auto name = m_counterNames.find(id);
            if (name != m_counterNames.end() && !name->second.empty()) {
                s.counter = name->second;
            } else {
                unnamed = "counter " + std::to_string(id);
                s.counter = unnamed;
            }
            s.value = value;
            s.startNs = when->second.first;
            s.endNs = when->second.second;
            m_importer.addCounterSample(s);
        }
    }
}

Result<std::shared_ptr<Trace>> importDocument(const std::string &name,
                                              Result<FileContents> contents,
                                              LoadControl *control)
{
    if (!contents)
        return contents.error();
    const PaddedBuffer &text = contents.value().buffer;
    if (text.empty())
        return fileError(name, "is empty");
    simdjson::dom::parser parser;
    element root;
    if (auto error = parser.parse(text.data(), text.size(), false).get(root);
        error != simdjson::SUCCESS)
        return fileError(name, std::string("is not valid JSON, or is cut short (")
                                   + simdjson::error_message(error) + ")");
    object top;
    array processes;
    if (root.get_object().get(top) != simdjson::SUCCESS
        || top[kRoot].get_array().get(processes) != simdjson::SUCCESS)
        return fileError(name, "is not a rocprofv3 results document (it has no \""
                                   + std::string(kRoot) + "\" array)");
    TraceBuilder builder;
    DocumentReader reader(name, builder, *control);
    if (auto done = reader.read(processes); !done)
        return done.error();
    LoadInfo &info = builder.info();
    info.format = "rocprof-json";
    info.sources = {name};
    info.sourceBytes = contents.value().fileBytes;
    std::shared_ptr<Trace> trace = builder.build(control);
    if (!trace)
        return Result<std::shared_ptr<Trace>>::cancelled();
    return trace;
}

} // namespace

Result<std::shared_ptr<Trace>> readRocprofJson(const std::string &path, LoadControl *control,
                                               const LoadOptions &options)
{
    LoadControl localControl;
    if (!control)
        control = &localControl;
    std::error_code ec;
    const uint64_t bytes = std::filesystem::file_size(path, ec);
    if (ec)
        return fileError(path, "cannot be read (" + ec.message() + ")");
    control->addTotal(bytes);
    return importDocument(path, readWholeFile(path, control, options.maxDecompressedBytes),
                          control);
}

Result<std::shared_ptr<Trace>> readRocprofJsonBytes(const std::string &name, const void *data,
                                                    size_t size, LoadControl *control,
                                                    const LoadOptions &options)
{
    LoadControl localControl;
    if (!control)
        control = &localControl;
    control->addTotal(size);
    return importDocument(
        name,
        readWholeBuffer(name, data, size, control, DecompressLimit{options.maxDecompressedBytes, {}}),
        control);
}

bool looksLikeRocprofJson(std::string_view head)
{
    // The document's one key comes first: `{"rocprofiler-sdk-tool": [`, maybe after whitespace.
    size_t i = 0;
    while (i < head.size() && std::isspace(static_cast<unsigned char>(head[i])))
        ++i;
    if (i >= head.size() || head[i] != '{')
        return false;
    ++i;
    while (i < head.size() && std::isspace(static_cast<unsigned char>(head[i])))
        ++i;
    return head.substr(i, kRoot.size() + 2) == "\"" + std::string(kRoot) + "\"";
}

} // namespace tracedesk::core
