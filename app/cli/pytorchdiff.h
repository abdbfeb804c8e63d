#pragma once

// The PyTorch part of `tracedesk-cli diff` (pytorchdiff.cpp): what it prints for two PyTorch
// profiler traces, and the rank pairs of two runs of several ranks.

#include "jsonout.h"

#include "core/analysis/analysiscache.h"
#include "core/compare/tracecomparison.h"

#include <string>
#include <vector>

namespace tracedesk::cli {

struct RankPair
{
    int64_t rank = 0;
    core::analysis::AnalysisCachePtr a;
    core::analysis::AnalysisCachePtr b;
};

struct RankComparison
{
    int64_t rank = 0;
    core::compare::TraceComparison comparison;
};

// The `gate` object of every diff --json (XSpace and PyTorch alike).
void gateJson(JsonOut &j, const core::compare::GateMeasure &gate);

// The ranks both merged runs hold, with each side's analyses of that rank; empty unless both
// traces are runs of several ranks.
std::vector<RankPair> pytorchRankPairs(const core::analysis::AnalysisCachePtr &a,
                                       const core::analysis::AnalysisCachePtr &b);

// `c.pytorch` must be set. `ranks`: the rank-by-rank comparisons of two runs (may be empty).
void printPyTorchDiffJson(const std::string &a, const std::string &b,
                          const core::compare::TraceComparison &c,
                          const std::vector<RankComparison> &ranks,
                          core::compare::OperatorGrouping grouping, size_t top);
void printPyTorchDiffText(const std::string &a, const std::string &b,
                          const core::compare::TraceComparison &c,
                          const std::vector<RankComparison> &ranks,
                          core::compare::OperatorGrouping grouping, size_t top);

} // namespace tracedesk::cli
