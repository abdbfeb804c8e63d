#pragma once

// One rank's part of a run merged from several files (Kineto rank traces, Nsight Systems
// exports): what the run's LoadInfo takes from the rank's own load, and the shift that puts
// the rank's times on the run's clock.

#include "core/model/trace.h"

#include <string>

namespace tracedesk::core {

// Adds `own`'s warnings (prefixed with `fileName`), uncounted warnings, source bytes and record
// counts to `run`, and `label` to its hosts. Returns the shift in ps from the rank's clock origin
// to the run's earliest (`minOriginNs`); 0, with a warning, when the rank has no origin while
// others do (`anyOrigin`) or the shift does not fit.
TimePs addRankPart(LoadInfo &run, const LoadInfo &own, const std::string &fileName,
                   const std::string &label, int64_t minOriginNs, bool anyOrigin);

} // namespace tracedesk::core
