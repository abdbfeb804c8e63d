#pragma once

// The text report of `tracedesk-cli distributed` (without --json): per rank the totals, per
// rank and step the step time and its computation / communication split, the collectives
// matched across ranks, the collective stats per name, the stragglers, errors and warnings.
// Times in µs.

#include "core/analysis/distributed/distributedsummary.h"

#include <cstddef>

namespace tracedesk::cli {

// `limit`: the matched collectives listed (the first in start order).
void printDistributedText(const core::analysis::distributed::DistributedSummary &summary,
                          size_t limit);

} // namespace tracedesk::cli
