// The document's structure: the clock origin, each process's metadata, agents and name tables,
// and which buffer record list goes to which decoder (rocprofdocumentrecords.cpp).

#include "core/io/rocprof/rocprofdocument.h"

#include "core/base/loadcontrol.h"

#include <filesystem>

namespace tracedesk::core::rocprof {

using namespace json;

namespace {

constexpr std::string_view kRoot = "rocprofiler-sdk-tool";
constexpr size_t kTickRecords = 4096;   // records between cancel checks

} // namespace

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
                const std::string first = line.substr(0, line.find(' '));
                m_importer.nameProcess(m_pid,
                                       std::filesystem::path(first).filename().string());
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

} // namespace tracedesk::core::rocprof
