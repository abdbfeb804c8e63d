// StepTimeChart with more steps than bars: runs of consecutive steps, each bar their mean.

#include "views/panels/overview/steptimechart.h"

#include <QBarSet>
#include <QChart>
#include <QSignalSpy>
#include <QStackedBarSeries>
#include <QtTest>

using tracedesk::views::StepTimeChart;

class TstStepTimeChart : public QObject
{
    Q_OBJECT

private slots:
    void fewStepsAreOneBarEach();
    void manyStepsAreBinnedIntoMeans();
};

namespace {

QStackedBarSeries *seriesOf(StepTimeChart &chart)
{
    const auto series = chart.chart()->series();
    return series.isEmpty() ? nullptr : qobject_cast<QStackedBarSeries *>(series.front());
}

} // namespace

void TstStepTimeChart::fewStepsAreOneBarEach()
{
    StepTimeChart chart;
    chart.setSteps(QStringLiteral("t"), {QStringLiteral("0"), QStringLiteral("1")},
                   {QStringLiteral("Compute")}, {{1.5, 2.5}});
    QCOMPARE(chart.stepsPerBar(), 1);
    QCOMPARE(chart.barCount(), 2);
    QStackedBarSeries *series = seriesOf(chart);
    QVERIFY(series);
    QCOMPARE(series->barSets().front()->at(1), 2.5);
    QVERIFY(chart.barText(1).contains(QStringLiteral("Step 1")));
}

void TstStepTimeChart::manyStepsAreBinnedIntoMeans()
{
    // 1003 steps: 11 steps per bar (1003 / 100 rounded up), 92 bars, the last one 2 steps.
    constexpr int kSteps = 1003;
    QStringList labels;
    std::vector<std::vector<double>> values(2, std::vector<double>(kSteps));
    for (int s = 0; s < kSteps; ++s) {
        labels << QString::number(s);
        values[0][size_t(s)] = s;          // compute: the step number
        values[1][size_t(s)] = s % 2;      // idle: every other step
    }
    StepTimeChart chart;
    chart.setSteps(QStringLiteral("t"), labels, {QStringLiteral("Compute"), QStringLiteral("Idle")},
                   values);
    QCOMPARE(chart.stepCount(), kSteps);
    QCOMPARE(chart.stepsPerBar(), 11);
    QCOMPARE(chart.barCount(), 92);
    QVERIFY(chart.barCount() <= StepTimeChart::kMaxBars);
    QStackedBarSeries *series = seriesOf(chart);
    QVERIFY(series);
    QCOMPARE(series->barSets().size(), 2);
    const QBarSet *compute = series->barSets()[0];
    QCOMPARE(compute->count(), 92);
    // Bar 10 holds steps 110..120 (mean 115, 5 odd steps of 11); the last bar steps 1001, 1002.
    QCOMPARE(compute->at(10), 115.0);
    QCOMPARE(compute->at(91), 1001.5);
    QCOMPARE(series->barSets()[1]->at(10), 5.0 / 11.0);
    const QString text = chart.barText(10);
    QVERIFY2(text.contains(QStringLiteral("Steps 110 to 120 (11 steps)")), qPrintable(text));
    QVERIFY2(text.contains(QStringLiteral("Compute: 115.000 ms")), qPrintable(text));
    QVERIFY(chart.chart()->title().contains(QStringLiteral("every 11 steps")));
    // A click on a bar names its first step.
    QSignalSpy clicked(&chart, &StepTimeChart::stepClicked);
    emit series->clicked(10, series->barSets()[0]);
    QCOMPARE(clicked.count(), 1);
    QCOMPARE(clicked.front().front().toInt(), 110);
}

QTEST_MAIN(TstStepTimeChart)
#include "tst_steptimechart.moc"
