#pragma once

// The step table and the op metrics, which the input pipeline, the overview and the roofline all
// read and which do not depend on each other: asked for side by side on two threads, so the
// first of those pages to be computed has both in the time of the longer one. Each result stays
// in the AnalysisCache; a cached one returns at once.

#include "core/analysis/analysiscache.h"
#include "core/analysis/opmetrics.h"
#include "core/analysis/steps.h"

#include <memory>

namespace tracedesk::core::analysis {

struct StepsAndOps
{
    std::shared_ptr<const StepDb> steps;
    std::shared_ptr<const OpStats> ops;
};

StepsAndOps stepsAndOps(AnalysisCache &cache);

} // namespace tracedesk::core::analysis
