#include "core/analysis/stepsandops.h"

#include "core/base/parallel.h"

namespace tracedesk::core::analysis {

StepsAndOps stepsAndOps(AnalysisCache &cache)
{
    StepsAndOps both;
    parallelFor(2, 2, [&](unsigned, size_t i) {
        if (i == 0)
            both.steps = stepDb(cache);
        else
            both.ops = opStats(cache);
        return true;
    });
    return both;
}

} // namespace tracedesk::core::analysis
