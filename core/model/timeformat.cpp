#include "core/model/timeformat.h"

#include <cmath>
#include <cstdint>
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

std::string formatTimestamp(TimePs ps)
{
    const bool negative = ps < 0;
    // Magnitude without overflow at INT64_MIN.
    const uint64_t m = negative ? uint64_t(0) - uint64_t(ps) : uint64_t(ps);
    const uint64_t seconds = m / 1000000000000ull;
    const uint64_t fraction = m % 1000000000000ull;   // ps within the second
    const int groups = fraction % 1000 != 0 ? 4 : 3;  // ns, or ps when they are not 0
    std::string out = negative ? "-" : "";
    out += std::to_string(seconds);
    out += '.';
    uint64_t divisor = 1000000000000ull;
    for (int g = 0; g < groups; ++g) {
        divisor /= 1000;
        char group[4];
        std::snprintf(group, sizeof group, "%03u", unsigned(fraction / divisor % 1000));
        if (g > 0)
            out += ' ';
        out += group;
    }
    out += " s";
    return out;
}

} // namespace tracedesk::core
