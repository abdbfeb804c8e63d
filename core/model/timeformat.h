#pragma once

// Human-readable durations and times with an adaptive unit (ps, ns, us, ms, s).

#include "core/model/types.h"

#include <string>

namespace tracedesk::core {

// e.g. 1'500'000 ps -> "1.50 us"; `digits` significant decimals after the point.
std::string formatDuration(TimePs ps, int digits = 2);

} // namespace tracedesk::core
