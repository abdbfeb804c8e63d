// The GPU Time panel on a real PyTorch trace: the temporal row shows the idle share of the
// device's active span derived here from the raw JSON (union of its GPU events), the idle-cause
// note states the 30 us threshold, and clicking a launch outlier shows its launch call.

#include "../core/support/criticalpathtraces.h"
#include "../core/support/kinetofixtures.h"

#include "core/analysis/analysiscache.h"
#include "core/analysis/gputime/gputime.h"
#include "core/analysis/pytorch/kinetoindex.h"
#include "core/io/chromejsonreader.h"
#include "core/io/traceloader.h"
#include "views/panels/gputime/criticalpathview.h"
#include "views/panels/gputime/gputimepanel.h"
#include "views/panels/pytorch/frameworkpages.h"
#include "views/timeline/timelinestate.h"
#include "views/panels/overview/analysistablemodel.h"

#include <QComboBox>
#include <QDoubleSpinBox>
#include <QGroupBox>
#include <QLabel>
#include <QLineEdit>
#include <QRegularExpression>
#include <QSignalSpy>
#include <QTabBar>
#include <QTabWidget>
#include <QPushButton>
#include <QTableView>
#include <QtTest>

#include "xplane.pb.h"

#include <fstream>
#include <sstream>

#include <algorithm>
#include <set>

using namespace tracedesk;

namespace {

const QString kTeAttentionXSpace = QString(TRACEDESK_SHARED_FIXTURES)
                                   + "/xspace/tracelens_te_fused_attn/934987a2fc2f.xplane.pb";
const QString kTfMultiWorker = QString(TRACEDESK_SHARED_FIXTURES)
                               + "/xspace/xprof_GPU-multi-worker/34.83.195.179_6003.xplane.pb";

const QGroupBox *card(const QWidget &panel, const QString &title)
{
    for (const QGroupBox *box : panel.findChildren<QGroupBox *>())
        if (box->title() == title)
            return box;
    return nullptr;
}

const QString kResnet = QString(TRACEDESK_SHARED_FIXTURES)
                        + "/chrome_json/kineto__resnet50_num_workers_0__worker0.1623143089861.pt.trace.json.gz";

// Idle percent of the GPU's span: 100 * (span - union) / span over kernels, memcpys, memsets.
double rawIdlePercent(const QString &path)
{
    static const std::set<QString> cats = {"kernel", "Kernel", "gpu_memcpy", "Memcpy",
                                           "gpu_memset", "Memset"};
    std::vector<std::pair<double, double>> r;
    for (const QJsonValue &v : testsupport::readFixtureObject(path).value("traceEvents").toArray()) {
        const QJsonObject e = v.toObject();
        if (e.value("ph").toString() == "X" && cats.count(e.value("cat").toString()))
            r.push_back({e.value("ts").toDouble(), e.value("ts").toDouble() + e.value("dur").toDouble()});
    }
    std::sort(r.begin(), r.end());
    double busy = 0, start = r.front().first, end = r.front().second, last = end;
    for (const auto &[s, e] : r) {
        if (s > end) {
            busy += end - start;
            start = s;
        }
        end = std::max(end, e);
        last = std::max(last, e);
    }
    busy += end - start;
    const double span = last - r.front().first;
    return 100.0 * (span - busy) / span;
}

} // namespace

