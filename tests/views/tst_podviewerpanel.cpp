// PodViewerPanel: computes on a worker, the step slider switches the columns' breakdown, hover
// fills the details card and a click on a column emits hostActivated. Set TRACEDESK_SHOTS to a
// directory to save screenshots.

#include "views/panels/podviewer/podviewerpanel.h"

#include "core/model/tracebuilder.h"

#include <QBarSet>
#include <QChart>
#include <QChartView>
#include <QLabel>
#include <QSignalSpy>
#include <QSlider>
#include <QStackedBarSeries>
#include <QtTest>

using namespace tracedesk::core;
using namespace tracedesk::core::analysis;
using namespace tracedesk::views;

namespace {

constexpr TimePs kUs = 1000000;

// Steps of 800 us every 1000 us; per step an op of opUs[s] (host compute) and 100 us of input.
void addHost(TraceBuilder &b, const char *host, int64_t firstUs, std::vector<int64_t> opUs)
{
    const uint32_t plane = b.addPlane("/host:CPU", host, 0, PlaneKind::Host);
    const uint32_t t = b.addTrack(plane, "python", 1);
    EventKind k;
    k.plane = plane;
    k.name = b.intern("train_step");
    const uint32_t train = b.addKind(k);
    k.name = b.intern("model/dense/MatMul:MatMul");
    const uint32_t op = b.addKind(k);
    k.name = b.intern("IteratorGetNext");
    const uint32_t next = b.addKind(k);
    auto &tb = b.trackBuilder(t);
    for (size_t s = 0; s < opUs.size(); ++s) {
        const TimePs base = (firstUs + 1000 * int64_t(s)) * kUs;
        tb.setSide(tb.addSlice(base, 800 * kUs, train), SideColumn::GroupId, int64_t(s));
        const uint32_t work = tb.addSlice(base + 50 * kUs, opUs[s] * kUs, op);
        tb.setSide(work, SideColumn::GroupId, int64_t(s));
        tb.setSide(tb.addSlice(base + 600 * kUs, 100 * kUs, next), SideColumn::GroupId, int64_t(s));
    }
}

void shot(QWidget *w, const QString &name)
{
    QTest::qWait(200);
    const QString dir = qEnvironmentVariable("TRACEDESK_SHOTS");
    if (!dir.isEmpty())
        w->grab().save(dir + QLatin1Char('/') + name);
}

} // namespace

class TestPodViewerPanel : public QObject
{
    Q_OBJECT

private slots:
    void sliderChangesColumns();
    void legacyFile();
    void noStepsDrawsNoChart();
};

void TestPodViewerPanel::sliderChangesColumns()
{
    TraceBuilder b;
    addHost(b, "worker-b", 0, {500, 200, 300});
    addHost(b, "worker-a", 0, {100, 400, 250});
    auto cache = std::make_shared<AnalysisCache>(b.build());
    PodViewerPanel panel;
    panel.resize(1100, 600);
    panel.show();
    QSignalSpy done(&panel, &PodViewerPanel::computed);
    panel.setAnalyses(cache);
    QCOMPARE(panel.statusText(), QStringLiteral("Computing..."));
    QVERIFY(done.wait(10000));
    QCOMPARE(panel.stepCount(), 3);
    QCOMPARE(panel.currentStep(), 0);
    // Columns are ordered by host name.
    QCOMPARE(panel.columnLabels(), (QStringList{"worker-a", "worker-b"}));
    const int hostCompute = 3, allOthers = 8;
    QCOMPARE(panel.columnValues(0)[hostCompute], 100.0);
    QCOMPARE(panel.columnValues(1)[hostCompute], 500.0);
    QCOMPARE(panel.columnValues(1)[allOthers], 200.0);   // 800 - 500 - 100
    auto *series = qobject_cast<QStackedBarSeries *>(panel.chartView()->chart()->series().value(0));
    QVERIFY(series);
    QCOMPARE(series->count(), 9);
    QCOMPARE(series->barSets()[hostCompute]->at(0), 100.0);
    shot(&panel, "podviewer_step0.png");

    // Move the slider with the keyboard: step 1.
    panel.stepSlider()->setFocus();
    QTest::keyClick(panel.stepSlider(), Qt::Key_Right);
    QCOMPARE(panel.currentStep(), 1);
    QCOMPARE(panel.columnValues(0)[hostCompute], 400.0);
    QCOMPARE(panel.columnValues(1)[hostCompute], 200.0);
    series = qobject_cast<QStackedBarSeries *>(panel.chartView()->chart()->series().value(0));
    QCOMPARE(series->barSets()[hostCompute]->at(0), 400.0);
    QCOMPARE(series->barSets()[hostCompute]->at(1), 200.0);

    panel.showDetails(1);
    const QString card = panel.detailsText();
    QVERIFY2(card.startsWith("Step breakdown of worker-b"), qPrintable(card));
    QVERIFY2(card.contains("Host compute: 200.00 us (25.00%)"), qPrintable(card));
    QVERIFY2(card.contains("Input: 100.00 us (12.50%)"), qPrintable(card));
    shot(&panel, "podviewer_step1.png");

    // A click on worker-a's column (its host-compute segment) emits the host.
    QSignalSpy hosts(&panel, &PodViewerPanel::hostActivated);
    QChart *chart = panel.chartView()->chart();
    const QPointF scene = chart->mapToPosition(QPointF(0, 100 + 400 / 2), series);
    const QPoint at = panel.chartView()->mapFromScene(scene);
    QTest::mouseClick(panel.chartView()->viewport(), Qt::LeftButton, {}, at);
    QCOMPARE(hosts.count(), 1);
    QCOMPARE(hosts.front().front().toString(), QStringLiteral("worker-a"));

    panel.setAnalyses(nullptr);
    QCOMPARE(panel.stepCount(), 0);
    QCOMPARE(panel.statusText(), QStringLiteral("No trace loaded."));
}

