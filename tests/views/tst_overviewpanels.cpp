// Overview and input pipeline panels on the real GPU file: both compute off the GUI thread,
// show the same numbers as the core analyses, their tables pass QAbstractItemModelTester and
// sort numerically, and clicks emit opActivated / timeActivated. Set TRACEDESK_SHOTS to a
// directory to save screenshots.

#include "core/io/traceloader.h"
#include "views/panels/inputpipeline/inputpipelinepanel.h"
#include "views/panels/overview/analysistablemodel.h"
#include "views/panels/overview/overviewpanel.h"
#include "views/panels/overview/steptimechart.h"

#include <QAbstractItemModelTester>
#include <QSignalSpy>
#include <QSortFilterProxyModel>
#include <QTableView>
#include <QtTest>

using namespace tracedesk;
using namespace tracedesk::core::analysis;
using namespace tracedesk::views;

class TestOverviewPanels : public QObject
{
    Q_OBJECT

private slots:
    void initTestCase();
    void overviewPanel();
    void inputPipelinePanel();
    void clearing();
    void noChartWithoutSteps();

private:
    void shot(QWidget *w, const QString &name);
    AnalysisCachePtr m_cache;
};

void TestOverviewPanels::initTestCase()
{
    const QString path = QStringLiteral(TRACEDESK_SHARED_FIXTURES)
                         + "/xspace/xprof_GPU-multi-worker/34.83.195.179_6003.xplane.pb";
    if (!QFile::exists(path))
        QSKIP("shared GPU fixture not found (shared/fixtures/real)");
    auto trace = core::loadTrace(path.toStdString());
    QVERIFY(trace);
    m_cache = std::make_shared<AnalysisCache>(trace.value());
}

void TestOverviewPanels::shot(QWidget *w, const QString &name)
{
    QTest::qWait(200);   // let the pending layout requests run before grabbing
    const QString dir = qEnvironmentVariable("TRACEDESK_SHOTS");
    if (!dir.isEmpty())
        w->grab().save(dir + QLatin1Char('/') + name);
}

void TestOverviewPanels::overviewPanel()
{
    OverviewPanel panel;
    panel.resize(1400, 1800);
    panel.show();
    QSignalSpy done(&panel, &OverviewPanel::computed);
    panel.setAnalyses(m_cache);
    QVERIFY(panel.isComputing());
    QCOMPARE(panel.statusText(), QStringLiteral("Computing..."));
    QVERIFY(done.wait(60000));
    auto page = overviewPage(*m_cache);
    QAbstractItemModelTester tester(panel.topOpsModel(), QAbstractItemModelTester::FailureReportingMode::QtTest);
    QAbstractItemModelTester proxyTester(panel.topOpsProxy(), QAbstractItemModelTester::FailureReportingMode::QtTest);
    QCOMPARE(panel.topOpsModel()->rowCount(), int(page->topDeviceOps.size()));
    QVERIFY(panel.topOpsModel()->rowCount() > 0);
    // In rank order, self time descending, ties in the core's order: row r is rank r + 1 and
    // the cumulative share never goes down (this profile has ties at 0.8 % and 0.3 %).
    auto *proxy = panel.topOpsProxy();
    for (int r = 1; r < proxy->rowCount(); ++r) {
        QVERIFY(proxy->index(r - 1, 3).data(AnalysisTableModel::kSortRole).toDouble()
                >= proxy->index(r, 3).data(AnalysisTableModel::kSortRole).toDouble());
        QVERIFY(proxy->index(r - 1, 4).data(AnalysisTableModel::kSortRole).toDouble()
                <= proxy->index(r, 4).data(AnalysisTableModel::kSortRole).toDouble());
        QCOMPARE(proxy->mapToSource(proxy->index(r, 0)).row(), r);
        QCOMPARE(proxy->headerData(r, Qt::Vertical).toString(), QString::number(r + 1));
    }
    QCOMPARE(proxy->index(0, 0).data().toString(),
             QString::fromStdString(page->topDeviceOps.front().name));
    // Sorting on the self-time column, either way, keeps ties in rank order.
    for (Qt::SortOrder order : {Qt::AscendingOrder, Qt::DescendingOrder}) {
        proxy->sort(3, order);
        for (int r = 1; r < proxy->rowCount(); ++r) {
            const double a = proxy->index(r - 1, 3).data(AnalysisTableModel::kSortRole).toDouble();
            const double b = proxy->index(r, 3).data(AnalysisTableModel::kSortRole).toDouble();
            QVERIFY(order == Qt::AscendingOrder ? a <= b : a >= b);
            if (a == b)
                QVERIFY(proxy->mapToSource(proxy->index(r - 1, 0)).row()
                        < proxy->mapToSource(proxy->index(r, 0)).row());
        }
    }
    proxy->sort(-1);
    QCOMPARE(panel.stepChart()->stepCount(), page->stepCount);
    QCOMPARE(panel.statusText(),
             page->stepCount == 1 ? QStringLiteral("Overview of 1 step.")
                                  : QStringLiteral("Overview of %1 steps.").arg(page->stepCount));
    QVERIFY(panel.summaryText().contains(QString::number(page->averageStepTimeMs, 'f', 3)));
    QVERIFY(panel.recommendationText().contains(QString::fromStdString(page->bottleneck)));
    QVERIFY(panel.environmentText().contains(QStringLiteral("Volta")));
    QVERIFY(!panel.diagnosticsText().isEmpty());
    QVERIFY(panel.stepChart()->hoverText(0).contains(QStringLiteral("Device compute")));

    QSignalSpy ops(&panel, &OverviewPanel::opActivated);
    emit panel.topOpsView()->clicked(proxy->index(0, 2));
    QCOMPARE(ops.count(), 1);
    QCOMPARE(ops.at(0).at(0).toString(), QString::fromStdString(page->topDeviceOps.front().name));
    QSignalSpy times(&panel, &OverviewPanel::timeActivated);
    emit panel.stepChart()->stepClicked(0);
    QCOMPARE(times.count(), 1);
    QCOMPARE(times.at(0).at(0).value<core::TimePs>(), page->input->generic.steps.front().begin);
    shot(&panel, QStringLiteral("overview_gpu.png"));
}

