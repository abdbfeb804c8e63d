#pragma once

// Viewport: a time window [t0, t1) and an exact picoseconds-per-pixel scale.
//
// The scale is kept as the rational psNum / pxDen so that pixel boundaries are exact integers
// whatever the zoom: a window of 1 hour at 1 ps/px, or 2^50 ps squeezed into one pixel, maps
// times to pixels without the rounding drift a double would bring. All maths runs in 128-bit
// integers, and results that cannot fit an int64 saturate. A Viewport is a plain value; any
// thread may use it.

#include "core/model/types.h"

namespace tracedesk::core {

struct Viewport
{
    TimePs t0 = 0;
    TimePs t1 = 0;
    int64_t psNum = 1;   // picoseconds ...
    int64_t pxDen = 1;   // ... per this many pixels

    // ps/px given as an integer (>= 1), exact.
    static Viewport withPsPerPx(TimePs t0, TimePs t1, int64_t psPerPx);
    // ps/px given as a double: turned into a rational with a power-of-two denominator.
    static Viewport withPsPerPx(TimePs t0, TimePs t1, double psPerPx);
    // The window spread over widthPx pixels: ps/px = (t1 - t0) / widthPx, exact.
    static Viewport withWidth(TimePs t0, TimePs t1, int64_t widthPx);

    bool valid() const { return psNum > 0 && pxDen > 0 && t1 > t0; }
    double psPerPx() const { return double(psNum) / double(pxDen); }

    // The pixel column holding t: floor((t - t0) / psPerPx). Negative before t0.
    int64_t pixelOf(TimePs t) const;
    // The first picosecond of pixel column px: the smallest t with pixelOf(t) >= px.
    TimePs pixelStart(int64_t px) const;
    // The shortest duration at least px pixels wide: ceil(px * psPerPx).
    TimePs spanOfPixels(int64_t px) const;
    // Number of pixel columns the window touches.
    int64_t widthPx() const { return pixelOf(t1 - 1) + 1; }
};

} // namespace tracedesk::core
