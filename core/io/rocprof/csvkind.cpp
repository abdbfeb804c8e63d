#include "core/io/rocprof/csvkind.h"
#include "core/io/rocprof/rocprofreader.h"

#include "core/io/decompress.h"

#include <algorithm>
#include <filesystem>

namespace fs = std::filesystem;

namespace tracedesk::core {

namespace rocprof {

namespace {

// The kinds rocprofv3 appends to a set's prefix, longest first so `_hip_api_trace` is not read
// as `_api_trace`. `hip_trace` and `rccl_trace` are the documentation's older names.
constexpr std::string_view kSuffixes[] = {
    "memory_allocation_trace", "scratch_memory_trace", "rocdecode_api_trace", "memory_copy_trace",
    "rocjpeg_api_trace",       "counter_collection",   "marker_api_trace",    "rccl_api_trace",
    "hip_api_trace",           "hsa_api_trace",        "kernel_trace",        "agent_info",
    "rccl_trace",              "hip_trace",            "hsa_trace"};

bool endsWith(std::string_view s, std::string_view suffix)
{
    return s.size() >= suffix.size() && s.substr(s.size() - suffix.size()) == suffix;
}

std::string lower(std::string s)
{
    std::transform(s.begin(), s.end(), s.begin(),
                   [](unsigned char c) { return char(std::tolower(c)); });
    return s;
}

} // namespace

CsvKind csvKind(const CsvColumns &c)
{
    if (c.has("Counter_Name"))
        return CsvKind::CounterCollection;
    if (c.has("Kernel_Name") || (c.has("Dispatch_Id") && c.has("Queue_Id")))
        return CsvKind::KernelTrace;
    if (c.has("Domain") && c.has("Function"))
        return CsvKind::ApiTrace;
    if (c.has("Direction") || c.has("Source_Agent_Id") || c.has("Destination_Agent_Id"))
        return CsvKind::MemoryCopy;
    if (c.has("Allocation_Size"))
        return CsvKind::MemoryAllocation;
    if (c.has("Alloc_Flags"))
        return CsvKind::ScratchMemory;
    if (c.has("Operation") && c.has("Agent_Id") && c.has("Start_Timestamp"))
        return CsvKind::MemoryAllocation;
    if (c.has("Agent_Type") || (c.has("Node_Id") && c.has("Logical_Node_Id")))
        return CsvKind::AgentInfo;
    return CsvKind::Unknown;
}

CsvKind csvKindOfText(std::string_view text)
{
    CsvRows rows(text);
    std::vector<std::string_view> header;
    if (!rows.next(header))
        return CsvKind::Unknown;
    return csvKind(CsvColumns(header));
}

std::string csvSetPrefix(std::string_view fileName)
{
    std::string name = lower(std::string(fileName));
    for (std::string_view ext : {".gz", ".zst"}) {
        if (endsWith(name, ext))
            name.resize(name.size() - ext.size());
    }
    if (endsWith(name, ".csv"))
        name.resize(name.size() - 4);
    const std::string_view stem(name);
    for (std::string_view suffix : kSuffixes) {
        if (!endsWith(stem, suffix))
            continue;
        const size_t at = stem.size() - suffix.size();
        if (at == 0 || stem[at - 1] == '_' || stem[at - 1] == '-' || stem[at - 1] == '.')
            return std::string(fileName.substr(0, at));
    }
    return std::string(fileName.substr(0, std::min(fileName.size(), stem.size())));
}

} // namespace rocprof

namespace {

bool isCsvName(const std::string &name)
{
    std::string n = name;
    std::transform(n.begin(), n.end(), n.begin(),
                   [](unsigned char c) { return char(std::tolower(c)); });
    auto ends = [&](std::string_view s) {
        return n.size() >= s.size() && n.compare(n.size() - s.size(), s.size(), s) == 0;
    };
    return ends(".csv") || ends(".csv.gz") || ends(".csv.zst");
}

// A header is at most a few hundred bytes; agent_info's is the longest.
constexpr size_t kHeaderBytes = 16384;

} // namespace

bool looksLikeRocprofCsv(std::string_view head)
{
    return rocprof::isTraceKind(rocprof::csvKindOfText(head));
}

std::vector<std::string> rocprofCsvFilesIn(const std::string &dir)
{
    std::vector<std::string> out;
    std::error_code ec;
    for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
        std::error_code fec;
        if (!it->is_regular_file(fec) || !isCsvName(it->path().filename().string()))
            continue;
        const std::string path = it->path().string();
        // The agents come with a set; statistics files are no trace.
        if (rocprof::csvKindOfText(readFileHead(path, kHeaderBytes)) != rocprof::CsvKind::Unknown)
            out.push_back(path);
    }
    std::sort(out.begin(), out.end());
    // A folder of agent lists only is no trace.
    const bool anyTrace = std::any_of(out.begin(), out.end(), [](const std::string &p) {
        return looksLikeRocprofCsv(readFileHead(p, kHeaderBytes));
    });
    return anyTrace ? out : std::vector<std::string>();
}

std::vector<std::string> rocprofCsvSetOf(const std::string &file)
{
    const fs::path path(file);
    const std::string prefix = rocprof::csvSetPrefix(path.filename().string());
    std::vector<std::string> out;
    const fs::path dir = path.has_parent_path() ? path.parent_path() : fs::path(".");
    for (const std::string &f : rocprofCsvFilesIn(dir.string())) {
        if (rocprof::csvSetPrefix(fs::path(f).filename().string()) == prefix)
            out.push_back(f);
    }
    const bool listed = std::any_of(out.begin(), out.end(), [&](const std::string &f) {
        std::error_code ec;
        return fs::equivalent(f, file, ec);
    });
    if (!listed)
        out.push_back(file);
    if (out.size() > 1 && path.parent_path().empty()) {
        // Named as given (a relative name without a folder), so the cache key and titles match.
        for (std::string &f : out)
            f = fs::path(f).lexically_relative(".").string();
    }
    std::sort(out.begin(), out.end());
    return out;
}

} // namespace tracedesk::core
