#include "views/timeline/timelineruler.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>

namespace tracedesk::views {

namespace {

int64_t pow10(int e)
{
    int64_t p = 1;
    for (int i = 0; i < e; ++i)
        p *= 10;
    return p;
}

// The largest of ps (0), ns (3), us (6), ms (9), s (12) not above |v|; ps for 0.
int unitExponentOf(core::TimePs v)
{
    const uint64_t a = v < 0 ? uint64_t(0) - uint64_t(v) : uint64_t(v);
    int e = 0;
    while (e < 12 && a >= uint64_t(pow10(e + 3)))
        e += 3;
    return e;
}

const char *unitName(int e)
{
    switch (e) {
    case 0: return "ps";
    case 3: return "ns";
    case 6: return "us";
    case 9: return "ms";
    default: return "s";
    }
}

// Floor division for a possibly negative numerator.
int64_t floorDiv(int64_t a, int64_t b)
{
    const int64_t q = a / b;
    return (a % b != 0 && (a < 0) != (b < 0)) ? q - 1 : q;
}

} // namespace

QString fixedTimeText(core::TimePs ps, int unitExponent, int decimals)
{
    const bool negative = ps < 0;
    const uint64_t a = negative ? uint64_t(0) - uint64_t(ps) : uint64_t(ps);
    const uint64_t q = a / uint64_t(pow10(unitExponent - decimals));
    const uint64_t scale = uint64_t(pow10(decimals));
    QString text = negative ? QStringLiteral("-") : QString();
    text += QString::number(q / scale);
    if (decimals > 0)
        text += QLatin1Char('.') + QString::number(q % scale).rightJustified(decimals, u'0');
    return text + QLatin1Char(' ') + QLatin1String(unitName(unitExponent));
}

Ruler computeRuler(const core::Viewport &view, float width, core::TimePs origin,
                   float minSpacingPx)
{
    Ruler ruler;
    if (!view.valid() || width <= 0)
        return ruler;
    const double psPerPx = view.psPerPx();
    const double minStep = std::max(1.0, double(minSpacingPx) * psPerPx);
    int k = 0;
    int64_t decade = 1, step = 0;
    while (step == 0) {
        for (int m : {1, 2, 5}) {
            if (double(m) * double(decade) >= minStep) {
                step = m * decade;
                break;
            }
        }
        if (step == 0) {
            if (k >= 17) {
                step = 5 * decade;
                break;
            }
            decade *= 10;
            ++k;
        }
    }
    ruler.step = step;
    const core::TimePs rel0 = view.t0 - origin;
    const core::TimePs firstTick = floorDiv(rel0 + step - 1, step) * step;
    std::vector<core::TimePs> times;
    for (core::TimePs t = firstTick; times.size() <= 200; t += step) {   // x <= width
        if (double(t - rel0) / psPerPx > width)
            break;
        times.push_back(t);
    }
    if (times.empty())
        return ruler;

    // Absolute labels when three decimals suffice, else an offset and relative labels.
    core::TimePs base = 0;
    const core::TimePs largest = std::max(std::abs(times.front()), std::abs(times.back()));
    int unit = unitExponentOf(std::max<core::TimePs>(largest, step));
    if (unit - k > 3) {
        // A round time at most 100 steps before the first tick: relative labels stay within
        // about 120 steps, so they need at most two decimals.
        const int64_t q = pow10(std::min(k + 2, 18));
        base = floorDiv(times.front(), q) * q;
        const int offsetUnit = unitExponentOf(base);
        ruler.offset = fixedTimeText(base, offsetUnit, std::max(0, offsetUnit - (k + 2)));
        unit = unitExponentOf(std::max(times.back() - base, step));
    }
    const int decimals = std::max(0, unit - k);
    for (const core::TimePs t : times) {
        QString text;
        if (ruler.offset.isEmpty())
            text = t == 0 ? QStringLiteral("0") : fixedTimeText(t, unit, decimals);
        else
            text = t == base ? QStringLiteral("+0")
                             : QLatin1Char('+') + fixedTimeText(t - base, unit, decimals);
        ruler.ticks.push_back({float(double(t - rel0) / psPerPx), text});
    }
    return ruler;
}

} // namespace tracedesk::views