class TstGpuTimePanel : public QObject
{
    Q_OBJECT

private slots:
    // An XSpace GPU profile (JAX on ROCm): the panel applies, shows its one device and its
    // launch queue, and shows no card that only a PyTorch trace fills (aten operators) nor a
    // counter track it does not have.
    void xspaceGpuProfile()
    {
        TRACEDESK_REQUIRE_FIXTURE(kTeAttentionXSpace);
        auto loaded = core::loadTrace(kTeAttentionXSpace.toStdString());
        QVERIFY(loaded);
        QVERIFY(views::GpuTimePanel::notApplicableReason(*loaded.value()).isEmpty());
        auto cache = std::make_shared<core::analysis::AnalysisCache>(loaded.value());
        views::GpuTimePanel panel;
        panel.resize(1400, 1200);
        panel.show();
        QSignalSpy done(&panel, &views::GpuTimePanel::computed);
        panel.setAnalyses(cache);
        QTRY_VERIFY_WITH_TIMEOUT(done.count() == 1, 60000);
        QCOMPARE(panel.temporalModel()->rowCount(), 1);
        QCOMPARE(panel.idleModel()->rowCount(), 1);
        QCOMPARE(panel.queueModel()->rowCount(), 1);
        QVERIFY(panel.statusText().startsWith("The GPU was idle"));
        QVERIFY(panel.statusText().contains("launches"));
        const QGroupBox *ops = card(panel, "Operators and their kernels");
        const QGroupBox *queue = card(panel, "Launch queue length");
        QVERIFY(ops && queue);
        QVERIFY(!ops->isVisibleTo(&panel));
        QVERIFY(queue->isVisibleTo(&panel));
        for (const QLabel *label : queue->findChildren<QLabel *>())
            QVERIFY2(!label->text().contains("counter track"), qPrintable(label->text()));

        // A TensorFlow capture names its launches after their kernels: no queueing call, so no
        // queue card rather than an empty one.
        TRACEDESK_REQUIRE_FIXTURE(kTfMultiWorker);
        auto tf = core::loadTrace(kTfMultiWorker.toStdString());
        QVERIFY(tf);
        QSignalSpy again(&panel, &views::GpuTimePanel::computed);
        panel.setAnalyses(std::make_shared<core::analysis::AnalysisCache>(tf.value()));
        QTRY_VERIFY_WITH_TIMEOUT(again.count() == 1, 60000);
        QCOMPARE(panel.temporalModel()->rowCount(), 3);
        // Three devices' spans add up to device time: the summary says so.
        QVERIFY2(panel.statusText().startsWith("The 3 GPUs were idle"),
                 qPrintable(panel.statusText()));
        QCOMPARE(panel.queueModel()->rowCount(), 0);
        QVERIFY(!queue->isVisibleTo(&panel));
    }

    // A profile whose breakdowns would take more memory than the panel spends unasked: it
    // says how many launch calls and GPU activities (counted here from the raw protobuf: host
    // events with a correlation id, GPU stream events) and computes only on the click.
    void asksBeforeALargeProfile()
    {
        TRACEDESK_REQUIRE_FIXTURE(kTeAttentionXSpace);
        std::ifstream in(kTeAttentionXSpace.toStdString(), std::ios::binary);
        std::stringstream bytes;
        bytes << in.rdbuf();
        tensorflow::profiler::XSpace space;
        QVERIFY(space.ParseFromString(bytes.str()));
        qulonglong events = 0;
        for (const auto &plane : space.planes()) {
            int64_t correlation = -1;
            for (const auto &[id, m] : plane.stat_metadata())
                if (m.name() == "correlation_id")
                    correlation = id;
            for (const auto &line : plane.lines()) {
                const bool stream = plane.name().starts_with("/device:GPU:")
                                    && line.name().starts_with("Stream #");
                for (const auto &e : line.events()) {
                    bool launch = false;
                    for (const auto &stat : e.stats())
                        launch = launch || stat.metadata_id() == correlation;
                    events += stream || (plane.name() == "/host:CPU" && launch);
                }
            }
        }
        QVERIFY(events > 0);

        auto loaded = core::loadTrace(kTeAttentionXSpace.toStdString());
        QVERIFY(loaded);
        views::GpuTimePanel panel;
        panel.setAskAboveBytes(1000);
        panel.resize(1400, 1200);
        panel.show();
        QSignalSpy done(&panel, &views::GpuTimePanel::computed);
        panel.setAnalyses(std::make_shared<core::analysis::AnalysisCache>(loaded.value()));
        QTRY_VERIFY_WITH_TIMEOUT(done.count() == 1, 60000);
        QCOMPARE(panel.temporalModel()->rowCount(), 0);
        QVERIFY2(panel.statusText().contains(QLocale().toString(events)),
                 qPrintable(panel.statusText()));
        QVERIFY(panel.computeLargeButton()->isVisibleTo(&panel));
        QVERIFY(!panel.tabs()->isVisibleTo(&panel)); // no empty tables under the question
        QTest::mouseClick(panel.computeLargeButton(), Qt::LeftButton);
        QTRY_VERIFY_WITH_TIMEOUT(done.count() == 2, 60000);
        QCOMPARE(panel.temporalModel()->rowCount(), 1);
        QVERIFY(!panel.computeLargeButton()->isVisibleTo(&panel));
        QVERIFY(panel.tabs()->isVisibleTo(&panel));
        QVERIFY(panel.statusText().contains("idle"));
    }

