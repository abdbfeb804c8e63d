#include "core/analysis/distributed/summaryfile.h"

#include "core/io/chromejsonwriter.h"

#include <simdjson.h>

#include <array>
#include <charconv>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <type_traits>
#include <unordered_map>

#include <unistd.h>

namespace tracedesk::core::analysis::distributed {

namespace fs = std::filesystem;
using simdjson::dom::array;
using simdjson::dom::element;
using simdjson::dom::object;

namespace {

// Appends JSON with the commas between members placed by the caller's order of calls.
class Writer
{
public:
    std::string text;

    void key(std::string_view k)
    {
        comma();
        appendJsonString(text, k);
        text.push_back(':');
        m_pending = false;
    }
    void open(char c)
    {
        comma();
        text.push_back(c);
        m_pending = false;
    }
    void close(char c)
    {
        text.push_back(c);
        m_pending = true;
    }
    void string(std::string_view v)
    {
        comma();
        appendJsonString(text, v);
        m_pending = true;
    }
    template<typename T>
    void number(T v)
    {
        comma();
        char buf[32];
        text.append(buf, std::to_chars(buf, buf + sizeof buf, v).ptr);
        m_pending = true;
    }
    void boolean(bool v)
    {
        comma();
        text += v ? "true" : "false";
        m_pending = true;
    }
    void null()
    {
        comma();
        text += "null";
        m_pending = true;
    }
    template<typename T>
    void member(std::string_view k, const T &v)
    {
        key(k);
        if constexpr (std::is_same_v<T, bool>)
            boolean(v);
        else if constexpr (std::is_arithmetic_v<T>)
            number(v);
        else
            string(v);
    }

private:
    void comma()
    {
        if (m_pending)
            text.push_back(',');
    }
    bool m_pending = false;
};

// Interns the collectives' repeated strings: their index in the written table.
struct StringTable
{
    std::vector<std::string_view> strings;
    std::unordered_map<std::string_view, size_t> index;
    size_t of(std::string_view s)
    {
        auto [it, added] = index.try_emplace(s, strings.size());
        if (added)
            strings.push_back(s);
        return it->second;
    }
};

void writeRank(Writer &w, const RankSummary &r)
{
    w.key("rank");
    w.open('{');
    w.member("rank", r.rank);
    w.member("rank_guessed", r.rankGuessed);
    w.member("rank_source", r.rankSource);
    w.member("origin_ns", r.originNs);
    w.member("kernel_count", r.kernelCount);
    w.member("communication_kernel_count", r.communicationKernelCount);
    w.member("computation_ps", r.computation);
    w.member("communication_ps", r.communication);
    w.member("overlap_ps", r.overlap);
    w.member("exposed_communication_ps", r.exposedCommunication);
    w.member("idle_ps", r.idle);
    w.member("first_kernel_start_ps", r.firstKernelStart);
    w.member("last_kernel_end_ps", r.lastKernelEnd);
    w.member("host", r.host);
    w.key("warnings");
    w.open('[');
    for (const std::string &s : r.warnings)
        w.string(s);
    w.close(']');
    w.key("steps");
    w.open('[');
    for (const RankStep &s : r.steps) {
        w.open('{');
        w.member("name", s.name);
        w.member("host_start_ps", s.hostStart);
        w.member("start_ps", s.start);
        w.member("end_ps", s.end);
        w.member("computation_ps", s.computation);
        w.member("communication_ps", s.communication);
        w.member("overlap_ps", s.overlap);
        w.member("exposed_communication_ps", s.exposedCommunication);
        w.member("idle_ps", s.idle);
        w.member("has_marker", s.hasMarker);
        w.close('}');
    }
    w.close(']');
    StringTable strings;
    std::vector<std::array<int64_t, 8>> rows;
    rows.reserve(r.collectives.size());
    for (const CollectiveRecord &c : r.collectives) {
        rows.push_back({int64_t(strings.of(c.name)), int64_t(strings.of(c.kind)), c.start, c.end,
                        c.inElements, c.outElements, int64_t(strings.of(c.dtype)), c.bytes});
    }
    w.key("strings");
    w.open('[');
    for (std::string_view s : strings.strings)
        w.string(s);
    w.close(']');
    // name, kind, start_ps, end_ps, in_elements, out_elements, dtype, bytes (strings by index)
    w.key("collectives");
    w.open('[');
    for (const auto &row : rows) {
        w.open('[');
        for (int64_t v : row)
            w.number(v);
        w.close(']');
    }
    w.close(']');
    w.close('}');
}

// Reading: every field is checked; the first problem becomes the error.
class Reader
{
public:
    explicit Reader(const std::string &name) : m_name(name) {}

    bool failed() const { return !m_problem.empty(); }
    Error error() const { return fileError(m_name, m_problem); }
    void fail(std::string problem)
    {
        if (m_problem.empty())
            m_problem = std::move(problem);
    }

