#include "core/query/viewport.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace tracedesk::core {

namespace {

using Wide = __int128;

constexpr TimePs kMaxTime = std::numeric_limits<TimePs>::max();
constexpr TimePs kMinTime = std::numeric_limits<TimePs>::min();

Wide floorDiv(Wide a, Wide b)
{
    Wide q = a / b;
    if ((a % b != 0) && ((a < 0) != (b < 0)))
        --q;
    return q;
}

Wide ceilDiv(Wide a, Wide b)
{
    return -floorDiv(-a, b);
}

// The same in 64 bits: the common case, several times cheaper than a 128-bit division.
int64_t floorDiv64(int64_t a, int64_t b)
{
    int64_t q = a / b;
    if ((a % b != 0) && ((a < 0) != (b < 0)))
        --q;
    return q;
}

int64_t saturate(Wide v)
{
    if (v > Wide(kMaxTime))
        return kMaxTime;
    if (v < Wide(kMinTime))
        return kMinTime;
    return int64_t(v);
}

} // namespace

Viewport Viewport::withPsPerPx(TimePs t0, TimePs t1, int64_t psPerPx)
{
    return Viewport{t0, t1, psPerPx < 1 ? 1 : psPerPx, 1};
}

Viewport Viewport::withPsPerPx(TimePs t0, TimePs t1, double psPerPx)
{
    if (!(psPerPx >= 1.0))
        psPerPx = 1.0;
    // The largest power-of-two denominator (up to 2^20) that keeps the numerator in range.
    int64_t den = int64_t(1) << 20;
    while (den > 1 && psPerPx * double(den) >= 0x1p62)
        den >>= 1;
    const double num = std::round(psPerPx * double(den));
    if (num >= 0x1p62)
        return Viewport{t0, t1, int64_t(1) << 62, 1};
    return Viewport{t0, t1, std::max<int64_t>(1, int64_t(num)), den};
}

Viewport Viewport::withWidth(TimePs t0, TimePs t1, int64_t widthPx)
{
    const Wide span = Wide(t1) - Wide(t0);
    if (span <= 0 || widthPx < 1)
        return Viewport{t0, t1, 1, 1};
    if (span > Wide(kMaxTime))   // window wider than int64: keep the scale approximately
        return Viewport{t0, t1, saturate(ceilDiv(span, widthPx)), 1};
    return Viewport{t0, t1, int64_t(span), widthPx};
}

int64_t Viewport::pixelOf(TimePs t) const
{
    int64_t d, scaled;
    if (!__builtin_sub_overflow(t, t0, &d) && !__builtin_mul_overflow(d, pxDen, &scaled)
        && psNum > 0)
        return floorDiv64(scaled, psNum);
    return saturate(floorDiv((Wide(t) - Wide(t0)) * pxDen, psNum));
}

TimePs Viewport::pixelStart(int64_t px) const
{
    int64_t scaled, r;
    if (!__builtin_mul_overflow(px, psNum, &scaled) && pxDen > 0 && scaled != kMinTime
        && !__builtin_add_overflow(t0, -floorDiv64(-scaled, pxDen), &r))
        return r;
    return saturate(Wide(t0) + ceilDiv(Wide(px) * psNum, pxDen));
}

TimePs Viewport::spanOfPixels(int64_t px) const
{
    return saturate(ceilDiv(Wide(px) * psNum, pxDen));
}

} // namespace tracedesk::core
