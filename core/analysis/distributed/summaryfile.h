#pragma once

// RankSummaryFile: one rank's RankSummary on disk — what `distributed --map` writes next to
// the other ranks' and `distributed --reduce` merges, so a run too big for one machine is
// summarised where its traces are (one cluster task per rank) and reduced without any trace.
//
// The file is JSON (NAME.tdsummary, NAME the trace's file name): a format name and a version,
// the source trace's path as the map step was given it (and made absolute), its size and
// modification time, its position among the trace files of its folder (the rank of last
// resort, as in the folder's own summary), then either the rank's summary or the error its
// load gave. It holds every number combineRanks() reads — the rank, its clock origin, the run
// totals, the steps with their times, every collective with its match key (name, order), kind,
// sizes and times — and none of the store's slice refs: they name slices of a store the reduce
// never opens, so they read back as default refs. Collective names, kinds and dtypes are
// written once each and referenced by index, which keeps a rank of thousands of collectives
// small.
//
// Reading checks everything: a file that is not JSON, another format, another version, a
// missing or mistyped field or an index out of range is an error naming the file, never a
// partial summary. Plain values; thread-safe free functions.

#include "core/analysis/distributed/ranksummary.h"
#include "core/base/result.h"

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace tracedesk::core::analysis::distributed {

inline constexpr std::string_view kSummaryFormat = "tracedesk-rank-summary";
inline constexpr int64_t kSummaryVersion = 1;
inline constexpr std::string_view kSummarySuffix = ".tdsummary";

struct SummarySource
{
    std::string path;         // as the map step was given it: the summary's RankSummary::file
    std::string absolutePath; // where the map step found it, for opening it from the summary
    uint64_t size = 0;        // bytes when summarised
    int64_t mtimeNs = 0;      // modification time when summarised, ns since the epoch
};

struct RankSummaryFile
{
    SummarySource source;
    uint64_t order = 0;                 // position among the trace files of its folder
    std::optional<RankSummary> summary; // absent when the trace could not be summarised
    std::string error;                  // the load's error then
};

// The source's size and modification time now (zeros when it cannot be read).
SummarySource describeSource(const std::string &path);

// NAME.tdsummary for a trace at .../NAME.
std::string summaryFileName(const std::string &tracePath);
bool isSummaryFileName(std::string_view name);

std::string encodeSummary(const RankSummaryFile &file);
// `name` names the bytes in errors (the summary file's path).
Result<RankSummaryFile> decodeSummary(std::string_view bytes, const std::string &name);

// Writes `file` into `dir` (created when missing) under summaryFileName(), through a temporary
// name and a rename, so a killed task never leaves half a summary; returns the path written.
Result<std::string> writeSummaryFile(const RankSummaryFile &file, const std::string &dir);
Result<RankSummaryFile> readSummaryFile(const std::string &path);

} // namespace tracedesk::core::analysis::distributed
