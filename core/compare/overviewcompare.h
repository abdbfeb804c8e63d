#pragma once

// OverviewComparison: the overview page figures of two traces side by side (step time, input
// share, precision split, idle time, FLOP rate) and each side's top device ops. Plain value;
// pure function of two OverviewPages.

#include "core/analysis/overview.h"

#include <string>
#include <vector>

namespace tracedesk::core::compare {

struct OverviewFigure
{
    std::string label;
    std::string unit;               // "ms", "%", "GFLOP/s", "" (a count)
    double a = 0;
    double b = 0;
    bool higherIsBetter = false;    // for colouring: is an increase good news?
};

struct OverviewComparison
{
    std::string deviceTypeA;
    std::string deviceTypeB;
    std::vector<OverviewFigure> figures;
    std::vector<analysis::OverviewTopOp> topOpsA;
    std::vector<analysis::OverviewTopOp> topOpsB;
};

OverviewComparison compareOverviews(const analysis::OverviewPage &a,
                                    const analysis::OverviewPage &b);

} // namespace tracedesk::core::compare
