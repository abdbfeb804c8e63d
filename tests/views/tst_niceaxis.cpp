// Nice axis scales: over many ranges the step is 1, 2 or 5 x 10^k, the ends are multiples of
// the step, the range covers the data, the tick count respects the maximum, and the labels
// (with the scale's decimals) are distinct. Byte units are picked so the maximum reads 1..1024.
// Charts paint their background from the palette (a dark palette gives a dark chart).

#include "views/common/chartpalette.h"
#include "views/common/niceaxis.h"

#include <QApplication>
#include <QBarCategoryAxis>
#include <QBarSeries>
#include <QBarSet>
#include <QCategoryAxis>
#include <QChart>
#include <QChartView>
#include <QSet>
#include <QValueAxis>
#include <QtTest>

#include <cmath>
#include <random>

using namespace tracedesk::views;

class TestNiceAxis : public QObject
{
    Q_OBJECT

private slots:
    void ticksAreNiceOverManyRanges();
    void knownRanges();
    void byteUnits();
    void darkPaletteReachesChart();
    void thinnedCategoryLabels();
};

namespace {

// True when v / 10^k is 1, 2 or 5 for some integer k.
bool isOneTwoFive(double v)
{
    const double k = std::floor(std::log10(v) + 1e-9);
    const double m = v / std::pow(10.0, k);
    return std::abs(m - 1) < 1e-6 || std::abs(m - 2) < 1e-6 || std::abs(m - 5) < 1e-6;
}

bool isMultiple(double v, double step)
{
    const double q = v / step;
    return std::abs(q - std::round(q)) < 1e-6;
}

} // namespace

void TestNiceAxis::ticksAreNiceOverManyRanges()
{
    std::mt19937 rng(7);
    std::uniform_real_distribution<double> exponent(-9, 12);
    std::uniform_real_distribution<double> unit(0, 1);
    for (int i = 0; i < 5000; ++i) {
        const double scale = std::pow(10.0, exponent(rng));
        const double lo = unit(rng) < 0.3 ? 0 : unit(rng) * scale * (unit(rng) < 0.2 ? -1 : 1);
        const double hi = lo + unit(rng) * scale + scale * 1e-6;
        const int maxTicks = 3 + i % 8;
        const NiceScale s = niceScale(lo, hi, maxTicks);
        QVERIFY2(isOneTwoFive(s.step), qPrintable(QString::number(s.step)));
        QVERIFY(isMultiple(s.min, s.step));
        QVERIFY(isMultiple(s.max, s.step));
        QVERIFY(s.min <= lo + std::abs(lo) * 1e-12);
        QVERIFY(s.max >= hi - std::abs(hi) * 1e-12);
        QVERIFY(s.tickCount >= 2 && s.tickCount <= maxTicks);
        QCOMPARE(s.tickCount, int(std::llround((s.max - s.min) / s.step)) + 1);
        QSet<QString> labels;
        for (int t = 0; t < s.tickCount; ++t)
            labels.insert(QString::number(s.min + t * s.step, 'f', s.decimals));
        QCOMPARE(int(labels.size()), s.tickCount);
    }
}

void TestNiceAxis::knownRanges()
{
    // The data behind "0.19 / 0.39 / 0.58": a maximum of 0.97.
    NiceScale s = niceScale(0, 0.97, 6);
    QCOMPARE(s.min, 0.0);
    QCOMPARE(s.step, 0.2);
    QVERIFY(std::abs(s.max - 1.0) < 1e-12);
    QCOMPARE(s.tickCount, 6);
    QCOMPARE(s.decimals, 1);
    s = niceScale(0, 734, 6);
    QCOMPARE(s.step, 200.0);
    QCOMPARE(s.max, 800.0);
    QCOMPARE(s.decimals, 0);
    s = niceScale(0, 0, 6);   // flat zero: still a unit range
    QVERIFY(s.max > s.min);
    QValueAxis axis;
    applyNiceAxis(&axis, 0, 0.97);
    QCOMPARE(axis.min(), 0.0);
    QVERIFY(std::abs(axis.max() - 1.0) < 1e-12);
    QCOMPARE(axis.tickCount(), 6);
    QCOMPARE(axis.labelFormat(), QStringLiteral("%.1f"));
}