    template<typename T>
    T get(const object &o, std::string_view key, std::string_view what)
    {
        T v{};
        if (o[key].get(v) != simdjson::SUCCESS)
            fail("\"" + std::string(key) + "\" is missing or not " + std::string(what));
        return v;
    }
    int64_t integer(const object &o, std::string_view key)
    {
        return get<int64_t>(o, key, "an integer");
    }
    uint64_t count(const object &o, std::string_view key)
    {
        return get<uint64_t>(o, key, "a count");
    }
    bool flag(const object &o, std::string_view key) { return get<bool>(o, key, "true or false"); }
    std::string text(const object &o, std::string_view key)
    {
        return std::string(get<std::string_view>(o, key, "a string"));
    }
    object obj(const object &o, std::string_view key) { return get<object>(o, key, "an object"); }
    array arr(const object &o, std::string_view key) { return get<array>(o, key, "an array"); }

private:
    const std::string &m_name;
    std::string m_problem;
};

void readSteps(Reader &in, const array &steps, RankSummary *out)
{
    for (element e : steps) {
        object o;
        if (e.get(o) != simdjson::SUCCESS) {
            in.fail("a step is not an object");
            return;
        }
        RankStep s;
        s.name = in.text(o, "name");
        s.hostStart = in.integer(o, "host_start_ps");
        s.start = in.integer(o, "start_ps");
        s.end = in.integer(o, "end_ps");
        s.computation = in.integer(o, "computation_ps");
        s.communication = in.integer(o, "communication_ps");
        s.overlap = in.integer(o, "overlap_ps");
        s.exposedCommunication = in.integer(o, "exposed_communication_ps");
        s.idle = in.integer(o, "idle_ps");
        s.hasMarker = in.flag(o, "has_marker");
        if (in.failed())
            return;
        out->steps.push_back(std::move(s));
    }
}

void readCollectives(Reader &in, const array &strings, const array &rows, RankSummary *out)
{
    std::vector<std::string_view> table;
    for (element e : strings) {
        std::string_view s;
        if (e.get(s) != simdjson::SUCCESS)
            return in.fail("a collective string is not a string");
        table.push_back(s);
    }
    out->collectives.reserve(rows.size());
    for (element e : rows) {
        array row;
        int64_t v[8];
        size_t n = 0;
        if (e.get(row) != simdjson::SUCCESS)
            return in.fail("a collective is not an array");
        for (element x : row) {
            if (n == 8 || x.get(v[n]) != simdjson::SUCCESS)
                return in.fail("a collective is not 8 integers");
            ++n;
        }
        if (n != 8)
            return in.fail("a collective is not 8 integers");
        for (int i : {0, 1, 6}) {
            if (v[i] < 0 || uint64_t(v[i]) >= table.size())
                return in.fail("a collective names string " + std::to_string(v[i]) + " of "
                               + std::to_string(table.size()));
        }
        CollectiveRecord c;
        c.name = table[size_t(v[0])];
        c.kind = table[size_t(v[1])];
        c.start = v[2];
        c.end = v[3];
        c.inElements = v[4];
        c.outElements = v[5];
        c.dtype = table[size_t(v[6])];
        c.bytes = v[7];
        out->collectives.push_back(std::move(c));
    }
}

std::optional<RankSummary> readRank(Reader &in, const object &o, const std::string &file)
{
    RankSummary r;
    r.file = file;
    r.rank = in.integer(o, "rank");
    r.rankGuessed = in.flag(o, "rank_guessed");
    r.rankSource = in.text(o, "rank_source");
    r.originNs = in.integer(o, "origin_ns");
    r.kernelCount = in.count(o, "kernel_count");
    r.communicationKernelCount = in.count(o, "communication_kernel_count");
    r.computation = in.integer(o, "computation_ps");
    r.communication = in.integer(o, "communication_ps");
    r.overlap = in.integer(o, "overlap_ps");
    r.exposedCommunication = in.integer(o, "exposed_communication_ps");
    r.idle = in.integer(o, "idle_ps");
    r.firstKernelStart = in.integer(o, "first_kernel_start_ps");
    r.lastKernelEnd = in.integer(o, "last_kernel_end_ps");
    r.host = in.text(o, "host");
    const array warnings = in.arr(o, "warnings");
    const array steps = in.arr(o, "steps");
    const array strings = in.arr(o, "strings");
    const array collectives = in.arr(o, "collectives");
    if (in.failed())
        return std::nullopt;
    for (element e : warnings) {
        std::string_view s;
        if (e.get(s) != simdjson::SUCCESS) {
            in.fail("a warning is not a string");
            return std::nullopt;
        }
        r.warnings.emplace_back(s);
    }
    readSteps(in, steps, &r);
    readCollectives(in, strings, collectives, &r);
    if (in.failed())
        return std::nullopt;
    if (r.steps.size() > UINT32_MAX) {
        in.fail("too many steps");
        return std::nullopt;
    }
    r.stepCount = uint32_t(r.steps.size());
    return r;
}

} // namespace

SummarySource describeSource(const std::string &path)
{
    SummarySource s;
    s.path = path;
    std::error_code ec;
    s.absolutePath = fs::absolute(path, ec).lexically_normal().string();
    const uintmax_t size = fs::file_size(path, ec);
    if (!ec)
        s.size = size;
    const auto mtime = fs::last_write_time(path, ec);
    if (!ec) {
        const auto sys = std::chrono::file_clock::to_sys(mtime);
        s.mtimeNs = std::chrono::duration_cast<std::chrono::nanoseconds>(sys.time_since_epoch())
                        .count();
    }
    return s;
}

std::string summaryFileName(const std::string &tracePath)
{
    return fs::path(tracePath).filename().string() + std::string(kSummarySuffix);
}

bool isSummaryFileName(std::string_view name)
{
    return name.size() > kSummarySuffix.size() && name.ends_with(kSummarySuffix);
}

std::string encodeSummary(const RankSummaryFile &file)
{
    Writer w;
    w.open('{');
    w.member("format", kSummaryFormat);
    w.member("version", kSummaryVersion);
    w.key("source");
    w.open('{');
    w.member("path", file.source.path);
    w.member("absolute_path", file.source.absolutePath);
    w.member("name", fs::path(file.source.path).filename().string());
    w.member("size", file.source.size);
    w.member("mtime_ns", file.source.mtimeNs);
    w.close('}');
    w.member("order", file.order);
    if (file.summary) {
        writeRank(w, *file.summary);
    } else {
        w.member("error", file.error);
    }
    w.close('}');
    w.text.push_back('\n');
    return std::move(w.text);
}

Result<RankSummaryFile> decodeSummary(std::string_view bytes, const std::string &name)
{
    simdjson::dom::parser parser;
    const simdjson::padded_string padded(bytes.data(), bytes.size());
    element root;
    if (auto error = parser.parse(padded).get(root); error != simdjson::SUCCESS) {
        return fileError(name, std::string("is not a rank summary (not valid JSON: ")
                                   + simdjson::error_message(error) + ")");
    }
    object top;
    std::string_view format;
    if (root.get(top) != simdjson::SUCCESS || top["format"].get(format) != simdjson::SUCCESS
        || format != kSummaryFormat) {
        return fileError(name, "is not a rank summary (no \"format\": \""
                                   + std::string(kSummaryFormat) + "\")");
    }
    int64_t version = 0;
    if (top["version"].get(version) != simdjson::SUCCESS)
        return fileError(name, "rank summary without a \"version\"");
    if (version != kSummaryVersion) {
        return fileError(name, "rank summary version " + std::to_string(version)
                                   + ", this build reads version "
                                   + std::to_string(kSummaryVersion)
                                   + "; run the map step again with this build");
    }
    Reader in(name);
    RankSummaryFile out;
    const object source = in.obj(top, "source");
    if (in.failed())
        return in.error();
    out.source.path = in.text(source, "path");
    out.source.absolutePath = in.text(source, "absolute_path");
    out.source.size = in.count(source, "size");
    out.source.mtimeNs = in.integer(source, "mtime_ns");
    out.order = in.count(top, "order");
    if (in.failed())
        return in.error();
    object rank;
    if (top["rank"].get(rank) == simdjson::SUCCESS) {
        out.summary = readRank(in, rank, out.source.path);
    } else {
        out.error = in.text(top, "error");
        if (in.failed())
            return fileError(name, "rank summary with neither \"rank\" nor \"error\"");
    }
    if (in.failed())
        return in.error();
    return out;
}

Result<std::string> writeSummaryFile(const RankSummaryFile &file, const std::string &dir)
{
    std::error_code ec;
    fs::create_directories(dir, ec);
    if (ec)
        return fileError(dir, "cannot create the folder (" + ec.message() + ")");
    const std::string path = (fs::path(dir) / summaryFileName(file.source.path)).string();
    const std::string partial = path + ".partial." + std::to_string(::getpid());
    {
        std::ofstream out(partial, std::ios::binary | std::ios::trunc);
        const std::string text = encodeSummary(file);
        out.write(text.data(), std::streamsize(text.size()));
        out.close();
        if (!out) {
            fs::remove(partial, ec);
            return fileError(partial, "cannot be written");
        }
    }
    fs::rename(partial, path, ec);
    if (ec) {
        fs::remove(partial, ec);
        return fileError(path, "cannot be written (" + ec.message() + ")");
    }
    return path;
}

Result<RankSummaryFile> readSummaryFile(const std::string &path)
{
    std::ifstream in(path, std::ios::binary);
    if (!in)
        return fileError(path, "cannot be opened");
    std::ostringstream bytes;
    bytes << in.rdbuf();
    if (in.bad())
        return fileError(path, "cannot be read");
    const std::string text = std::move(bytes).str();
    return decodeSummary(text, path);
}

} // namespace tracedesk::core::analysis::distributed
