#pragma once

// Nice axis scales for every chart: ranges widened to, and ticks placed on, multiples of a
// 1, 2 or 5 x 10^k step (0.2 / 0.4 / 0.6, never 0.19 / 0.39 / 0.58), with labels carrying
// exactly the decimals the step needs. `niceScale` is pure and tested; `applyNiceAxis` puts a
// scale on a Qt Charts value axis. Also picks the byte unit a memory chart should use.

#include <QStringList>

class QValueAxis;
class QBarCategoryAxis;
class QChart;
class QAbstractSeries;

namespace tracedesk::views {

struct NiceScale
{
    double min = 0;
    double max = 1;
    double step = 0.2;
    int tickCount = 6;   // ticks from min to max inclusive: (max - min) / step + 1
    int decimals = 1;    // decimals a label needs to show every tick distinctly
};

// The smallest range covering [lo, hi] whose ends and ticks are multiples of a 1/2/5 x 10^k
// step, with at most maxTicks ticks. An empty or inverted range gets a unit-wide one.
NiceScale niceScale(double lo, double hi, int maxTicks = 6);

// The 1, 2 or 5 x 10^k value nearest above `raw` (raw > 0).
double niceStep(double raw);

// Sets axis range, tick count and label format from niceScale(lo, hi, maxTicks).
void applyNiceAxis(QValueAxis *axis, double lo, double hi, int maxTicks = 6);

// A byte unit (B, KiB, MiB, GiB, TiB) in which `maxBytes` reads between 1 and 1024.
struct ByteUnit
{
    double divisor = 1;
    QString name;
};
ByteUnit byteUnitFor(double maxBytes);
// `bytes` in the unit picked for it, e.g. "12.5 MiB" (3 significant decimals at most).
QString bytesText(double bytes);

// Category labels that stay readable with hundreds of categories: the bar series keeps its
// category axis (hidden labels), and a second axis shows every k-th label so that at most
// maxLabels are drawn. Returns k (1 when every label fits).
int thinCategoryLabels(QChart *chart, QAbstractSeries *series, QBarCategoryAxis *axis,
                       const QStringList &labels, int maxLabels);

} // namespace tracedesk::views
