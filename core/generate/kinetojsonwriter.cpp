#include "core/generate/kinetojsonwriter.h"

#include "core/io/chromejsonwriter.h"

#include <charconv>
#include <cmath>
#include <filesystem>

namespace tracedesk::core {

namespace {

constexpr size_t kFlushBytes = 1 << 20;

void appendInt(std::string &out, int64_t v)
{
    char buf[24];
    const auto r = std::to_chars(buf, buf + sizeof buf, v);
    out.append(buf, r.ptr);
}

} // namespace

void appendKinetoMicros(std::string &out, int64_t ns)
{
    uint64_t magnitude = ns < 0 ? uint64_t(0) - uint64_t(ns) : uint64_t(ns);
    if (ns < 0)
        out.push_back('-');
    char buf[24];
    const auto r = std::to_chars(buf, buf + sizeof buf, magnitude / 1000);
    out.append(buf, r.ptr);
    const auto fraction = unsigned(magnitude % 1000);
    const char digits[4] = {'.', char('0' + fraction / 100), char('0' + fraction / 10 % 10),
                            char('0' + fraction % 10)};
    out.append(digits, 4);
}

void KinetoArgs::key(std::string_view key)
{
    if (!m_text.empty())
        m_text.push_back(',');
    appendJsonString(m_text, key);
    m_text.push_back(':');
}

KinetoArgs &KinetoArgs::integer(std::string_view k, int64_t value)
{
    key(k);
    appendInt(m_text, value);
    return *this;
}

KinetoArgs &KinetoArgs::number(std::string_view k, double value)
{
    key(k);
    if (!std::isfinite(value)) {
        m_text += "\"inf\"";
        return *this;
    }
    // Rounding first keeps the shortest round-trip form short and the same on every platform.
    const double rounded = std::round(value * 1e6) / 1e6;
    char buf[32];
    const auto r = std::to_chars(buf, buf + sizeof buf, rounded);
    m_text.append(buf, r.ptr);
    return *this;
}

KinetoArgs &KinetoArgs::string(std::string_view k, std::string_view value)
{
    key(k);
    appendJsonString(m_text, value);
    return *this;
}

KinetoArgs &KinetoArgs::raw(std::string_view k, std::string_view json)
{
    key(k);
    m_text += json;
    return *this;
}

KinetoArgs &KinetoArgs::append(std::string_view members)
{
    if (members.empty())
        return *this;
    if (!m_text.empty())
        m_text.push_back(',');
    m_text += members;
    return *this;
}

KinetoJsonWriter::KinetoJsonWriter(std::string path) : m_file(std::move(path)) {}

KinetoJsonWriter::~KinetoJsonWriter() = default;

Result<bool> KinetoJsonWriter::open(std::string_view header)
{
    if (auto opened = m_file.open(); !opened)
        return opened;
    m_buffer.reserve(kFlushBytes + 4096);
    m_buffer = "{\n";
    m_buffer += header;
    m_buffer += ",\n\"traceEvents\":[";
    return true;
}

void KinetoJsonWriter::beginEvent()
{
    if (m_events != 0)
        m_buffer.push_back(',');
    m_buffer.push_back('\n');
    ++m_events;
}

void KinetoJsonWriter::endEvent()
{
    m_file.flushIfFull(m_buffer, kFlushBytes);
}

std::string &KinetoJsonWriter::beginRaw()
{
    beginEvent();
    return m_buffer;
}

void KinetoJsonWriter::head(std::string_view phase, std::string_view category,
                            std::string_view name, int64_t pid, int64_t tid, int64_t timeNs)
{
    beginEvent();
    m_buffer += "{\"ph\":\"";
    m_buffer += phase;
    m_buffer += '"';
    if (!category.empty()) {
        m_buffer += ",\"cat\":";
        appendJsonString(m_buffer, category);
    }
    m_buffer += ",\"name\":";
    appendJsonString(m_buffer, name);
    m_buffer += ",\"pid\":";
    appendInt(m_buffer, pid);
    m_buffer += ",\"tid\":";
    appendInt(m_buffer, tid);
    m_buffer += ",\"ts\":";
    appendKinetoMicros(m_buffer, timeNs);
}

void KinetoJsonWriter::complete(std::string_view category, std::string_view name, int64_t pid,
                                int64_t tid, int64_t startNs, int64_t durationNs,
                                const std::string &args)
{
    head("X", category, name, pid, tid, startNs);
    m_buffer += ",\"dur\":";
    appendKinetoMicros(m_buffer, durationNs);
    m_buffer += ",\"args\":{";
    m_buffer += args;
    m_buffer += "}}";
    endEvent();
}

void KinetoJsonWriter::instant(std::string_view category, std::string_view name, int64_t pid,
                               int64_t tid, int64_t timeNs, const std::string &args)
{
    head("i", category, name, pid, tid, timeNs);
    m_buffer += ",\"s\":\"t\",\"args\":{";
    m_buffer += args;
    m_buffer += "}}";
    endEvent();
}

void KinetoJsonWriter::flow(bool start, std::string_view category, uint64_t id, int64_t pid,
                            int64_t tid, int64_t timeNs)
{
    head(start ? "s" : "f", category, category, pid, tid, timeNs);
    m_buffer += ",\"id\":";
    appendInt(m_buffer, int64_t(id));
    m_buffer += start ? "}" : ",\"bp\":\"e\"}";
    endEvent();
}

void KinetoJsonWriter::metadata(std::string_view name, int64_t pid, int64_t tid, int64_t timeNs,
                                const std::string &args)
{
    head("M", {}, name, pid, tid, timeNs);
    m_buffer += ",\"args\":{";
    m_buffer += args;
    m_buffer += "}}";
    endEvent();
}

Result<uint64_t> KinetoJsonWriter::finish(std::string_view trailer)
{
    if (!m_file.isOpen())
        return fileError(m_file.path(), "was not opened");
    m_buffer += "\n],\n";
    m_buffer += trailer;
    m_buffer += "\n}\n";
    return m_file.commit(m_buffer);
}

} // namespace tracedesk::core
