#pragma once

// Human-readable durations and times with an adaptive unit (ps, ns, us, ms, s).

#include "core/model/types.h"

#include <string>

namespace tracedesk::core {

// e.g. 1'500'000 ps -> "1.50 us"; `digits` significant decimals after the point.
std::string formatDuration(TimePs ps, int digits = 2);

// A point in time, from the trace's start, precise enough to tell neighbouring events apart:
// seconds with every nanosecond, in groups of three ("1.795 421 300 s"), and the picoseconds
// too when there are any ("0.000 001 234 567 s").
std::string formatTimestamp(TimePs ps);

} // namespace tracedesk::core
