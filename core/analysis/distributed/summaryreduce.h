#pragma once

// reduceSummaries: the distributed summary of a run from its ranks' summary files
// (summaryfile.h), without opening any trace — the reduce half of `distributed --map/--reduce`.
//
// It is summarizeRun() with the per-rank loads already done elsewhere: the files' summaries go,
// in the order of their traces (position in the folder, then path), through the same
// combineRanks(), and a rank whose map step could not load its trace gives the same error
// entry (trace path, load message) as the folder's own summary would. So the reduce of a
// folder's summaries equals `distributed` on that folder, number for number. A summary file
// that cannot be read (missing, not JSON, another format or version, a bad field) is an error
// naming that file; the other ranks are still reduced.
//
// Memory: every rank's summary is held at once (the collectives dominate: ~100 bytes each).
// Plain values; safe from any thread.

#include "core/analysis/distributed/distributedsummary.h"
#include "core/base/result.h"

#include <string>
#include <vector>

namespace tracedesk::core::analysis::distributed {

// The summary files (*.tdsummary) in `dir`, sorted; an error when it has none.
Result<std::vector<std::string>> summaryFilesIn(const std::string &dir);

// True when `dir` is a folder holding summary files and no rank trace: a run to open from its
// summaries.
bool isSummaryFolder(const std::string &dir);

// `parallel`: files read at once (>= 1). `alignStep` as in SummarizeOptions.
DistributedSummary reduceSummaries(const std::vector<std::string> &summaryFiles,
                                   const std::string &alignStep = {}, unsigned parallel = 1);

// A run opened from its summary files (the application): the reduce of every summary in `dir`
// (parallel = every core) with each rank's file set to its trace's absolute path, so the
// traces can be opened by rank and matched to the summary's ranks; `traceFiles` lists them in
// the order the reduce met them. An error when `dir` has no summary or none reads.
struct SummaryRun
{
    DistributedSummary run;
    std::vector<std::string> traceFiles;
};
Result<SummaryRun> openSummaryRun(const std::string &dir, const std::string &alignStep = {});

} // namespace tracedesk::core::analysis::distributed
