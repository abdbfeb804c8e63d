#include "core/io/rankpart.h"

namespace tracedesk::core {

TimePs addRankPart(LoadInfo &run, const LoadInfo &own, const std::string &fileName,
                   const std::string &label, int64_t minOriginNs, bool anyOrigin)
{
    for (const std::string &w : own.warnings)
        run.warn(fileName + ": " + w);
    if (own.warningCount > own.warnings.size())
        run.warningCount += own.warningCount - own.warnings.size();
    run.sourceBytes += own.sourceBytes;
    for (const auto &[phase, count] : own.recordsByPhase)
        run.recordsByPhase[phase] += count;
    run.hosts.push_back(label);

    TimePs shift = 0;
    const int64_t origin = own.run.clockOriginNs;
    int64_t deltaNs = 0;
    if (origin == 0 && anyOrigin) {
        run.warn(fileName + ": no clock origin; its times are used as they are");
    } else if (origin != 0
               && (__builtin_sub_overflow(origin, minOriginNs, &deltaNs)
                   || __builtin_mul_overflow(deltaNs, int64_t(1000), &shift))) {
        run.warn(fileName + ": its clock origin is too far from the other ranks'; its times "
                            "are used as they are");
        shift = 0;
    }
    return shift;
}

} // namespace tracedesk::core
