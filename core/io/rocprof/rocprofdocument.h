#pragma once

// DocumentReader: one rocprofv3 JSON results document (`rocprofiler-sdk-tool`,
// rocprofv3-schema.json) walked with simdjson's DOM: one entry per process with its agents,
// kernel symbols, the name tables of its record kinds and operations, and its buffer records
// (kernel dispatches, API calls, markers, memory copies and allocations) and counter collection
// callbacks, each decoded into a rocprofrecords.h record for RocprofImporter.
//
// Every value is asked for its type: a record that is not an object or has no start time is
// skipped and counted (one warning per list); a missing field is no data. One thread; the
// document (and so every string view handed on) lives while read() runs.

#include "core/base/result.h"
#include "core/io/rocprof/rocprofimporter.h"

#include <simdjson.h>

#include <string>
#include <unordered_map>
#include <vector>

namespace tracedesk::core {
class LoadControl;
}

namespace tracedesk::core::rocprof {

namespace json {

using simdjson::dom::array;
using simdjson::dom::element;
using simdjson::dom::object;

// A number as an integer (ints, unsigned ints beyond int64 saturated, doubles truncated).
inline std::optional<int64_t> intOf(element e)
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

inline std::optional<int64_t> intAt(object o, std::string_view key)
{
    element e;
    if (o[key].get(e) != simdjson::SUCCESS)
        return std::nullopt;
    return intOf(e);
}

// `{"handle": N}` (agent, queue, stream and counter ids).
inline std::optional<int64_t> handleAt(object o, std::string_view key)
{
    object h;
    if (o[key].get_object().get(h) != simdjson::SUCCESS)
        return intAt(o, key);
    return intAt(h, "handle");
}

inline std::string_view stringAt(object o, std::string_view key)
{
    std::string_view s;
    if (o[key].get_string().get(s) != simdjson::SUCCESS)
        return {};
    return s;
}

inline Dim3 dim3At(object o, std::string_view key)
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

} // namespace json

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

    // Maps every process of the document; an error names the file (a process entry that is
    // not an object), or says the load was cancelled.
    Result<bool> read(json::array processes);

private:
    struct ListProblems
    {
        uint64_t malformed = 0;   // not an object, or without a start time
    };

    void readProcess(json::object process, int64_t index);
    void readAgents(json::object process);
    void readNames(json::object process);
    void readKernelDispatches(json::array records, ListProblems &p);
    void readApiCalls(json::array records, bool marker, ListProblems &p);
    void readMemoryCopies(json::array records, ListProblems &p);
    void readMemoryOperations(json::array records, std::string_view category,
                              ListProblems &p);
    void readCounters(json::object process, ListProblems &p);
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

} // namespace tracedesk::core::rocprof