    void showsWhyTheGpuWaits()
    {
        TRACEDESK_REQUIRE_FIXTURE(kResnet);
        auto loaded = core::loadTrace(kResnet.toStdString());
        QVERIFY(loaded);
        auto cache = std::make_shared<core::analysis::AnalysisCache>(loaded.value());
        views::GpuTimePanel panel;
        panel.resize(1400, 1200);
        panel.show();
        QSignalSpy done(&panel, &views::GpuTimePanel::computed);
        panel.setAnalyses(cache);
        QTRY_VERIFY_WITH_TIMEOUT(done.count() == 1, 60000);

        QCOMPARE(panel.temporalModel()->rowCount(), 1);
        const double idle = panel.temporalModel()->value(0, 3).toDouble();
        QVERIFY2(std::abs(idle - rawIdlePercent(kResnet)) < 0.01,
                 qPrintable(QString("%1 vs %2").arg(idle).arg(rawIdlePercent(kResnet))));
        QVERIFY(panel.statusText().contains(QString::number(idle, 'f', 1) + " %"));
        QVERIFY(panel.idleModel()->rowCount() >= 1);
        QVERIFY(panel.typeModel()->rowCount() >= 1);
        QVERIFY(panel.opKernelModel()->rowCount() > 0);
        // Kernels by name: ten computation names and "others", then the memory kinds; the
        // total per type equals the type's kernels' summed durations.
        QVERIFY(panel.kernelNameModel()->rowCount() >= 2);
        QCOMPARE(panel.kernelNameModel()->value(10, 1).toString(), QString("others"));
        // Its streams' queues are drawn on the timeline, and the note says where.
        const QGroupBox *queue = card(panel, "Launch queue length");
        QVERIFY(queue && queue->isVisibleTo(&panel));
        bool pointsToTrack = false;
        for (const QLabel *label : queue->findChildren<QLabel *>())
            pointsToTrack = pointsToTrack || label->text().contains("counter track");
        QVERIFY(pointsToTrack);

        // A launch outlier, clicked, names its launch call on the timeline.
        QTableView *view = panel.launchView();
        QVERIFY(view->model()->rowCount() > 0);
        std::vector<core::SliceRef> activated;
        connect(&panel, &views::GpuTimePanel::sliceActivated, this,
                [&activated](core::SliceRef s) { activated.push_back(s); });
        view->scrollTo(view->model()->index(0, 0));
        QTest::mouseClick(view->viewport(), Qt::LeftButton, {},
                          view->visualRect(view->model()->index(0, 0)).center());
        QCOMPARE(activated.size(), size_t(1));
        const core::SliceRef slice = activated.front();
        const QString call = view->model()->index(0, 1).data().toString();
        QCOMPARE(QString::fromStdString(std::string(loaded.value()->name(slice))), call);

        // "Outline all" outlines every outlier's launch call at once.
        std::shared_ptr<const std::vector<core::SliceRef>> outlined;
        connect(&panel, &views::GpuTimePanel::rangeActivated, this,
                [&outlined](core::TimePs, core::TimePs, const QString &,
                            std::shared_ptr<const std::vector<core::SliceRef>> refs) {
                    outlined = std::move(refs);
                });
        QVERIFY(panel.outlineButton()->isEnabled());
        QTest::mouseClick(panel.outlineButton(), Qt::LeftButton);
        QVERIFY(outlined);

        // Every outlier is outlined, but only the ones with the longest launch delays are
        // listed: here all of HTA's outliers (runtime over 50 us or delay over 30 us, from the
        // full report), of which fewer rows than outliers.
        const auto index = core::analysis::pytorch::buildKinetoIndex(*loaded.value());
        const auto all = core::analysis::gputime::gpuTimeReport(*loaded.value(), index);
        std::vector<double> delays;
        for (const core::analysis::gputime::LaunchStat &l : all.launches)
            if (l.runtimeOutlier() || l.delayOutlier())
                delays.push_back(l.launchDelayUs);
        QVERIFY(delays.size() > core::analysis::gputime::kListedLaunchOutliers);
        QCOMPARE(outlined->size(), delays.size());
        QCOMPARE(size_t(panel.launchModel()->rowCount()),
                 core::analysis::gputime::kListedLaunchOutliers);
        QVERIFY(panel.statusText().contains(
            QLocale().toString(qulonglong(delays.size())) + " launch outliers of "));
        std::sort(delays.begin(), delays.end(), std::greater<>());
        const double cut = delays[core::analysis::gputime::kListedLaunchOutliers - 1];
        for (int row = 0; row < panel.launchModel()->rowCount(); ++row)
            QVERIFY(panel.launchModel()->value(row, 4).toDouble() >= cut);
    }

