// The record lists of a rocprofv3 results document, each decoded into rocprofrecords.h records:
// kernel dispatches (named through the kernel symbols), API calls and markers (named through
// the kind / operation tables, markers by their message), memory copies and allocations, and
// counter collection callbacks (placed at their dispatch's time).

#include "core/io/rocprof/rocprofdocument.h"

#include <cstdio>
#include <map>

namespace tracedesk::core::rocprof {

using namespace json;

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

} // namespace tracedesk::core::rocprof
