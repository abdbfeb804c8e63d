#pragma once

// The PyTorch (Kineto) side of overview, op-stats, kernel-stats and memory-profile: the commands
// load the profile as usual and hand a Kineto trace (run.framework == "pytorch") to these, which
// print the core/analysis/pytorch/ results as text or --json. The JSON key names and units are
// read by outside scripts; keep them stable (README.md, "Command line").

#include "jsonout.h"

#include "core/analysis/analysiscache.h"
#include "core/analysis/framework.h"
#include "core/analysis/pytorch/pytorchoverview.h"

#include <optional>
#include <string>

namespace tracedesk::cli {

struct ParsedArgs;

using core::analysis::isPyTorchTrace;

// One GPU's metrics as the overview's `gpu_metrics` entries write them (an object under `key`,
// unnamed in an array).
void gpuMetricsJson(JsonOut &j, const core::analysis::pytorch::PyTorchGpuMetrics &g,
                    std::string_view key = {});

// The analyses of the rank `--rank N` names (`rank`: N as given, nullopt without the option):
// rank N of a merged run of rank traces, else the first rank (core/analysis/pytorch/
// rankanalyses.h). For a merged run the text reports (json false) first get a line saying
// which rank they describe. When N is not a rank of the trace, prints the error and returns
// nullptr with the exit code in *code.
core::analysis::AnalysisCachePtr pytorchRankAnalyses(const core::analysis::AnalysisCachePtr &cache,
                                                     const char *command,
                                                     const std::optional<std::string> &rank,
                                                     bool json, int *code);
// Loads the graph-capture trace `--capture FILE` names (nullopt: nothing to do) and puts it into
// `ranked`, so the kernel and operator views attribute replayed kernels to the operators that
// recorded them (core/analysis/pytorch/graphcapture.h). On error prints it, sets *code and
// returns false.
bool attachGraphCapture(const core::analysis::AnalysisCachePtr &ranked,
                        const std::optional<std::string> &path, const char *command, int *code);
// The value of --rank, nullopt when not given.
std::optional<std::string> rankOption(const ParsedArgs &args);
// The value of --capture, nullopt when not given.
std::optional<std::string> captureOption(const ParsedArgs &args);

// Each prints to stdout and returns the exit code.
int printPyTorchOverview(core::analysis::AnalysisCache &cache, bool json);
// groupBy: "name", "shapes" or "stack" (checked by the caller).
int printPyTorchOpStats(core::analysis::AnalysisCache &cache, const std::string &groupBy,
                        bool json);
int printPyTorchKernelStats(core::analysis::AnalysisCache &cache, bool json);
int printPyTorchMemoryProfile(core::analysis::AnalysisCache &cache, bool json);

} // namespace tracedesk::cli
