#pragma once

// HLO Op Stats grouped by the Python source line that produced each op: "which line of my model
// costs the time?". One row per source line (ops without one share a "(no source line)" row),
// with the ops' sums: occurrences, time, self time, FLOPs and bytes; rates, intensity and
// bound-by recomputed from those sums by the same rules as a single op's row (hlostats.h), so a
// line holding one op reads exactly like that op. Rows are sorted by self time, descending.
//
// Plain function of a computed HloStats; any thread.

#include "core/analysis/hlostats.h"

namespace tracedesk::core::analysis {

inline constexpr const char *kNoSourceLine = "(no source line)";

// `hloOpName` of each row holds the source line, `category` the categories of its ops
// ("fusion", or "3 categories"), `occurrences` the sum of its ops' occurrences, `expression`
// the number of ops.
HloStats groupHloStatsBySource(const HloStats &ops);

} // namespace tracedesk::core::analysis
