#pragma once

// DistributedSummary: the distributed view of a run of PyTorch profiler rank traces — one
// RankSummary per rank, the collectives matched across ranks, and the stragglers.
//
// Scale: summarizeRun() loads the ranks one at a time (core::loadTrace per file, the store
// cache is used as the options say), keeps only the RankSummary and drops the store before the
// next, so a run whose stores together exceed memory still completes. With `parallel` > 1 that
// many ranks load at once (a small bound: each holds its store while summarised).
// LoadOptions::ranks summarises only those ranks (core/io/runranks.h numbering, positions among
// every file given); a rank the run lacks makes the summary empty with one error naming it.
// A cancel token current on the calling thread (core/base/cancel.h) stops it between ranks.
//
// Collective stats: per kernel name, the count, summed duration and size, over the run and per
// rank.
//
// Matching (as torch-tb-profiler pairs collectives: by order, not by time, §2.9/§2.12): the k-th
// collective with the same name (kernel name without arguments) on every rank is one collective.
// Times are put on one clock by each file's origin (RunMetadata::clockOriginNs; no skew
// correction). Per collective: start spread = max start - min start over its ranks, end spread likewise, the last
// rank = the latest start (lowest rank on ties), waiting caused = sum over its other ranks of
// (last start - their start). Stragglers = every rank by the waiting it caused, most first
// (ties by rank). Collectives are ordered by their earliest start; `index` is that position.
//
// A file that fails to load (or repeats a rank already seen) goes to `errors`, the others are
// summarised. Plain values; summarizeRun() is safe to call from any thread.

#include "core/analysis/distributed/ranksummary.h"
#include "core/base/loadcontrol.h"
#include "core/base/result.h"
#include "core/io/loadoptions.h"

#include <functional>
#include <string>
#include <vector>

namespace tracedesk::core::analysis::distributed {

struct MatchedCollective
{
    size_t index = 0;
    std::string name;
    std::string kind;
    size_t occurrence = 0;      // k: the k-th collective of this name on each rank
    std::vector<int64_t> ranks; // the ranks that have it, ascending
    TimePs firstStart = 0;      // on the run clock (ps after the earliest rank origin)
    TimePs lastStart = 0;
    TimePs startSpread = 0;
    TimePs endSpread = 0;
    int64_t lastRank = -1;
    TimePs waitingCaused = 0;
    int64_t bytes = -1;         // the largest size any rank reports, -1 when none
    TimePs firstEnd = 0;
    TimePs lastEnd = 0;
    // Per rank of `ranks`: its kernel in the summarised store and its times on the run clock.
    std::vector<SliceRef> refs;
    std::vector<TimePs> starts;
    std::vector<TimePs> ends;
};

// Collective kernels of one name (the match key) on one rank, or over all ranks.
struct CollectiveCount
{
    int64_t rank = -1;          // -1 for the total over all ranks
    uint64_t count = 0;
    TimePs total = 0;           // sum of the kernels' durations
    int64_t bytes = -1;         // sum of the sizes the kernels report, -1 when none does
    TimePs mean() const { return count ? total / TimePs(count) : 0; }
};

struct CollectiveStats
{
    std::string name;
    std::string kind;
    CollectiveCount all;
    std::vector<CollectiveCount> perRank; // by rank, ranks without one of these left out
};

struct Straggler
{
    int64_t rank = -1;
    TimePs waitingCaused = 0;
    size_t collectivesLast = 0; // collectives where it arrived last
};

struct RankError
{
    std::string file;
    std::string message;
};

struct DistributedSummary
{
    std::vector<RankSummary> ranks; // by rank
    std::vector<MatchedCollective> collectives;
    std::vector<Straggler> stragglers;
    std::vector<CollectiveStats> collectiveStats; // by total time, most first
    std::vector<RankError> errors;
    std::vector<std::string> warnings;
    int64_t originNs = 0; // the run clock's 0: the earliest rank origin
    std::string alignStep; // the step every rank was aligned at, empty when none
    // Every collective has every rank (and the ranks have equal collective counts).
    bool fullyMatched() const;
};

struct SummarizeOptions
{
    unsigned parallel = 1; // ranks loaded at once (>= 1)
    // Align the ranks at the start of this step (N of ProfilerStep#N): each rank moves so its
    // step N marker starts where the earliest rank's does. A rank without that step keeps its
    // clock, with a warning. Empty: the files' own clocks.
    std::string alignStep;
    // Called from the loading threads after each rank (ranks done, ranks to do); may be empty.
    std::function<void(size_t, size_t)> onRankDone;
};

// One rank's file loaded and summarised with its clock origin (summarizeRun's first half, and
// what `distributed --map` writes out); the store is dropped before it returns. `order`: the
// file's position among the run's files, the rank when neither the trace nor its name tells.
Result<RankSummary> summarizeRankFile(const std::string &file, size_t order,
                                      LoadControl *control = nullptr,
                                      const LoadOptions &options = {});

// Matching and stragglers over summaries already made (summarizeRun's second half; tests).
// `alignStep` as in SummarizeOptions.
DistributedSummary combineRanks(std::vector<RankSummary> ranks,
                                const std::string &alignStep = {});

// The distributed summary of a merged rank run already loaded (rankrunloader.h): one rank per
// section of trace.info.hosts, on the store's one clock. Empty ranks for a trace of one section.
DistributedSummary summarizeMergedRun(const Trace &trace);
// True when `trace` is a merged run of several rank sections.
bool isMergedRankRun(const Trace &trace);

DistributedSummary summarizeRun(const std::vector<std::string> &files,
                                LoadControl *control = nullptr,
                                const LoadOptions &options = {},
                                const SummarizeOptions &summarize = {});

} // namespace tracedesk::core::analysis::distributed
