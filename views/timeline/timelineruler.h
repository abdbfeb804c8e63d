#pragma once

// The time axis: where the ruler's ticks go and what they say. Pure, tested without a widget.
//
// Ticks sit on a 1, 2 or 5 x 10^k ps grid anchored at the origin (the trace's start), at least
// minSpacingPx apart. Labels are exact decimal renderings of integer picoseconds, in one unit
// for all ticks (the largest of ps, ns, us, ms, s not above the largest tick), with exactly
// the decimals the step needs: distinct by construction, never rounded into each other.
// When that would take more than three decimals (deep zoom far from the origin, e.g. 10 ns
// ticks at 1.79 s), the ruler switches to an offset, as Perfetto does: `offset` names a round
// time O (a multiple of 100 steps, at most 100 steps before the first tick) and the ticks read
// "+20 ns", "+40 ns", ... relative to it.

#include "core/query/viewport.h"

#include <QString>

#include <vector>

namespace tracedesk::views {

struct RulerTick
{
    float x;          // from the left edge of the time area
    QString text;
};

struct Ruler
{
    std::vector<RulerTick> ticks;
    core::TimePs step = 0;   // ps between ticks
    QString offset;          // empty, or the time the "+" labels count from
};

Ruler computeRuler(const core::Viewport &view, float width, core::TimePs origin,
                   float minSpacingPx = 90.0f);

// `ps` in the unit 10^unitExponent ps with exactly `decimals` decimals; ps must be a multiple
// of 10^(unitExponent - decimals). Exposed for tests.
QString fixedTimeText(core::TimePs ps, int unitExponent, int decimals);

} // namespace tracedesk::views
