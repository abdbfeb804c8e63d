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
    // 1003 steps: 6 steps per bar (1003 / 200 rounded up), 168 bars, the last one 1 step.
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
    QCOMPARE(chart.stepsPerBar(), 6);
    QCOMPARE(chart.barCount(), 168);
    QVERIFY(chart.barCount() <= StepTimeChart::kMaxBars);
    QStackedBarSeries *series = seriesOf(chart);
    QVERIFY(series);
    QCOMPARE(series->barSets().size(), 2);
    const QBarSet *compute = series->barSets()[0];
    QCOMPARE(compute->count(), 168);
    // Bar 10 holds steps 60..65: mean 62.5; the last bar holds step 1002 alone.
    QCOMPARE(compute->at(10), 62.5);
    QCOMPARE(compute->at(167), 1002.0);
    QCOMPARE(series->barSets()[1]->at(10), 0.5);
    const QString text = chart.barText(10);
    QVERIFY2(text.contains(QStringLiteral("Steps 60 to 65 (6 steps)")), qPrintable(text));
    QVERIFY2(text.contains(QStringLiteral("Compute: 62.500 ms")), qPrintable(text));
    QVERIFY(chart.chart()->title().contains(QStringLiteral("every 6 steps")));
    // A click on a bar names its first step.
    QSignalSpy clicked(&chart, &StepTimeChart::stepClicked);
    emit series->clicked(10, series->barSets()[0]);
    QCOMPARE(clicked.count(), 1);
    QCOMPARE(clicked.front().front().toInt(), 60);
}

QTEST_MAIN(TstStepTimeChart)
#include "tst_steptimechart.moc"
