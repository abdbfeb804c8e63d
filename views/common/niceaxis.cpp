#include "views/common/niceaxis.h"

#include <QAbstractSeries>
#include <QBarCategoryAxis>
#include <QCategoryAxis>
#include <QChart>
#include <QStringList>
#include <QValueAxis>

#include <algorithm>
#include <cmath>

namespace tracedesk::views {

double niceStep(double raw)
{
    if (!(raw > 0) || !std::isfinite(raw))
        return 1;
    const double magnitude = std::pow(10.0, std::floor(std::log10(raw)));
    const double fraction = raw / magnitude;
    // Rounding noise (0.30000000000000004 / 0.1) must not push a step past its nice value.
    const double eps = 1e-9;
    if (fraction <= 1 + eps)
        return magnitude;
    if (fraction <= 2 + eps)
        return 2 * magnitude;
    if (fraction <= 5 + eps)
        return 5 * magnitude;
    return 10 * magnitude;
}

NiceScale niceScale(double lo, double hi, int maxTicks)
{
    maxTicks = std::max(maxTicks, 2);
    if (!std::isfinite(lo) || !std::isfinite(hi))
        lo = 0, hi = 1;
    if (hi < lo)
        std::swap(lo, hi);
    if (hi - lo <= std::abs(hi) * 1e-12) {
        // A flat series still gets an axis that shows its value.
        const double pad = hi != 0 ? std::abs(hi) * 0.5 : 1;
        lo = lo >= 0 && lo - pad < 0 ? 0 : lo - pad;
        hi += pad;
    }
    NiceScale s;
    double step = niceStep((hi - lo) / (maxTicks - 1));
    for (;;) {
        s.min = std::floor(lo / step + 1e-9) * step;
        s.max = std::ceil(hi / step - 1e-9) * step;
        const int ticks = int(std::llround((s.max - s.min) / step)) + 1;
        if (ticks <= maxTicks) {
            s.tickCount = std::max(ticks, 2);
            break;
        }
        step = niceStep(step * 1.5);
    }
    if (s.max <= s.min)
        s.max = s.min + step;
    s.step = step;
    s.decimals = std::max(0, int(-std::floor(std::log10(step) + 1e-9)));
    // Tiny values are written without the sign of a negative zero.
    if (std::abs(s.min) < step * 1e-9)
        s.min = 0;
    return s;
}

void applyNiceAxis(QValueAxis *axis, double lo, double hi, int maxTicks)
{
    const NiceScale s = niceScale(lo, hi, maxTicks);
    axis->setTickType(QValueAxis::TicksFixed);
    axis->setRange(s.min, s.max);
    axis->setTickCount(s.tickCount);
    axis->setLabelFormat(QStringLiteral("%.%1f").arg(s.decimals));
}

ByteUnit byteUnitFor(double maxBytes)
{
    static const char *kNames[] = {"B", "KiB", "MiB", "GiB", "TiB"};
    int k = 0;
    double divisor = 1;
    while (k < 4 && std::abs(maxBytes) >= 1024 * divisor) {
        divisor *= 1024;
        ++k;
    }
    return {divisor, QString::fromLatin1(kNames[k])};
}

QString bytesText(double bytes)
{
    const ByteUnit unit = byteUnitFor(bytes);
    const double v = bytes / unit.divisor;
    const int decimals = unit.divisor == 1 ? 0 : (std::abs(v) < 10 ? 2 : std::abs(v) < 100 ? 1 : 0);
    return QString::number(v, 'f', decimals) + QLatin1Char(' ') + unit.name;
}

int thinCategoryLabels(QChart *chart, QAbstractSeries *series, QBarCategoryAxis *axis,
                       const QStringList &labels, int maxLabels)
{
    const int n = int(labels.size());
    if (n <= maxLabels || maxLabels < 1)
        return 1;
    const int every = int(niceStep(double(n) / maxLabels));
    axis->setLabelsVisible(false);
    axis->setGridLineVisible(false);
    auto *shown = new QCategoryAxis;
    shown->setLabelsPosition(QCategoryAxis::AxisLabelsPositionOnValue);
    shown->setGridLineVisible(false);
    shown->setRange(-0.5, n - 0.5);
    shown->setTitleText(axis->titleText());
    axis->setTitleText({});
    for (int i = 0; i < n; i += every)
        shown->append(labels[i], i);
    chart->addAxis(shown, Qt::AlignBottom);
    series->attachAxis(shown);
    return every;
}

} // namespace tracedesk::views