void TestOverviewPanels::inputPipelinePanel()
{
    InputPipelinePanel panel;
    panel.resize(1400, 1500);
    panel.show();
    QSignalSpy done(&panel, &InputPipelinePanel::computed);
    panel.setAnalyses(m_cache);
    QVERIFY(done.wait(60000));
    auto a = inputPipeline(*m_cache);
    QAbstractItemModelTester t1(panel.opsModel(), QAbstractItemModelTester::FailureReportingMode::QtTest);
    QAbstractItemModelTester t2(panel.hostModel(), QAbstractItemModelTester::FailureReportingMode::QtTest);
    QAbstractItemModelTester t3(panel.opsProxy(), QAbstractItemModelTester::FailureReportingMode::QtTest);
    QCOMPARE(panel.opsModel()->rowCount(), int(a->inputOps.size()));
    QVERIFY(panel.opsModel()->rowCount() > 0);
    QCOMPARE(panel.hostModel()->rowCount(), 5);
    QCOMPARE(panel.hostModel()->value(2, 1).toDouble(), a->inputTimeBreakdown.preprocessingUs);
    QCOMPARE(panel.stepChart()->stepCount(), int(a->generic.steps.size()));
    QVERIFY(panel.summaryText().contains(a->inputBound() ? "Input-bound" : "Not input-bound"));
    QVERIFY(panel.deviceText().contains(QString::number(a->stepTimeSummary.average, 'f', 3)));
    // Sort by count ascending, then by op name.
    panel.opsView()->sortByColumn(1, Qt::AscendingOrder);
    auto *proxy = panel.opsProxy();
    for (int r = 1; r < proxy->rowCount(); ++r)
        QVERIFY(proxy->index(r - 1, 1).data(AnalysisTableModel::kSortRole).toLongLong()
                <= proxy->index(r, 1).data(AnalysisTableModel::kSortRole).toLongLong());
    QSignalSpy ops(&panel, &InputPipelinePanel::opActivated);
    emit panel.opsView()->clicked(proxy->index(0, 0));
    QCOMPARE(ops.count(), 1);
    QCOMPARE(ops.at(0).at(0).toString(), proxy->index(0, 0).data().toString());
    shot(&panel, QStringLiteral("inputpipeline_gpu.png"));
}

void TestOverviewPanels::clearing()
{
    OverviewPanel o;
    InputPipelinePanel i;
    o.setAnalyses(nullptr);
    i.setAnalyses(nullptr);
    QCOMPARE(o.topOpsModel()->rowCount(), 0);
    QCOMPARE(i.opsModel()->rowCount(), 0);
    QVERIFY(!o.isComputing());
}

// The TPU inference profile has no steps: the overview says so and draws no step chart.
void TestOverviewPanels::noChartWithoutSteps()
{
    const QString path = QStringLiteral(TRACEDESK_SHARED_FIXTURES)
                         + "/xspace/xprof_tpu_inference_2/tpu_inference_2.xplane.pb";
    if (!QFile::exists(path))
        QSKIP("shared TPU fixture not found (shared/fixtures/real)");
    auto trace = core::loadTrace(path.toStdString());
    QVERIFY(trace);
    auto cache = std::make_shared<AnalysisCache>(trace.value());
    QCOMPARE(overviewPage(*cache)->stepCount, 0);
    OverviewPanel panel;
    panel.resize(1400, 1800);
    panel.show();
    QSignalSpy done(&panel, &OverviewPanel::computed);
    panel.setAnalyses(cache);
    QVERIFY(done.wait(60000));
    QVERIFY(!panel.stepChart()->isVisibleTo(&panel));
    // Input Pipeline on the same profile: a one-line reason, no chart (no series, no axes).
    InputPipelinePanel input;
    input.resize(1400, 1800);
    input.show();
    QSignalSpy inputDone(&input, &InputPipelinePanel::computed);
    input.setAnalyses(cache);
    // While computing, nothing is known: no "no steps" claim yet.
    if (input.isComputing())
        QVERIFY(input.stepChart()->emptyText().isEmpty());
    QVERIFY(inputDone.wait(60000));
    StepTimeChart *chart = input.stepChart();
    QCOMPARE(chart->stepCount(), 0);
    QCOMPARE(chart->barCount(), 0);
    QVERIFY(chart->shownCategories().isEmpty());
    QVERIFY(!chart->isVisibleTo(&input));
    QVERIFY(input.deviceText().contains("No steps"));
    // No input share is claimed without a step time.
    QVERIFY2(!input.summaryText().contains("Not input-bound"), qPrintable(input.summaryText()));
    QVERIFY(!input.summaryText().contains("0.0%"));
    QVERIFY(input.summaryText().contains("no steps"));
    // A profile with steps shows it again in the same panel.
    panel.setAnalyses(m_cache);
    QVERIFY(done.wait(60000));
    QVERIFY(panel.stepChart()->isVisibleTo(&panel));
}

QTEST_MAIN(TestOverviewPanels)
#include "tst_overviewpanels.moc"
