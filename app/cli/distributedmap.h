#pragma once

// The map and reduce steps of `distributed` (distributed --map FILE --out DIR, --reduce DIR):
// one rank summarised into a summary file, and the summary files a run's folder summary is
// made from.

#include "options.h"

#include "core/analysis/distributed/distributedsummary.h"

namespace tracedesk::cli {

int runDistributedMap(const ParsedArgs &args);

// The summary files of `paths` (folders give their *.tdsummary files, files are taken as
// they are); false with *error when a path gives none.
bool collectSummaryFiles(const std::vector<std::string> &paths, std::vector<std::string> *files,
                         std::string *error);

} // namespace tracedesk::cli
