#pragma once

// ChromeJsonParser: turns batches of event texts (cut by ChromeJsonScanner) into ChromeEvents
// with simdjson's on-demand API, in one pass over each event's fields.
//
// A batch is copied into one padded buffer as a JSON array and parsed as one document, which
// keeps the parser's index memory proportional to the batch. When simdjson rejects a batch, the
// events from the failing one on are re-parsed one by one, so one bad event costs only itself.
// Owns the simdjson parser (kept out of this header); one thread.

#include "core/io/chromejsonevent.h"

#include <memory>
#include <string_view>
#include <vector>

namespace tracedesk::core {

class ChromeJsonParser
{
public:
    class Sink
    {
    public:
        virtual ~Sink() = default;
        virtual void event(const ChromeEvent &event) = 0;
        // `problem` is a static description ("not a JSON object", "\"ts\" is not a number", ...).
        virtual void malformed(const char *problem) = 0;
        // The event that follows was kept after `problem` (a static description) was mended.
        virtual void repaired(const char *problem) { (void)problem; }
    };

    ChromeJsonParser();
    ~ChromeJsonParser();
    ChromeJsonParser(const ChromeJsonParser &) = delete;
    ChromeJsonParser &operator=(const ChromeJsonParser &) = delete;

    void parseBatch(const std::vector<std::string_view> &elements, Sink &sink);
    // Epoch-based timestamps (|ts| >= 1e12 us, e.g. Kineto) do not fit picoseconds in 64 bits,
    // so when the first timestamp is that large every ts is made relative to its whole
    // microsecond, returned here; otherwise 0. Fractions stay exact either way.
    int64_t originMicros() const;

private:
    struct Impl;
    std::unique_ptr<Impl> d;
};

} // namespace tracedesk::core
