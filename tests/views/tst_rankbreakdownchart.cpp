// The Distributed panel's stacked chart: a rank's four values for one step or all steps (worked
// out by hand below), one column per rank in rank order with the series in fixed colours, a
// click naming the rank, and the chart drawn in the view's palette (a dark one here).

#include "views/panels/distributed/rankbreakdownchart.h"

#include <QAbstractAxis>
#include <QBarSet>
#include <QChart>
#include <QSignalSpy>
#include <QStackedBarSeries>
#include <QtTest>

using namespace tracedesk;
using namespace tracedesk::core::analysis::distributed;
using views::RankBreakdown;
using views::RankBreakdownChart;

namespace {

constexpr core::TimePs kMs = 1000000000; // ps

RankStep step(const char *name, int comp, int comm, int overlap, int idle)
{
    RankStep s;
    s.name = name;
    s.computation = comp * kMs;
    s.communication = comm * kMs;
    s.overlap = overlap * kMs;
    s.exposedCommunication = (comm - overlap) * kMs;
    s.idle = idle * kMs;
    return s;
}

// Rank 0: step 1 computes 40 ms, communicates 30 of which 10 overlap, idles 5; step 2 computes
// 20 and idles 10. Rank 3 has step 1 only: 10 computing, 50 communicating, 2 idle.
DistributedSummary summary()
{
    DistributedSummary d;
    RankSummary r0;
    r0.rank = 0;
    r0.steps = {step("1", 40, 30, 10, 5), step("2", 20, 0, 0, 10)};
    RankSummary r3;
    r3.rank = 3;
    r3.steps = {step("1", 10, 50, 0, 2)};
    d.ranks = {r0, r3};
    return d;
}

bool same(const RankBreakdown &b, double comp, double exposed, double overlap, double idle)
{
    return qFuzzyCompare(b.computationUs + 1, comp * 1000 + 1)
           && qFuzzyCompare(b.exposedCommunicationUs + 1, exposed * 1000 + 1)
           && qFuzzyCompare(b.overlapUs + 1, overlap * 1000 + 1)
           && qFuzzyCompare(b.idleUs + 1, idle * 1000 + 1);
}

} // namespace

class TestRankBreakdownChart : public QObject
{
    Q_OBJECT

private slots:
    void breakdownByHand();
    void columnsAndClicks();
    void followsDarkPalette();
};

void TestRankBreakdownChart::breakdownByHand()
{
    const DistributedSummary d = summary();
    // Computation shown without its overlap: 40 - 10; exposed 30 - 10.
    QVERIFY(same(views::rankBreakdown(d.ranks[0], "1"), 30, 20, 10, 5));
    QVERIFY(same(views::rankBreakdown(d.ranks[0], "2"), 20, 0, 0, 10));
    QVERIFY(same(views::rankBreakdown(d.ranks[0], {}), 50, 20, 10, 15));
    QVERIFY(same(views::rankBreakdown(d.ranks[1], "2"), 0, 0, 0, 0));
}

void TestRankBreakdownChart::columnsAndClicks()
{
    const DistributedSummary d = summary();
    RankBreakdownChart chart;
    chart.show(&d, "1");
    QCOMPARE(chart.columnCount(), 2);
    auto *series = qobject_cast<QStackedBarSeries *>(chart.chart()->series().front());
    QVERIFY(series);
    QCOMPARE(series->count(), RankBreakdownChart::kSeriesCount);
    // Values in ms, column 1 = rank 3: 10 computing, 50 exposed, 0 overlap, 2 idle.
    const double expected[] = {10, 50, 0, 2};
    for (int s = 0; s < series->count(); ++s) {
        QCOMPARE(series->barSets()[s]->label(),
                 QString::fromUtf8(RankBreakdownChart::kSeriesNames[size_t(s)]));
        QCOMPARE(series->barSets()[s]->at(1), expected[s]);
    }
    // Computation and exposed communication keep their colours whatever the theme.
    QCOMPARE(series->barSets()[0]->color(), QColor(0x42, 0x85, 0xf4));
    QCOMPARE(series->barSets()[1]->color(), QColor(0xe5, 0x39, 0x35));
    QSignalSpy clicked(&chart, &RankBreakdownChart::rankClicked);
    emit series->clicked(1, series->barSets()[0]);
    QCOMPARE(clicked.count(), 1);
    QCOMPARE(clicked.front().front().toInt(), 1);

    chart.show(nullptr, {});
    QCOMPARE(chart.columnCount(), 0);
}

void TestRankBreakdownChart::followsDarkPalette()
{
    const DistributedSummary d = summary();
    RankBreakdownChart chart;
    QPalette dark;
    dark.setColor(QPalette::Base, QColor(0x20, 0x21, 0x24));
    dark.setColor(QPalette::Window, QColor(0x20, 0x21, 0x24));
    dark.setColor(QPalette::Text, QColor(0xe8, 0xea, 0xed));
    chart.setPalette(dark);
    chart.show(&d, {});
    QCOMPARE(chart.chart()->backgroundBrush().color(), QColor(0x20, 0x21, 0x24));
    QCOMPARE(chart.chart()->titleBrush().color(), QColor(0xe8, 0xea, 0xed));
    for (QAbstractAxis *axis : chart.chart()->axes())
        QCOMPARE(axis->labelsColor(), QColor(0xe8, 0xea, 0xed));
}

QTEST_MAIN(TestRankBreakdownChart)
#include "tst_rankbreakdownchart.moc"