void TestPodViewerPanel::legacyFile()
{
    const QString path = QStringLiteral(TRACEDESK_SHARED_FIXTURES)
                         + "/legacy_tools/xprof_profile_demo/profile_demo.pod_viewer.json";
    if (!QFile::exists(path))
        QSKIP("shared legacy fixture not found (shared/fixtures/real)");
    auto read = readPodViewerJsonFile(path.toStdString());
    QVERIFY2(read, read ? "" : read.message().c_str());
    PodViewerPanel panel;
    panel.resize(1400, 650);
    panel.show();
    panel.setData(std::make_shared<const PodViewerData>(std::move(read).value()));
    QCOMPARE(panel.stepCount(), 2);
    QCOMPARE(panel.columnLabels().size(), 32);
    QCOMPARE(panel.columnLabels().front(), QStringLiteral("(0,0)"));
    panel.showDetails(0);
    QVERIFY(panel.detailsText().startsWith("Step breakdown of chip 0\nHostname: "));
    const auto before = panel.columnValues(3);
    panel.setCurrentStep(1);
    QCOMPARE(panel.currentStep(), 1);
    QVERIFY(panel.columnValues(3) != before);
    shot(&panel, "podviewer_legacy.png");
}

// Data without a common step: no empty chart, a one-line reason instead. Also before any data.
void TestPodViewerPanel::noStepsDrawsNoChart()
{
    PodViewerPanel panel;
    panel.resize(1000, 600);
    panel.show();
    QVERIFY(QTest::qWaitForWindowExposed(&panel));
    QVERIFY(!panel.chartView()->isVisible());
    auto data = std::make_shared<PodViewerData>();
    data->deviceType = "GPU";
    data->series = {"Compute"};
    data->emptyIntersection = true;
    panel.setData(data);
    QCOMPARE(panel.stepCount(), 0);
    QVERIFY(!panel.chartView()->isVisible());
    bool reasonShown = false;
    for (QLabel *label : panel.findChildren<QLabel *>())
        reasonShown = reasonShown || (label->isVisible() && label->text().contains("no step"));
    QVERIFY(reasonShown);
    // Hosts whose steps do not meet are told apart from a profile without steps (one host).
    auto shown = [&](const char *text) {
        for (QLabel *label : panel.findChildren<QLabel *>()) {
            if (label->isVisible() && label->text().contains(text))
                return true;
        }
        return false;
    };
    QVERIFY(shown("common to all hosts"));
    auto none = std::make_shared<PodViewerData>(*data);
    none->emptyIntersection = false;
    panel.setData(none);
    QVERIFY(!panel.chartView()->isVisible());
    QVERIFY(shown("has no steps"));
    QVERIFY(!shown("common to all hosts"));
}

QTEST_MAIN(TestPodViewerPanel)
#include "tst_podviewerpanel.moc"
