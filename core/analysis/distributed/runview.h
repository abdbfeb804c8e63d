#pragma once

// RunView: the distributed view of a trace that may hold only part of its run — the summary of
// every rank of the run (what the tables show), the summary of the ranks the trace holds (whose
// slice refs and times are the trace's own, for bringing a rank, step or collective up on the
// timeline), and which section of the trace stands for each rank of the run.
//
// When the trace holds the whole run (its sources are all the run's files), both summaries are
// one, made from the merged store (summarizeMergedRun). When it holds a part, the run's summary
// is made rank by rank from the files (summarizeRun, one rank at a time: the whole run never
// needs to fit in memory; each rank's store is left in the store cache as the options say),
// aligned at LoadOptions::alignStep like the trace. A trace that is not a run of ranks (a single
// file, or sources that are not files of `runPaths`) gets a view of itself alone: `run` is null
// unless it holds several ranks.
//
// Plain values; summarizeRunView() may run for long (it loads every rank of a part-shown run)
// and is meant for a worker: it stops between ranks when the calling thread's cancel token is
// set (throwing core::Cancelled, see core/base/cancel.h) or `control` is cancelled.

#include "core/analysis/distributed/distributedsummary.h"
#include "core/base/loadcontrol.h"
#include "core/io/loadoptions.h"
#include "core/model/trace.h"

#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

namespace tracedesk::core::analysis::distributed {

struct RunView
{
    std::shared_ptr<const DistributedSummary> run;   // every rank of the run; null: no run
    std::shared_ptr<const DistributedSummary> shown; // the ranks the trace holds
    // Per rank of `run` (same index): its section in the trace, empty when the trace lacks it.
    std::vector<std::string> shownHosts;
    bool partial = false; // the trace holds only some of the run's ranks

    std::vector<int64_t> runRanks() const;
    std::vector<int64_t> shownRanks() const;
    // The index into shown->ranks of run rank `runIndex`, or -1.
    int shownIndex(size_t runIndex) const;
    // The collective of `shown` matching run collective `runIndex` (same name and occurrence),
    // or nullptr when the trace does not hold it.
    const MatchedCollective *shownCollective(size_t runIndex) const;
};

// The last run summarised rank by rank, under the run's identity: its files' store-cache key
// (paths, sizes, modification times, first bytes) and the step alignment. Thread-safe.
class RunSummaryMemo
{
public:
    std::shared_ptr<const DistributedSummary> find(const std::string &key) const;
    void keep(std::string key, std::shared_ptr<const DistributedSummary> run);

private:
    mutable std::mutex m_mutex;
    std::string m_key;
    std::shared_ptr<const DistributedSummary> m_run;
};

// The key a RunSummaryMemo keeps the run of `runPaths` under (its files' identity and the
// step alignment of `options`), so a run summarised another way (from its summary files) can
// be handed to summarizeRunView(); empty when the paths are no run of several files.
std::string runSummaryKey(const std::vector<std::string> &runPaths, const LoadOptions &options);

// The view of `trace` alone (what a trace without a known run gets).
RunView summarizeShownRun(const Trace &trace);

// `runPaths`: what the trace was opened from (a run folder, a logdir, or several files), as
// core::resolveSources takes them. `options`: the load's (cache, memory limit, alignStep, run
// name); its `ranks` are ignored. `onRankDone` as in SummarizeOptions. `memo`, when given,
// keeps the run's summary, so showing other ranks of the same run does not summarise every rank
// again.
RunView summarizeRunView(const Trace &trace, const std::vector<std::string> &runPaths,
                         LoadControl *control, const LoadOptions &options,
                         std::function<void(size_t, size_t)> onRankDone = {},
                         RunSummaryMemo *memo = nullptr);

} // namespace tracedesk::core::analysis::distributed