    // A merged run of rank traces: the panel says which rank it describes.
    void saysWhichRank()
    {
        const QString run = QString(TRACEDESK_SHARED_FIXTURES) + "/multirank/hta__trace_filter";
        TRACEDESK_REQUIRE_FIXTURE(run);
        core::LoadOptions options;
        options.useCache = false;
        auto loaded = core::loadTrace(run.toStdString(), nullptr, options);
        QVERIFY(loaded);
        views::GpuTimePanel panel;
        QSignalSpy done(&panel, &views::GpuTimePanel::computed);
        panel.setAnalyses(std::make_shared<core::analysis::AnalysisCache>(loaded.value()));
        QTRY_VERIFY_WITH_TIMEOUT(done.count() == 1, 60000);
        QVERIFY2(panel.statusText().startsWith("rank "), qPrintable(panel.statusText()));
        QVERIFY(panel.statusText().contains(" of "));
        QVERIFY(panel.statusText().contains("The GPU was idle"));

        // The rank chooser of the PyTorch views: the second rank, picked with the keyboard.
        QComboBox *chooser = panel.pages()->rankChooser();
        QVERIFY(chooser);
        panel.show();
        QVERIFY(chooser->isVisible());
        QCOMPARE(chooser->count(), 2);
        const QString first = panel.statusText().section(':', 0, 0);
        chooser->setFocus();
        QTest::keyClick(chooser, Qt::Key_Down);
        QTRY_VERIFY_WITH_TIMEOUT(done.count() == 2, 60000);
        QVERIFY2(panel.statusText().startsWith(chooser->itemText(1).section(" of ", 0, 0) + " of "),
                 qPrintable(panel.statusText() + " / " + chooser->itemText(1)));
        QVERIFY(panel.statusText().section(':', 0, 0) != first);
        QVERIFY(panel.statusText().contains("The GPU was idle"));
    }

    // A CUDA-graph replay starts its kernels 8 ms into a 19 ms profile: the status says how long
    // the GPU had no work outside its active span (derived here from the raw events' extents).
    void saysWhatTheSpanLeavesOut()
    {
        const QString path = QString(TRACEDESK_SHARED_FIXTURES)
                             + "/cudagraph/tracelens__vllm_decode_full/graph_execution.json.gz";
        TRACEDESK_REQUIRE_FIXTURE(path);
        double first = 1e300, last = -1e300, gpuFirst = 1e300, gpuLast = -1e300;
        for (const QJsonValue &v : testsupport::readFixtureObject(path).value("traceEvents").toArray()) {
            const QJsonObject e = v.toObject();
            if (e.value("ph").toString() != "X")
                continue;
            const double ts = e.value("ts").toDouble(), end = ts + e.value("dur").toDouble();
            first = std::min(first, ts);
            last = std::max(last, end);
            const QString cat = e.value("cat").toString();
            if (cat == "kernel" || cat == "gpu_memcpy" || cat == "gpu_memset") {
                gpuFirst = std::min(gpuFirst, ts);
                gpuLast = std::max(gpuLast, end);
            }
        }
        const double outsideMs = ((last - first) - (gpuLast - gpuFirst)) / 1000.0;
        QVERIFY(outsideMs > 5.0);
        auto loaded = core::loadTrace(path.toStdString());
        QVERIFY(loaded);
        views::GpuTimePanel panel;
        QSignalSpy done(&panel, &views::GpuTimePanel::computed);
        panel.setAnalyses(std::make_shared<core::analysis::AnalysisCache>(loaded.value()));
        QTRY_VERIFY_WITH_TIMEOUT(done.count() == 1, 60000);
        const QString status = panel.statusText();
        const QRegularExpression number(QStringLiteral("no work for another ([0-9.]+) ms"));
        const auto match = number.match(status);
        QVERIFY2(match.hasMatch(), qPrintable(status));
        QVERIFY2(std::abs(match.captured(1).toDouble() - outsideMs) < 0.01,
                 qPrintable(QString("%1 vs %2").arg(match.captured(1)).arg(outsideMs)));
    }

