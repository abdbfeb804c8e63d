#pragma once

// `bench --reduce-ranks N [--generate E] [--seed S] [--json] [--keep DIR]`: generates a
// Kineto run of N ranks of about E events each, maps every rank to its summary and times the
// reduce of the summaries (wall time and peak RSS).

#include "options.h"

namespace tracedesk::cli {

int runReduceBench(const ParsedArgs &args);

} // namespace tracedesk::cli
