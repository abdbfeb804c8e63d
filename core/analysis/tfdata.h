#pragma once
// tf.data bottleneck analysis (FORMATS.md 2.16): input pipelines rebuilt from the `Iterator::...`
// events on host threads, their execution statistics, the iterator graph of every execution,
// its critical path and its bottleneck, and a recommendation per bottleneck iterator type.
//
// TfDataAnalysis owns plain values computed once from an immutable Trace; it is immutable after
// computeTfData() returns and may be shared across threads (tfDataAnalysis() caches it per
// trace). Invariants: pipelines are ranked by their slowest execution (longest first); each
// pipeline's executions are sorted by duration, longest first; each execution's iterators are
// in ascending id order and contain the bottleneck when bottleneckId != 0.
#include "core/analysis/analysiscache.h"
#include "core/model/trace.h"

#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace tracedesk::core::analysis {

// Root durations strictly above this are slow calls (50 us).
inline constexpr TimePs kTfDataSlowCallPs = 50'000'000;

enum class TfDataBottleneckType {
    SlowSource,
    SlowDataService,
    SlowRemoteSource,
    TransformationWithParallelVersion,
    TransformationWithoutParallelVersion,
    Other,
};

// One iterator within one execution of a pipeline.
struct TfDataIteratorStat
{
    int64_t id = 0;
    int64_t parentId = 0;          // 0 for the root (no parent_id stat)
    // e.g. Iterator::Batch::Map; points into TfDataAnalysis::iteratorNames (a profile has a
    // few distinct names but may have millions of iterator stats)
    std::string_view longName;
    TimePs start = 0;              // start of its first event in this execution
    TimePs duration = 0;           // summed over its calls
    TimePs selfTime = 0;           // duration minus the time covered by child iterators
    int64_t calls = 0;
    bool blocking = false;         // on the critical path

    // The iterator type: the last `::` part of the long name.
    std::string_view name() const
    {
        const size_t last = longName.rfind("::");
        return last == std::string_view::npos ? longName : longName.substr(last + 2);
    }
};

// One call of a pipeline: one root iterator event and everything it reached.
struct TfDataExecution
{
    TimePs start = 0;
    TimePs duration = 0;           // the root event's duration
    std::vector<TfDataIteratorStat> iterators;  // ascending id
    int64_t bottleneckId = 0;      // 0 when no blocking iterator has positive self time
    TimePs bottleneckLatency = 0;
    const TfDataIteratorStat *find(int64_t id) const;
};

struct TfDataPipeline
{
    std::string host;
    int64_t id = 0;                // root iterator id
    bool device = false;           // fed by Iterator::Prefetch::Generator (device pipeline)
    std::string name;              // Host:<n> / Device:<n>, numbered per host by first start
    int64_t calls = 0;
    int64_t slowCalls = 0;         // executions longer than kTfDataSlowCallPs
    TimePs firstStart = 0;         // the earliest execution's start
    TimePs minLatency = 0;
    TimePs avgLatency = 0;         // integer mean
    TimePs maxLatency = 0;
    // Longest first; only the slowest with TfDataExecutions::Slowest (calls still counts all).
    std::vector<TfDataExecution> executions;
};

// One row of the cross-host bottleneck table: the slowest execution of a HOST pipeline.
struct TfDataBottleneckRow
{
    std::string host;
    std::string pipeline;
    TimePs maxLatency = 0;
    std::string iteratorName;
    std::string iteratorLongName;
    TimePs iteratorLatency = 0;
    TfDataBottleneckType type = TfDataBottleneckType::Other;
    std::string suggestion;
};

struct TfDataAnalysis
{
    std::vector<TfDataPipeline> pipelines;      // every host, ranked by maxLatency, largest first
    std::vector<TfDataBottleneckRow> bottlenecks;  // HOST pipelines only, largest first
    bool inputBound = false;
    std::string summary;
    uint64_t iteratorEvents = 0;                // Iterator events seen on host threads
    // The distinct iterator long names the stats' views point into: shared, so a copy of the
    // analysis keeps them valid.
    std::shared_ptr<const std::vector<std::string>> iteratorNames;
};

TfDataBottleneckType tfDataBottleneckType(std::string_view iteratorName);
std::string_view tfDataBottleneckTypeName(TfDataBottleneckType type);
// Plain-text numbered recommendation lines (newline separated) with links spelled out.
std::string tfDataSuggestion(TfDataBottleneckType type);

// Which executions a pipeline keeps. Every statistic and the bottleneck table are the same
// either way; a view that shows each pipeline's slowest execution need not hold millions of
// others (a 100M-event profile has over a million, a quarter of a gigabyte).
enum class TfDataExecutions { All, Slowest };

TfDataAnalysis computeTfData(const Trace &trace, TfDataExecutions keep = TfDataExecutions::All);
std::shared_ptr<const TfDataAnalysis> tfDataAnalysis(AnalysisCache &cache);
// The analysis with each pipeline's slowest execution only, cached on its own.
std::shared_ptr<const TfDataAnalysis> tfDataSlowestAnalysis(AnalysisCache &cache);

} // namespace tracedesk::core::analysis
