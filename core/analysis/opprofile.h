#pragma once

// Op profile (FORMATS.md 2.9): the device op metrics arranged as a tree — by program (module ->
// category -> op), by category (category -> op) or by framework op (provenance -> op) — with
// time fractions, FLOPS and HBM-bandwidth utilisation and "time wasted" per node.
//
// A group node's metrics are the sums of its children with the utilisations recomputed from the
// sums. Ops sharing a deduplicated name are grouped under "<name> and its duplicate(s)". Each
// node keeps at most `maxChildren` children (numChildren keeps the count before pruning). Pure
// functions of their inputs; the result is an immutable value.

#include "core/analysis/opmetrics.h"

#include <string>
#include <vector>

namespace tracedesk::core::analysis {

enum class OpProfileGrouping : uint8_t { ByProgram, ByCategory, ByProvenance };
enum class OpProfileSort : uint8_t { Time, WastedTime };

struct OpProfileOptions
{
    OpProfileGrouping grouping = OpProfileGrouping::ByProgram;
    OpProfileSort sort = OpProfileSort::Time;
    bool includeIdle = true;
    int maxChildren = 100;
};

struct OpProfileMetrics
{
    TimePs timePs = 0;
    TimePs selfTimePs = 0;
    int64_t occurrences = 0;
    double flops = 0;             // model FLOPs when known, else hardware FLOPs
    double bytesAccessed = 0;     // all counted as HBM (no breakdown in the store)
    double timeFraction = 0;      // of the root's time
    double flopsUtilization = 0;  // uncapped: achieved GFLOP/s / peak GFLOP/s
    double hbmUtilization = 0;    // min(1, achieved GB/s / peak GB/s)
    double gflopsPerSecond = 0;
    double gigabytesPerSecond = 0;
    // timeFraction x (1 - max(min(1, FLOPS utilisation), HBM utilisation)).
    double wastedFraction = 0;
};

struct OpProfileNode
{
    enum class Type : uint8_t { Root, Program, Category, Provenance, Duplicates, Op, FusionChild };
    Type type = Type::Root;
    std::string name;
    // Op nodes only.
    std::string category;
    std::string expression;
    std::string provenance;
    std::string layout;
    std::string deduplicatedName;
    int64_t programId = 0;
    bool isIdle = false;
    OpProfileMetrics metrics;
    int numChildren = 0;          // before pruning to maxChildren
    std::vector<OpProfileNode> children;
};

struct OpProfile
{
    OpProfileNode root;
    std::string deviceType;
    double peakGigaFlopsPerSecond = 0;
    double peakHbmGigaBytesPerSecond = 0;
};

OpProfile buildOpProfile(const OpMetricsDb &db, const PerfEnv &env, const OpProfileOptions &options,
                         const std::string &deviceType = {});
// From the cached OpStats of the trace.
OpProfile buildOpProfile(AnalysisCache &cache, const OpProfileOptions &options);

} // namespace tracedesk::core::analysis
