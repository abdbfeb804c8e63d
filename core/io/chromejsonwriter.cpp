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

void appendUInt(std::string &out, uint64_t v)
{
    char buf[24];
    const auto r = std::to_chars(buf, buf + sizeof buf, v);
    out.append(buf, r.ptr);
}

} // namespace

void appendJsonString(std::string &out, std::string_view text)
{
    static constexpr char kHex[] = "0123456789abcdef";
    out.push_back('"');
    for (const char ch : text) {
        const auto c = static_cast<unsigned char>(ch);
        if (c == '"' || c == '\\') {
            out.push_back('\\');
            out.push_back(ch);
        } else if (c < 0x20) {
            out += "\\u00";
            out.push_back(kHex[c >> 4]);
            out.push_back(kHex[c & 15]);
        } else {
            out.push_back(ch);
        }
    }
    out.push_back('"');
}

void appendMicros(std::string &out, TimePs ps)
{
    uint64_t magnitude = ps < 0 ? uint64_t(0) - uint64_t(ps) : uint64_t(ps);
    if (ps < 0)
        out.push_back('-');
    appendUInt(out, magnitude / 1000000);
    uint64_t fraction = magnitude % 1000000;
    if (fraction == 0)
        return;
    char digits[7] = {'0', '0', '0', '0', '0', '0', 0};
    for (int i = 5; i >= 0; --i, fraction /= 10)
        digits[i] = char('0' + fraction % 10);
    int length = 6;
    while (digits[length - 1] == '0')
        --length;
    out.push_back('.');
    out.append(digits, size_t(length));
}

void JsonArgs::key(std::string_view key)
{
    if (!m_text.empty())
        m_text.push_back(',');
    appendJsonString(m_text, key);
    m_text.push_back(':');
}

void JsonArgs::addInt(std::string_view k, int64_t value)
{
    key(k);
    appendInt(m_text, value);
}

void JsonArgs::addUInt(std::string_view k, uint64_t value)
{
    key(k);
    appendUInt(m_text, value);
}

void JsonArgs::addDouble(std::string_view k, double value)
{
    key(k);
    if (!std::isfinite(value)) {
        m_text += "null";
        return;
    }
    char buf[32];
    const auto r = std::to_chars(buf, buf + sizeof buf, value);
    m_text.append(buf, r.ptr);
}

void JsonArgs::addString(std::string_view k, std::string_view value)
{
    key(k);
    appendJsonString(m_text, value);
}

ChromeJsonWriter::ChromeJsonWriter(std::string path) : m_file(std::move(path)) {}

ChromeJsonWriter::~ChromeJsonWriter() = default;

Result<bool> ChromeJsonWriter::open()
{
    if (auto opened = m_file.open(); !opened)
        return opened;
    m_buffer.reserve(kFlushBytes + 4096);
    m_buffer = "{\"displayTimeUnit\":\"ns\",\"traceEvents\":[";
    return true;
}

void ChromeJsonWriter::flushIfFull()
{
    m_file.flushIfFull(m_buffer, kFlushBytes);
}

void ChromeJsonWriter::beginEvent()
{
    if (!m_first)
        m_buffer.push_back(',');
    m_first = false;
    m_buffer.push_back('\n');
}

void ChromeJsonWriter::metadata(int64_t pid, const int64_t *tid, std::string_view name,
                                const std::string &args)
{
    beginEvent();
    m_buffer += "{\"ph\":\"M\",\"pid\":";
    appendInt(m_buffer, pid);
    if (tid) {
        m_buffer += ",\"tid\":";
        appendInt(m_buffer, *tid);
    }
    m_buffer += ",\"name\":";
    appendJsonString(m_buffer, name);
    m_buffer += ",\"args\":{";
    m_buffer += args;
    m_buffer += "}}";
    flushIfFull();
}

void ChromeJsonWriter::processName(int64_t pid, std::string_view name)
{
    JsonArgs args;
    args.addString("name", name);
    metadata(pid, nullptr, "process_name", args.text());
}

void ChromeJsonWriter::processSortIndex(int64_t pid, int64_t index)
{
    JsonArgs args;
    args.addInt("sort_index", index);
    metadata(pid, nullptr, "process_sort_index", args.text());
}

void ChromeJsonWriter::threadName(int64_t pid, int64_t tid, std::string_view name)
{
    JsonArgs args;
    args.addString("name", name);
    metadata(pid, &tid, "thread_name", args.text());
}

void ChromeJsonWriter::threadSortIndex(int64_t pid, int64_t tid, int64_t index)
{
    JsonArgs args;
    args.addInt("sort_index", index);
    metadata(pid, &tid, "thread_sort_index", args.text());
}

void ChromeJsonWriter::complete(int64_t pid, int64_t tid, std::string_view name,
                                std::string_view category, TimePs start, TimePs duration,
                                const JsonArgs *args)
{
    beginEvent();
    m_buffer += "{\"ph\":\"X\",\"pid\":";
    appendInt(m_buffer, pid);
    m_buffer += ",\"tid\":";
    appendInt(m_buffer, tid);
    m_buffer += ",\"ts\":";
    appendMicros(m_buffer, start);
    m_buffer += ",\"dur\":";
    appendMicros(m_buffer, duration);
    m_buffer += ",\"name\":";
    appendJsonString(m_buffer, name);
    if (!category.empty()) {
        m_buffer += ",\"cat\":";
        appendJsonString(m_buffer, category);
    }
    if (args && !args->empty()) {
        m_buffer += ",\"args\":{";
        m_buffer += args->text();
        m_buffer.push_back('}');
    }
    m_buffer.push_back('}');
    flushIfFull();
}

void ChromeJsonWriter::counter(int64_t pid, std::string_view name, TimePs time,
                               const JsonArgs &series)
{
    beginEvent();
    m_buffer += "{\"ph\":\"C\",\"pid\":";
    appendInt(m_buffer, pid);
    m_buffer += ",\"ts\":";
    appendMicros(m_buffer, time);
    m_buffer += ",\"name\":";
    appendJsonString(m_buffer, name);
    m_buffer += ",\"args\":{";
    m_buffer += series.text();
    m_buffer += "}}";
    flushIfFull();
}

void ChromeJsonWriter::flow(bool start, int64_t pid, int64_t tid, TimePs time, uint64_t id,
                            std::string_view category, std::string_view name)
{
    beginEvent();
    m_buffer += start ? "{\"ph\":\"s\",\"pid\":" : "{\"ph\":\"f\",\"bp\":\"e\",\"pid\":";
    appendInt(m_buffer, pid);
    m_buffer += ",\"tid\":";
    appendInt(m_buffer, tid);
    m_buffer += ",\"ts\":";
    appendMicros(m_buffer, time);
    m_buffer += ",\"id\":";
    appendUInt(m_buffer, id);
    m_buffer += ",\"cat\":";
    appendJsonString(m_buffer, category);
    m_buffer += ",\"name\":";
    appendJsonString(m_buffer, name);
    m_buffer.push_back('}');
    flushIfFull();
}

Result<uint64_t> ChromeJsonWriter::finish()
{
    if (!m_file.isOpen())
        return fileError(m_file.path(), "was not opened");
    m_buffer += "\n]}\n";
    return m_file.commit(m_buffer);
}

} // namespace tracedesk::core
