#pragma once

// Shared orderings for counter values: NaN never beats a number and equal values go to the
// earlier sample, so a minimum or maximum does not depend on the order candidates are seen in.

#include <cmath>
#include <cstdint>

namespace tracedesk::core::lod {

inline bool lessThan(const double *v, uint32_t a, uint32_t b)
{
    const bool nanA = std::isnan(v[a]), nanB = std::isnan(v[b]);
    if (nanA || nanB)
        return nanA == nanB ? a < b : nanB;
    return v[a] < v[b] || (v[a] == v[b] && a < b);
}

inline bool greaterThan(const double *v, uint32_t a, uint32_t b)
{
    const bool nanA = std::isnan(v[a]), nanB = std::isnan(v[b]);
    if (nanA || nanB)
        return nanA == nanB ? a < b : nanB;
    return v[a] > v[b] || (v[a] == v[b] && a < b);
}

} // namespace tracedesk::core::lod
