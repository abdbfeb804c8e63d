#pragma once

// The PyTorch (Kineto) side of overview, op-stats, kernel-stats and memory-profile: the commands
// load the profile as usual and hand a Kineto trace (run.framework == "pytorch") to these, which
// print the core/analysis/pytorch/ results as text or --json. The JSON key names and units are
// read by outside scripts; keep them stable (README.md, "Command line").

#include "core/analysis/analysiscache.h"

#include <string>

namespace tracedesk::cli {

bool isPyTorchTrace(const core::Trace &trace);

// Each prints to stdout and returns the exit code.
int printPyTorchOverview(core::analysis::AnalysisCache &cache, bool json);
// groupBy: "name", "shapes" or "stack" (checked by the caller).
int printPyTorchOpStats(core::analysis::AnalysisCache &cache, const std::string &groupBy,
                        bool json);
int printPyTorchKernelStats(core::analysis::AnalysisCache &cache, bool json);
int printPyTorchMemoryProfile(core::analysis::AnalysisCache &cache, bool json);

} // namespace tracedesk::cli
