#include "core/model/timeformat.h"

#include <cmath>
#include <cstdio>

namespace tracedesk::core {

std::string formatDuration(TimePs ps, int digits)
{
    static constexpr struct
    {
        double scale;
        const char *unit;
    } kUnits[] = {{1e12, "s"}, {1e9, "ms"}, {1e6, "us"}, {1e3, "ns"}};
    const double magnitude = std::fabs(double(ps));
    char buffer[64];
    for (const auto &u : kUnits) {
        if (magnitude >= u.scale) {
            std::snprintf(buffer, sizeof buffer, "%.*f %s", digits, double(ps) / u.scale, u.unit);
            return buffer;
        }
    }
    std::snprintf(buffer, sizeof buffer, "%lld ps", static_cast<long long>(ps));
    return buffer;
}

} // namespace tracedesk::core