    void notForOtherProfiles()
    {
        auto trace = testsupport::loadText("{\"traceEvents\": [{\"ph\": \"X\", \"name\": \"a\", "
                                           "\"pid\": 1, \"tid\": 1, \"ts\": 0, \"dur\": 5}]}");
        QVERIFY(trace);
        // A plain Chrome trace (no Kineto markers) is not a PyTorch profile.
        const QString why = views::GpuTimePanel::notApplicableReason(*trace);
        if (!why.isEmpty())
            QVERIFY(why.contains("PyTorch"));
        views::GpuTimePanel panel;
        panel.setAnalyses(nullptr);
        QCOMPARE(panel.statusText(), QStringLiteral("No trace loaded."));
    }

    // The critical path of the hand-worked trace (530 us: criticalpathtraces.h), then a what-if
    // typed in by the user: gemm 5x faster takes its 455 us to 91, and the path to 166 us.
    void criticalPathAndWhatIf()
    {
        const QByteArray json = testsupport::handCriticalPathTrace(true);
        auto loaded = core::readChromeJsonBytes("hand.json", json.constData(), size_t(json.size()),
                                                nullptr, {});
        QVERIFY(loaded);
        views::TimelineState state;
        views::GpuTimePanel panel;
        panel.setTimelineState(&state);
        panel.resize(1200, 900);
        panel.show();
        QSignalSpy activated(&panel, &views::GpuTimePanel::sliceActivated);
        views::CriticalPathView *view = panel.criticalPathView();
        QSignalSpy computed(view, &views::CriticalPathView::computed);
        panel.setAnalyses(std::make_shared<core::analysis::AnalysisCache>(loaded.value()));
        QTRY_VERIFY_WITH_TIMEOUT(computed.count() == 1, 30000);
        QTabBar *tabs = panel.tabs()->tabBar();
        QCOMPARE(tabs->tabText(1), QString("Critical path"));
        QTest::mouseClick(tabs, Qt::LeftButton, {}, tabs->tabRect(1).center());
        QVERIFY(view->isVisible());
        QVERIFY2(view->summaryText().contains("critical path is 0.530 ms"),
                 qPrintable(view->summaryText()));
        QVERIFY(view->summaryText().contains("CPU 2.8 %"));   // 15 of 530 us
        QVERIFY(view->summaryText().contains("GPU 92.5 %"));  // 490 of 530 us
        QCOMPARE(view->windowBox()->currentText(), QString("Whole trace"));
        views::AnalysisTableModel *segments = view->segmentModel();
        QCOMPARE(segments->rowCount(), 6);
        QCOMPARE(segments->value(0, 2).toString(), QString("aten::mm"));
        QCOMPARE(segments->value(2, 2).toString(), QString("gemm"));
        QCOMPARE(segments->value(2, 4).toDouble(), 455.0);
        // Each event's own time on the path: gemm 455 of 530 us, 85.85 %.
        views::AnalysisTableModel *byEvent = view->byEventModel();
        QCOMPARE(byEvent->rowCount(), 4); // aten::mm, gemm, aten::add, add_kernel
        for (int row = 0; row < byEvent->rowCount(); ++row) {
            if (byEvent->value(row, 0).toString() == "gemm") {
                QCOMPARE(byEvent->value(row, 2).toDouble(), 455.0);
                QVERIFY(std::abs(byEvent->value(row, 3).toDouble() - 100.0 * 455 / 530) < 1e-9);
                QCOMPARE(byEvent->value(row, 1).toString(), QString("GPU"));
            }
        }
        // The what-if list offers the path's own events, the longest first.
        QCOMPARE(view->speedUpName()->itemText(0), QString("gemm"));

        // Typed, not picked: the user enters the kernel's name and the factor.
        view->speedUpName()->lineEdit()->clear();
        QTest::keyClicks(view->speedUpName()->lineEdit(), "gemm");
        view->speedUpFactor()->clear();
        QTest::keyClicks(view->speedUpFactor(), "5");
        QTest::keyClick(view->speedUpFactor(), Qt::Key_Tab);
        QCOMPARE(view->speedUpFactor()->value(), 5.0);
        QSignalSpy whatIf(view, &views::CriticalPathView::whatIfComputed);
        QTest::mouseClick(view->whatIfButton(), Qt::LeftButton);
        QTRY_VERIFY_WITH_TIMEOUT(whatIf.count() == 1, 30000);
        QVERIFY2(view->whatIfText().contains("0.166 ms instead of 0.530 ms"),
                 qPrintable(view->whatIfText()));

        // An operator that runs while the GPU works is off the path: no change.
        view->speedUpName()->setCurrentText("aten::empty");
        QTest::mouseClick(view->whatIfButton(), Qt::LeftButton);
        QTRY_VERIFY_WITH_TIMEOUT(whatIf.count() == 2, 30000);
        QVERIFY2(view->whatIfText().contains("0.530 ms instead of 0.530 ms"),
                 qPrintable(view->whatIfText()));

        // On the timeline: the seven events the path passes through (aten::mm, its launch, gemm,
        // the sync call, aten::add, its launch, add_kernel) and its three hops between tracks.
        QSignalSpy scrolled(&panel, &views::GpuTimePanel::scrollRequested);
        QTest::mouseClick(view->showButton(), Qt::LeftButton);
        QCOMPARE(scrolled.count(), 1); // to the path's first event, aten::mm
        QCOMPARE(QString::fromStdString(std::string(
                     loaded.value()->name(scrolled.takeFirst().at(0).value<core::SliceRef>()))),
                 QString("aten::mm"));
        const views::TimelineState::Highlights &h = state.highlights();
        QVERIFY(h.refs);
        QCOMPARE(h.refs->size(), size_t(7));
        QVERIFY(h.links);
        QCOMPARE(h.links->size(), size_t(3));
        QVERIFY(h.label.startsWith("critical path"));

        // The range the timeline shows, as the window: zoomed to aten::add, its path is
        // 5 + 10 + 35 us.
        const core::SliceRef add = view->path()->segments[3].ref;
        QCOMPARE(QString::fromStdString(std::string(loaded.value()->name(add))), QString("aten::add"));
        const core::TimePs addStart = loaded.value()->start(add);
        state.setWindow(addStart - 5'000'000, addStart + 90'000'000);
        QComboBox *window = view->windowBox();
        QCOMPARE(window->itemText(window->count() - 1), QString("Visible range on the timeline"));
        window->setFocus();
        QTest::keyClick(window, Qt::Key_End); // the last entry, as a user picks it
        QTRY_VERIFY_WITH_TIMEOUT(computed.count() == 2, 30000);
        QVERIFY2(view->summaryText().contains("critical path is 0.050 ms"),
                 qPrintable(view->summaryText()));
        QCOMPARE(state.highlights().refs->size(), size_t(7)); // the outline stays until asked
        QTest::keyClick(window, Qt::Key_Home);
        QTRY_VERIFY_WITH_TIMEOUT(computed.count() == 3, 30000);
        QVERIFY(view->summaryText().contains("critical path is 0.530 ms"));

        // A segment row shows its event on the timeline.
        QTableView *table = view->segmentView();
        QCOMPARE(table->model()->index(0, 2).data().toString(), QString("aten::mm")); // path order
        const QModelIndex cell = table->model()->index(2, 2);
        QCOMPARE(cell.data().toString(), QString("gemm"));
        QTest::mouseClick(table->viewport(), Qt::LeftButton, {}, table->visualRect(cell).center());
        QCOMPARE(activated.count(), 1);
        const auto ref = activated.takeFirst().at(0).value<core::SliceRef>();
        QCOMPARE(QString::fromStdString(std::string(loaded.value()->name(ref))), QString("gemm"));
    }
};

QTEST_MAIN(TstGpuTimePanel)
#include "tst_gputimepanel.moc"
