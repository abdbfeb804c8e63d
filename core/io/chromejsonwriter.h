#pragma once

// ChromeJsonWriter: streams a Chrome Trace Event Format file (object form, FORMATS.md 5) one
// event per line, so arbitrarily large traces are written in bounded memory.
//
// Times are given in picoseconds and written as microseconds with up to six decimals (exact).
// The output goes to "<path>.partial" and is renamed into place by finish(), so a reader never
// sees a half-written file. Single-threaded.

#include "core/base/result.h"
#include "core/io/stagedfile.h"
#include "core/model/types.h"

#include <cstdint>
#include <cstdio>
#include <memory>
#include <string>
#include <string_view>

namespace tracedesk::core {

// The "args" object of one event.
class JsonArgs
{
public:
    void addInt(std::string_view key, int64_t value);
    void addUInt(std::string_view key, uint64_t value);
    void addDouble(std::string_view key, double value);
    void addString(std::string_view key, std::string_view value);
    void clear() { m_text.clear(); }
    bool empty() const { return m_text.empty(); }
    // The members without braces, e.g. `"a":1,"b":"x"`.
    const std::string &text() const { return m_text; }

private:
    void key(std::string_view key);
    std::string m_text;
};

// Appends `text` as a JSON string literal (quotes included).
void appendJsonString(std::string &out, std::string_view text);
// Appends ps as microseconds, e.g. 1234567 -> "1.234567", 5000000 -> "5".
void appendMicros(std::string &out, TimePs ps);

class ChromeJsonWriter
{
public:
    explicit ChromeJsonWriter(std::string path);
    ~ChromeJsonWriter();
    ChromeJsonWriter(const ChromeJsonWriter &) = delete;
    ChromeJsonWriter &operator=(const ChromeJsonWriter &) = delete;

    Result<bool> open();

    void processName(int64_t pid, std::string_view name);
    void processSortIndex(int64_t pid, int64_t index);
    void threadName(int64_t pid, int64_t tid, std::string_view name);
    void threadSortIndex(int64_t pid, int64_t tid, int64_t index);
    void complete(int64_t pid, int64_t tid, std::string_view name, std::string_view category,
                  TimePs start, TimePs duration, const JsonArgs *args = nullptr);
    void counter(int64_t pid, std::string_view name, TimePs time, const JsonArgs &series);
    // Flow start ("s") or end ("f", bound to the enclosing slice with bp "e").
    void flow(bool start, int64_t pid, int64_t tid, TimePs time, uint64_t id,
              std::string_view category, std::string_view name);

    // Closes the document and renames it into place; returns its size in bytes.
    Result<uint64_t> finish();

private:
    void beginEvent();
    void metadata(int64_t pid, const int64_t *tid, std::string_view name, const std::string &args);
    void flushIfFull();

    StagedFile m_file;
    std::string m_buffer;
    bool m_first = true;
};

} // namespace tracedesk::core
