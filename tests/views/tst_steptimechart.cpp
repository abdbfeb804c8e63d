// StepTimeChart: one bar per step, or with more steps than bars, runs of consecutive steps with
// their mean; hover text, clicks and the empty state as a user meets them.

#include "views/panels/overview/steptimechart.h"

#include <QSignalSpy>
#include <QtTest>

using tracedesk::views::StepTimeChart;

class TstStepTimeChart : public QObject
{
    Q_OBJECT

private slots:
    void fewStepsAreOneBarEach();
    void manyStepsAreBinnedIntoMeans();
    void barHeightsFollowTheValues();
    void emptyAndPendingShrinkToOneLine();
    void fixedColoursSurviveDroppedCategories();
};

void TstStepTimeChart::fewStepsAreOneBarEach()
{
    StepTimeChart chart;
    chart.resize(600, 300);
    chart.setSteps(QStringLiteral("t"), {QStringLiteral("0"), QStringLiteral("1")},
                   {QStringLiteral("Compute"), QStringLiteral("Idle")}, {{1.5, 2.5}, {0, 0}});
    QCOMPARE(chart.stepsPerBar(), 1);
    QCOMPARE(chart.barCount(), 2);
    // A category with no time at all is left out of the legend.
    QCOMPARE(chart.shownCategories(), QStringList{QStringLiteral("Compute")});
    QCOMPARE(chart.barValue(0, 1), 2.5);
    QVERIFY(chart.barText(1).contains(QStringLiteral("Step 1")));
    QCOMPARE(chart.title(), QStringLiteral("t"));
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
    chart.resize(1000, 400);
    chart.setSteps(QStringLiteral("t"), labels, {QStringLiteral("Compute"), QStringLiteral("Idle")},
                   values);
    QCOMPARE(chart.stepCount(), kSteps);
    QCOMPARE(chart.stepsPerBar(), 11);
    QCOMPARE(chart.barCount(), 92);
    QVERIFY(chart.barCount() <= StepTimeChart::kMaxBars);
    QCOMPARE(chart.shownCategories().size(), 2);
    // Bar 10 holds steps 110..120 (mean 115, 5 odd steps of 11); the last bar steps 1001, 1002.
    QCOMPARE(chart.barValue(0, 10), 115.0);
    QCOMPARE(chart.barValue(0, 91), 1001.5);
    QCOMPARE(chart.barValue(1, 10), 5.0 / 11.0);
    const QString text = chart.barText(10);
    QVERIFY2(text.contains(QStringLiteral("Steps 110 to 120 (11 steps)")), qPrintable(text));
    QVERIFY2(text.contains(QStringLiteral("Compute: 115.000 ms")), qPrintable(text));
    QVERIFY2(text.contains(QStringLiteral("Idle: 0.455 ms")), qPrintable(text));
    QVERIFY2(text.contains(QStringLiteral("Total: 115.455 ms")), qPrintable(text));
    // The last bar: steps 1001 (odd) and 1002.
    const QString lastText = chart.barText(91);
    QVERIFY2(lastText.contains(QStringLiteral("Steps 1001 to 1002 (2 steps)")),
             qPrintable(lastText));
    QVERIFY2(lastText.contains(QStringLiteral("Compute: 1001.500 ms")), qPrintable(lastText));
    QVERIFY2(lastText.contains(QStringLiteral("Idle: 0.500 ms")), qPrintable(lastText));
    QVERIFY(chart.barText(92).isEmpty());
    QVERIFY(chart.title().contains(QStringLiteral("every 11 steps")));

    // A click on a bar, as a user makes it, names its first step.
    chart.show();
    QVERIFY(QTest::qWaitForWindowExposed(&chart));
    QSignalSpy clicked(&chart, &StepTimeChart::stepClicked);
    const QRectF bar = chart.barRect(10);
    QVERIFY(!bar.isEmpty());
    QCOMPARE(chart.barAt(bar.center()), 10);
    QTest::mouseClick(&chart, Qt::LeftButton, {}, bar.center().toPoint());
    QCOMPARE(clicked.count(), 1);
    QCOMPARE(clicked.front().front().toInt(), 110);
    // Outside the plot nothing is clicked.
    QTest::mouseClick(&chart, Qt::LeftButton, {}, QPoint(2, 2));
    QCOMPARE(clicked.count(), 1);
}

void TstStepTimeChart::barHeightsFollowTheValues()
{
    // Totals 10, 20 and 40 ms: on a shared axis the bars' heights are in the same ratio.
    StepTimeChart chart;
    chart.resize(600, 400);
    chart.setSteps(QStringLiteral("t"), {"a", "b", "c"}, {"x", "y"}, {{5, 10, 30}, {5, 10, 10}});
    const QRectF a = chart.barRect(0), b = chart.barRect(1), c = chart.barRect(2);
    QVERIFY(a.height() > 0);
    QVERIFY(qAbs(b.height() / a.height() - 2.0) < 0.01);
    QVERIFY(qAbs(c.height() / a.height() - 4.0) < 0.01);
    // Bars stand on one baseline, in step order.
    QCOMPARE(a.bottom(), c.bottom());
    QVERIFY(a.left() < b.left() && b.left() < c.left());
}

void TstStepTimeChart::emptyAndPendingShrinkToOneLine()
{
    StepTimeChart chart;
    chart.show();
    const int line = chart.fontMetrics().lineSpacing();
    QVERIFY(chart.emptyText().isEmpty());   // not known yet: no "no steps" claim
    QVERIFY(chart.height() <= 2 * line);
    chart.setSteps(QStringLiteral("t"), {"0"}, {"x"}, {{1.0}});
    QVERIFY(chart.minimumHeight() >= 200);
    chart.setSteps(QStringLiteral("t"), {}, {"x"}, {{}});
    QVERIFY(chart.emptyText().contains(QStringLiteral("No steps")));
    QVERIFY(chart.height() <= 2 * line);
    QCOMPARE(chart.barCount(), 0);
    QCOMPARE(chart.barAt(QPointF(10, 10)), -1);
    chart.clear();
    QVERIFY(chart.emptyText().isEmpty());
}

void TstStepTimeChart::fixedColoursSurviveDroppedCategories()
{
    StepTimeChart chart;
    chart.setCategoryColour(QStringLiteral("Kernel"), QColor(Qt::red));
    chart.setSteps(QStringLiteral("t"), {"0"}, {"Memcpy", "Kernel"}, {{0.0}, {3.0}});
    QCOMPARE(chart.shownCategories(), QStringList{QStringLiteral("Kernel")});
    QCOMPARE(chart.colourOf(0), QColor(Qt::red));
}

QTEST_MAIN(TstStepTimeChart)
#include "tst_steptimechart.moc"
