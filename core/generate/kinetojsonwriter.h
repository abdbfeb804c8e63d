#pragma once

// KinetoJsonWriter: streams a PyTorch profiler (Kineto) trace, the `*.pt.trace.json` dialect of
// PYTORCH.md section 1, one event per line, in bounded memory whatever the event count.
//
// The caller supplies the top-level members that precede `traceEvents` (schemaVersion,
// deviceProperties, ...) to open() and those that follow it to finish(). Times are integer
// nanoseconds relative to `baseTimeNanoseconds`, written as Kineto does: microseconds with exactly
// three decimals ("1234.567"), so every value is exact. Output goes to "<path>.partial" and is
// renamed into place by finish(); a failed or abandoned write leaves nothing behind.
// Single-threaded.

#include "core/base/result.h"
#include "core/io/stagedfile.h"

#include <cstdint>
#include <cstdio>
#include <string>
#include <string_view>

namespace tracedesk::core {

// Appends ns as Kineto's microseconds with three decimals: 1234567 -> "1234.567", 5 -> "0.005".
void appendKinetoMicros(std::string &out, int64_t ns);

// The members of one "args" object (or of any JSON object), built without braces.
class KinetoArgs
{
public:
    KinetoArgs &integer(std::string_view key, int64_t value);
    // Rounded to six decimals, as Kineto prints its float metrics ("4.272727").
    KinetoArgs &number(std::string_view key, double value);
    KinetoArgs &string(std::string_view key, std::string_view value);
    // `json` is inserted verbatim (an array or object already in JSON form).
    KinetoArgs &raw(std::string_view key, std::string_view json);
    // Members already in text form (another KinetoArgs' text()); empty adds nothing.
    KinetoArgs &append(std::string_view members);
    void clear() { m_text.clear(); }
    const std::string &text() const { return m_text; }

private:
    void key(std::string_view key);
    std::string m_text;
};

class KinetoJsonWriter
{
public:
    explicit KinetoJsonWriter(std::string path);
    ~KinetoJsonWriter();
    KinetoJsonWriter(const KinetoJsonWriter &) = delete;
    KinetoJsonWriter &operator=(const KinetoJsonWriter &) = delete;

    // `header`: the members before "traceEvents", without braces or a trailing comma.
    Result<bool> open(std::string_view header);

    void complete(std::string_view category, std::string_view name, int64_t pid, int64_t tid,
                  int64_t startNs, int64_t durationNs, const std::string &args);
    // A thread-scoped instant ("s":"t").
    void instant(std::string_view category, std::string_view name, int64_t pid, int64_t tid,
                 int64_t timeNs, const std::string &args);
    // Flow start ("s") or end ("f" with "bp":"e"); category and name are both `category`.
    void flow(bool start, std::string_view category, uint64_t id, int64_t pid, int64_t tid,
              int64_t timeNs);
    void metadata(std::string_view name, int64_t pid, int64_t tid, int64_t timeNs,
                  const std::string &args);
    // An event whose members the caller writes itself (string pids of markers); call
    // endEvent() after appending them to the returned buffer.
    std::string &beginRaw();
    void endEvent();

    uint64_t events() const { return m_events; }

    // `trailer`: the members after the event array, without braces or a leading comma.
    // Closes the document and renames it into place; returns its size in bytes.
    Result<uint64_t> finish(std::string_view trailer);

private:
    void beginEvent();
    void head(std::string_view phase, std::string_view category, std::string_view name, int64_t pid,
              int64_t tid, int64_t timeNs);

    StagedFile m_file;
    std::string m_buffer;
    uint64_t m_events = 0;
};

} // namespace tracedesk::core