void TestNiceAxis::byteUnits()
{
    QCOMPARE(byteUnitFor(512).name, QStringLiteral("B"));
    QCOMPARE(byteUnitFor(3 * 1024).name, QStringLiteral("KiB"));
    QCOMPARE(byteUnitFor(5.0 * 1024 * 1024).name, QStringLiteral("MiB"));
    QCOMPARE(byteUnitFor(20.0 * 1024 * 1024 * 1024).name, QStringLiteral("GiB"));
    QCOMPARE(byteUnitFor(20.0 * 1024 * 1024 * 1024).divisor, double(1ll << 30));
    QCOMPARE(bytesText(1536), QStringLiteral("1.50 KiB"));
    QCOMPARE(bytesText(15.0 * (1ll << 30)), QStringLiteral("15.0 GiB"));
}

void TestNiceAxis::darkPaletteReachesChart()
{
    QChartView view;
    auto *chart = new QChart;
    auto *series = new QBarSeries;
    auto *set = new QBarSet("a");
    *set << 1 << 2;
    series->append(set);
    chart->addSeries(series);
    chart->createDefaultAxes();
    view.setChart(chart);
    followPalette(&view);
    QPalette dark;
    dark.setColor(QPalette::Window, QColor(0x20, 0x22, 0x26));
    dark.setColor(QPalette::Base, QColor(0x1a, 0x1c, 0x20));
    dark.setColor(QPalette::Text, QColor(0xee, 0xee, 0xee));
    dark.setColor(QPalette::WindowText, QColor(0xee, 0xee, 0xee));
    view.setPalette(dark);   // a later palette change, as when the system switches to dark
    QCOMPARE(chart->backgroundBrush().color(), QColor(0x1a, 0x1c, 0x20));
    QCOMPARE(chart->titleBrush().color(), QColor(0xee, 0xee, 0xee));
    for (QAbstractAxis *axis : chart->axes())
        QCOMPARE(axis->labelsColor(), QColor(0xee, 0xee, 0xee));
    view.resize(400, 300);
    view.show();
    QVERIFY(QTest::qWaitForWindowExposed(&view));
    const QImage image = view.grab().toImage();
    // A corner of the chart, outside the plot, shows the palette's base colour.
    QCOMPARE(QColor(image.pixel(3, 3)), QColor(0x1a, 0x1c, 0x20));
}

void TestNiceAxis::thinnedCategoryLabels()
{
    QChart chart;
    auto *series = new QBarSeries;
    auto *set = new QBarSet("t");
    QStringList labels;
    for (int i = 0; i < 300; ++i) {
        *set << i;
        labels << QString::number(i + 1);
    }
    series->append(set);
    chart.addSeries(series);
    auto *x = new QBarCategoryAxis;
    x->append(labels);
    chart.addAxis(x, Qt::AlignBottom);
    series->attachAxis(x);
    const int every = thinCategoryLabels(&chart, series, x, labels, 30);
    QVERIFY(every >= 10);
    QVERIFY(!x->labelsVisible());
    QCategoryAxis *shown = nullptr;
    for (QAbstractAxis *axis : chart.axes(Qt::Horizontal))
        shown = shown ? shown : qobject_cast<QCategoryAxis *>(axis);
    QVERIFY(shown);
    const QStringList drawn = shown->categoriesLabels();
    QVERIFY(drawn.size() > 10 && drawn.size() <= 30);
    // Every k-th step, starting at the first, each at its own bar's position.
    for (int k = 0; k < drawn.size(); ++k) {
        QCOMPARE(drawn[k], labels[k * every]);
        QCOMPARE(shown->endValue(drawn[k]), double(k * every));
    }
}

QTEST_MAIN(TestNiceAxis)
#include "tst_niceaxis.moc"
