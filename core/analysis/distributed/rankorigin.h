#pragma once

// Rank origin: where a Chrome JSON (Kineto) trace's time 0 lies on the writer's absolute clock,
// so that ranks loaded one by one can be put on one clock.
//
// Why a probe: the Chrome JSON reader makes epoch timestamps relative to the first event's whole
// microsecond (ChromeJsonParser::originMicros, epoch picoseconds do not fit 64 bits) and the
// store does not keep that origin. The probe re-reads only the head of the file (a growing
// prefix, decompressed when gzip or zstd) and applies the parser's own rule to the first
// non-metadata event; `baseTimeNanoseconds` (Kineto >= 2024, ts relative to it) is added.
// Clocks are the files' own: no skew correction between hosts.
//
// Pure function over a file; safe from any thread.

#include "core/base/result.h"

#include <cstdint>
#include <string>

namespace tracedesk::core::analysis::distributed {

// Nanoseconds of the trace's time 0 on the file's clock (0 when the file's timestamps are
// small and used as they are).
Result<int64_t> chromeJsonOriginNs(const std::string &path);
// The same over the (possibly compressed) bytes of a file.
Result<int64_t> chromeJsonOriginNsOfBytes(const std::string &name, const void *data, size_t size);

} // namespace tracedesk::core::analysis::distributed
