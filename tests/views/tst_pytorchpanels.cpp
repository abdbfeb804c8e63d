// The analysis panels on PyTorch profiler (Kineto) traces: fed an AnalysisCache, each panel
// shows its PyTorch page and computes it off the GUI thread. A small Kineto trace written here
// pins the numbers worked out by hand (steps, breakdown, groupings, kernels, memory peak, the
// slices an operator outlines); the real resnet50 fixture is checked against counts read from its
// raw JSON (distinct host ProfilerStep#N, Kernel events). Panels without a PyTorch meaning show
// one line and no chart. Set TRACEDESK_SHOTS=<dir> to save a screenshot of each panel.

#include "../core/support/kinetofixtures.h"

#include "core/analysis/pytorch/pytorchmemory.h"
#include "core/analysis/pytorch/pytorchsteps.h"
#include "core/io/chromejsonreader.h"
#include "views/panels/inputpipeline/inputpipelinepanel.h"
#include "views/panels/kernelstats/kernelstatspanel.h"
#include "views/panels/memoryprofile/memoryprofilepanel.h"
#include "views/panels/memoryviewer/memoryviewerpanel.h"
#include "views/panels/opprofile/opprofilepanel.h"
#include "views/panels/opstats/frameworkopstatspanel.h"
#include "views/panels/opstats/piechartview.h"
#include "views/panels/opstats/tablecsv.h"
#include "views/panels/overview/overviewpanel.h"
#include "views/panels/overview/steptimechart.h"
#include "views/panels/podviewer/podviewerpanel.h"
#include "views/panels/pytorch/frameworkpages.h"
#include "views/panels/pytorch/pytorchkernelmodel.h"
#include "views/panels/pytorch/pytorchkernelview.h"
#include "views/panels/pytorch/pytorchmemoryeventmodel.h"
#include "views/panels/pytorch/pytorchmemoryview.h"
#include "views/panels/pytorch/pytorchoperatormodel.h"
#include "views/panels/pytorch/pytorchoperatorview.h"
#include "views/panels/pytorch/pytorchoplinks.h"
#include "views/panels/pytorch/pytorchoverviewview.h"
#include "views/panels/pytorch/pytorchstepmodel.h"
#include "views/panels/tfdata/tfdatapanel.h"

#include <QAbstractItemModelTester>
#include <QChart>
#include <QChartView>
#include <QComboBox>
#include <QSignalSpy>
#include <QSortFilterProxyModel>
#include <QTableView>
#include <QtTest>

#include <set>

using namespace tracedesk;
using namespace tracedesk::core::analysis;
using namespace tracedesk::views;

namespace {

const QString kResnet =
    QStringLiteral("kineto__resnet50_num_workers_0__worker0.1623143089861.pt.trace.json.gz");
const QString kBert =
    QStringLiteral("tracelens__h100__gaunernst_bert-small-uncased__1016001.json.gz");
const QString kCpuOnly =
    QStringLiteral("hta__cpu_only__rank-34.Jul_15_10_52_41.1074.pt.trace.json.gz");

// The shared real Chrome JSON folder: <fixtures>/real/chrome_json, or <fixtures>/chrome_json when
// the configured fixtures path already ends in real/.
QString chromeJsonDir()
{
    for (const QString &dir : {testsupport::realChromeJsonDir(),
                               QStringLiteral(TRACEDESK_SHARED_FIXTURES) + "/chrome_json/"}) {
        if (QFile::exists(dir + kResnet))
            return dir;
    }
    return {};
}

// One Kineto event; `args` is the inside of the args object.
QString x(const char *cat, const char *name, int pid, int tid, double ts, double dur,
          const QString &args = {})
{
    return QStringLiteral(R"({"ph":"X","cat":"%1","name":"%2","pid":%3,"tid":%4,)"
                          R"("ts":%5,"dur":%6,"args":{%7}},)")
        .arg(cat, name)
        .arg(pid)
        .arg(tid)
        .arg(ts, 0, 'f', 3)
        .arg(dur, 0, 'f', 3)
        .arg(args);
}

// An operator with External id `ext` launching one kernel (correlation `corr`).
QString opWithKernel(const char *op, const char *dims, double ts, double dur, int ext, int corr,
                     const char *kernel, double kts, double kdur)
{
    return x("cpu_op", op, 1, 1, ts, dur,
             QStringLiteral(R"("External id":%1,"Input Dims":%2)").arg(ext).arg(dims))
           + x("cuda_runtime", "cudaLaunchKernel", 1, 1, ts + 10, 5,
               QStringLiteral(R"("correlation":%1,"External id":%2)").arg(corr).arg(ext))
           + x("kernel", kernel, 0, 7, kts, kdur,
               QStringLiteral(R"("device":0,"stream":7,"correlation":%1,"External id":%2,)"
                              R"("blocks per SM":0.5,"est. achieved occupancy %":40)")
                   .arg(corr).arg(ext));
}

QString memory(double ts, qint64 bytes, qint64 allocated, qint64 reserved, int addr)
{
    return QStringLiteral(
               R"({"ph":"i","s":"t","cat":"cpu_instant_event","name":"[memory]","pid":1,)"
               R"("tid":1,"ts":%1,"args":{"Device Type":1,"Device Id":0,"Bytes":%2,)"
               R"("Total Allocated":%3,"Total Reserved":%4,"Addr":%5}},)")
        .arg(ts, 0, 'f', 3)
        .arg(bytes)
        .arg(allocated)
        .arg(reserved)
        .arg(addr);
}

constexpr qint64 kMiB = 1024 * 1024;

// Two 100 µs steps on one thread. Step 1: aten::mm [110,150) launches gemm [130,160), aten::relu
// [160,180) launches relu [172,180); step 2 the same ops with other shapes, kernels [230,260)
// and [272,290). GPU0 memory: +1 MiB at 115 (addr 1), +2 MiB at 215 (addr 2), -1 MiB at 240.
QByteArray tinyTrace()
{
    QString e;
    e += x("user_annotation", "ProfilerStep#1", 1, 1, 100, 100);
    e += x("user_annotation", "ProfilerStep#2", 1, 1, 200, 100);
    e += opWithKernel("aten::mm", "[[2,2],[2,2]]", 110, 40, 10, 1, "gemm_s1688", 130, 30);
    e += opWithKernel("aten::relu", "[[2,2]]", 160, 20, 11, 2, "relu_kernel", 172, 8);
    e += opWithKernel("aten::mm", "[[4,4],[4,4]]", 210, 40, 12, 3, "gemm_s1688", 230, 30);
    e += opWithKernel("aten::relu", "[[4,4]]", 260, 20, 13, 4, "relu_kernel", 272, 18);
    e += memory(115, kMiB, kMiB, 2 * kMiB, 1);
    e += memory(215, 2 * kMiB, 3 * kMiB, 4 * kMiB, 2);
    e += memory(240, -kMiB, 2 * kMiB, 4 * kMiB, 1);
    e.chop(1);
    return (QStringLiteral(R"({"schemaVersion":1,"deviceProperties":[{"id":0,"name":"Tiny GPU",)"
                           R"("totalGlobalMem":17179869184,"computeMajor":8,"computeMinor":0,)"
                           R"("numSms":80}],"traceEvents":[)")
            + e + "]}")
        .toUtf8();
}

AnalysisCachePtr loadBytes(const QString &name, const QByteArray &bytes)
{
    auto r = core::readChromeJsonBytes(name.toStdString(), bytes.constData(), size_t(bytes.size()),
                                       nullptr, core::LoadOptions{});
    if (!r) {
        qWarning("%s", r.message().c_str());
        return nullptr;
    }
    return std::make_shared<AnalysisCache>(r.value());
}

template<typename W>
bool waitComputed(W &w)
{
    if (!w.isComputing())
        return true;
    QSignalSpy spy(&w, &W::computed);
    return spy.wait(120000) || !w.isComputing();
}

void shoot(QWidget *w, const QString &name)
{
    const QString dir = qEnvironmentVariable("TRACEDESK_SHOTS");
    if (dir.isEmpty())
        return;
    QTest::qWait(200);   // let pending layouts run before grabbing
    w->grab().save(dir + QLatin1Char('/') + name);
}

// The source rows of a proxy, in view order.
QStringList column(const QAbstractItemModel &model, int c, int role = Qt::DisplayRole)
{
    QStringList out;
    for (int r = 0; r < model.rowCount(); ++r)
        out << model.index(r, c).data(role).toString();
    return out;
}

bool anyVisibleChart(QWidget *panel)
{
    for (QChartView *v : panel->findChildren<QChartView *>()) {
        if (v->isVisible())
            return true;
    }
    return false;
}

} // namespace

class TestPyTorchPanels : public QObject
{
    Q_OBJECT

private slots:
    void initTestCase();
    void tinyOverview();
    void tinyOperators();
    void tinyKernels();
    void tinyMemory();
    void tinyOpOccurrences();
    void notApplicablePanels();
    void realOverview_data() { realData(); }
    void realOverview();
    void realOperators_data() { realData(); }
    void realOperators();
    void realKernels_data() { realData(); }
    void realKernels();
    void realMemory_data() { realData(); }
    void realMemory();
    void classicTraceKeepsClassicPage();

private:
    AnalysisCachePtr m_tiny;
    // A real fixture loaded by the reader, and its raw events for the independent counts.
    struct Real
    {
        AnalysisCachePtr cache;
        QJsonObject top;       // the file's top-level object
        QJsonArray events;
    };
    void realData();
    std::map<QString, Real> m_reals;
};

void TestPyTorchPanels::initTestCase()
{
    m_tiny = loadBytes(QStringLiteral("tiny.pt.trace.json"), tinyTrace());
    QVERIFY(m_tiny);
    QVERIFY(isPyTorchTrace(m_tiny));
    const QString dir = chromeJsonDir();
    if (dir.isEmpty())
        return;   // the real-fixture tests skip themselves
    for (const QString &file : {kResnet, kBert, kCpuOnly}) {
        const QByteArray raw = testsupport::readMaybeGzip(dir + file);
        QVERIFY(!raw.isEmpty());
        Real real;
        real.top = QJsonDocument::fromJson(raw).object();
        real.events = real.top.value("traceEvents").toArray();
        QVERIFY(!real.events.isEmpty());
        real.cache = loadBytes(file, raw);
        QVERIFY(real.cache);
        QVERIFY(isPyTorchTrace(real.cache));
        m_reals[file] = std::move(real);
    }
}

void TestPyTorchPanels::tinyOverview()
{
    OverviewPanel panel;
    panel.resize(1400, 1400);
    panel.show();
    panel.setAnalyses(m_tiny);
    PyTorchOverviewView *view = panel.pytorchView();
    QVERIFY(view->isVisible());
    QTRY_VERIFY_WITH_TIMEOUT(!view->isComputing(), 60000);
    PyTorchStepModel *model = view->stepModel();
    QAbstractItemModelTester tester(model, QAbstractItemModelTester::FailureReportingMode::QtTest);
    QCOMPARE(model->stepCount(), 2);
    QCOMPARE(model->rowCount(), 3);   // two steps and the average
    QCOMPARE(view->stepChart()->stepCount(), 2);

    // Step 1 = [100, 200] µs holds the kernels [130,160) and [172,180): 38 µs of Kernel time.
    const int kernelMs = 2;   // columns: Step, Total, Kernel (ms), Kernel (%), ...
    QCOMPARE(model->headerData(kernelMs, Qt::Horizontal, Qt::DisplayRole).toString(),
             QStringLiteral("Kernel (ms)"));
    QCOMPARE(model->index(0, 1).data().toString(), QStringLiteral("0.100"));
    QCOMPARE(model->index(0, kernelMs).data().toString(), QStringLiteral("0.038"));
    QCOMPARE(model->index(0, kernelMs + 1).data().toString(), QStringLiteral("38.00"));
    // The categories add up to the step, on every row including the average.
    for (int r = 0; r < model->rowCount(); ++r) {
        double sum = 0;
        for (int c = 2; c < model->columnCount(); c += 2)
            sum += model->index(r, c).data(PyTorchStepModel::kSortRole).toDouble();
        QVERIFY2(qAbs(sum - model->index(r, 1).data(PyTorchStepModel::kSortRole).toDouble()) < 1e-9,
                 qPrintable(QString::number(r)));
    }
    QCOMPARE(model->index(2, 0).data().toString(), QStringLiteral("Average"));
    // The average row stays last whichever way the table is sorted.
    for (Qt::SortOrder order : {Qt::AscendingOrder, Qt::DescendingOrder}) {
        view->stepTable()->sortByColumn(1, order);
        const QAbstractItemModel *proxy = view->stepTable()->model();
        QCOMPARE(proxy->index(2, 0).data().toString(), QStringLiteral("Average"));
    }
    QVERIFY(view->gpuText().contains(QStringLiteral("Tiny GPU")));
    QVERIFY(view->gpuText().contains(QStringLiteral("16.00 GB")));
    QVERIFY(view->gpuText().contains(QStringLiteral("8.0")));
    QVERIFY(view->environmentText().contains(QStringLiteral("Device type: GPU")));
    QVERIFY(!view->recommendationText().isEmpty());
    QVERIFY(!view->recommendationText().contains(QStringLiteral("TensorFlow")));
    QVERIFY(!view->recommendationText().contains(QStringLiteral("tf.data")));

    // A click on a step of the table shows it on the timeline.
    QSignalSpy time(&panel, &OverviewPanel::timeActivated);
    QTableView *table = view->stepTable();
    const QModelIndex second = table->model()->index(1, 0);
    QTest::mouseClick(table->viewport(), Qt::LeftButton, {}, table->visualRect(second).center());
    QTRY_COMPARE(time.count(), 1);
    const auto steps = core::analysis::pytorch::pytorchSteps(*m_tiny);
    QCOMPARE(time.at(0).at(0).value<core::TimePs>(), steps->steps[1].start);
}

void TestPyTorchPanels::tinyOperators()
{
    FrameworkOpStatsPanel panel;
    panel.resize(1400, 900);
    panel.show();
    QVERIFY(QTest::qWaitForWindowExposed(&panel));
    panel.setAnalyses(m_tiny);
    PyTorchOperatorView *view = panel.pytorchView();
    QTRY_VERIFY_WITH_TIMEOUT(!view->isComputing(), 60000);
    PyTorchOperatorModel *model = view->model();
    QAbstractItemModelTester tester(model, QAbstractItemModelTester::FailureReportingMode::QtTest);
    // By name: aten::mm (60 µs of kernels) above aten::relu (26 µs).
    QCOMPARE(model->rowCount(), 2);
    const QStringList names = column(*view->proxyModel(), 0);
    QCOMPARE(names, QStringList({"aten::mm", "aten::relu"}));
    const int deviceSelf = model->columnOf(PyTorchOperatorModel::DeviceSelfUs);
    QVERIFY(deviceSelf > 0);
    QCOMPARE(view->proxyModel()->index(0, deviceSelf).data().toString(), QStringLiteral("60.000"));
    QCOMPARE(view->proxyModel()->index(1, deviceSelf).data().toString(), QStringLiteral("26.000"));
    const int calls = model->columnOf(PyTorchOperatorModel::Calls);
    QCOMPARE(view->proxyModel()->index(0, calls).data().toString(), QStringLiteral("2"));
    const int eligible = model->columnOf(PyTorchOperatorModel::TensorCoreEligible);
    QCOMPARE(view->proxyModel()->index(0, eligible).data().toString(), QStringLiteral("Yes"));
    QCOMPARE(view->proxyModel()->index(1, eligible).data().toString(), QStringLiteral("No"));
    QCOMPARE(view->pie()->sliceCount(), 2);

    // By name and input shapes: four groups; no call stacks recorded, so no such grouping.
    QCOMPARE(view->groupCombo()->count(), 2);
    view->groupCombo()->setCurrentIndex(1);
    QCOMPARE(model->rowCount(), 4);
    QVERIFY(model->columnOf(PyTorchOperatorModel::InputShapes) == 1);
    QVERIFY(
        tableToCsv(*view->proxyModel()).startsWith(QStringLiteral("Operator,Input shapes,Calls")));
    view->groupCombo()->setCurrentIndex(0);
    QCOMPARE(model->rowCount(), 2);

    // A click on a row names its operator.
    QSignalSpy spy(&panel, &FrameworkOpStatsPanel::opActivated);
    QTableView *table = view->tableView();
    const QModelIndex relu = table->model()->index(1, 0);
    QTest::mouseClick(table->viewport(), Qt::LeftButton, {}, table->visualRect(relu).center());
    QTRY_COMPARE(spy.count(), 1);
    QCOMPARE(spy.at(0).at(0).toString(), QStringLiteral("aten::relu"));
}

void TestPyTorchPanels::tinyKernels()
{
    KernelStatsPanel panel;
    panel.resize(1400, 600);
    panel.show();
    panel.setAnalyses(m_tiny);
    PyTorchKernelView *view = panel.pytorchView();
    QTRY_VERIFY_WITH_TIMEOUT(!view->isComputing(), 60000);
    PyTorchKernelModel *model = view->model();
    QAbstractItemModelTester tester(model, QAbstractItemModelTester::FailureReportingMode::QtTest);
    QVERIFY(!view->showsEmptyMessage());
    QCOMPARE(model->rowCount(), 2);
    const QAbstractItemModel *proxy = view->proxyModel();
    QCOMPARE(proxy->index(0, 0).data().toString(), QStringLiteral("gemm_s1688"));
    const auto cell = [&](int row, PyTorchKernelModel::Column c) {
        return proxy->index(row, model->columnOf(c)).data().toString();
    };
    QCOMPARE(cell(0, PyTorchKernelModel::TensorCoresUsed), QStringLiteral("Yes"));   // "s1688"
    QCOMPARE(cell(0, PyTorchKernelModel::Calls), QStringLiteral("2"));
    QCOMPARE(cell(0, PyTorchKernelModel::TotalUs), QStringLiteral("60.000"));
    QCOMPARE(cell(1, PyTorchKernelModel::TensorCoresUsed), QStringLiteral("No"));
    QCOMPARE(cell(1, PyTorchKernelModel::TotalUs), QStringLiteral("26.000"));
    QCOMPARE(cell(1, PyTorchKernelModel::MeanUs), QStringLiteral("13.000"));
    QCOMPARE(cell(1, PyTorchKernelModel::MaxUs), QStringLiteral("18.000"));
    QCOMPARE(cell(1, PyTorchKernelModel::MinUs), QStringLiteral("8.000"));
    QCOMPARE(cell(1, PyTorchKernelModel::MeanBlocksPerSm), QStringLiteral("0.50"));
    QCOMPARE(cell(1, PyTorchKernelModel::MeanOccupancy), QStringLiteral("40.00"));
    QCOMPARE(cell(1, PyTorchKernelModel::Operator), QStringLiteral("aten::relu"));

    QSignalSpy spy(&panel, &KernelStatsPanel::opActivated);
    QTableView *table = view->tableView();
    const QModelIndex relu = table->model()->index(1, 0);
    QTest::mouseClick(table->viewport(), Qt::LeftButton, {}, table->visualRect(relu).center());
    QTRY_COMPARE(spy.count(), 1);
    QCOMPARE(spy.at(0).at(0).toString(), QStringLiteral("relu_kernel"));
}

void TestPyTorchPanels::tinyMemory()
{
    MemoryProfilePanel panel;
    panel.resize(1400, 900);
    panel.show();
    panel.setAnalyses(m_tiny);
    PyTorchMemoryView *view = panel.pytorchView();
    QTRY_VERIFY_WITH_TIMEOUT(!view->isComputing(), 60000);
    QVERIFY(!view->showsEmptyMessage());
    QCOMPARE(view->deviceCombo()->currentText(), QStringLiteral("GPU0"));
    // The peak is the record 15 µs into step 2; times count from the trace's start, the
    // timeline's 0.
    const auto steps = core::analysis::pytorch::pytorchSteps(*m_tiny);
    QCOMPARE(steps->steps.size(), size_t(2));
    const double peakMs =
        double(steps->steps[1].hostStart + 15000000 - m_tiny->trace().begin) / 1e9;
    QVERIFY2(view->peakText().contains(
                 QStringLiteral("Peak allocated 3.00 MB at %1 ms").arg(peakMs, 0, 'f', 3)),
             qPrintable(view->peakText()));
    QVERIFY(view->peakText().contains(QStringLiteral("peak reserved 4.00 MB")));
    // Allocated and reserved lines plus their two labelled peaks.
    QCOMPARE(view->chart()->series().size(), 4);
    QAbstractItemModelTester tester(view->model(),
                                    QAbstractItemModelTester::FailureReportingMode::QtTest);
    // The 1 MiB block freed at 240 µs, and the 2 MiB one never freed.
    QCOMPARE(view->model()->rowCount(), 2);
    QSet<QString> sizes;
    for (int r = 0; r < 2; ++r)
        sizes << view->model()->index(r, PyTorchMemoryEventModel::SizeKb).data().toString();
    QCOMPARE(sizes, QSet<QString>({"1024.00", "2048.00"}));

    // Step lines: the value holds until the next record.
    std::vector<core::analysis::pytorch::MemoryPoint> curve = {
        {1000000000, 10 * kMiB, 0}, {2000000000, 30 * kMiB, 0}};
    const QList<QPointF> step = PyTorchMemoryView::stepPoints(curve, false, 100);
    QCOMPARE(step, QList<QPointF>({{1, 10}, {2, 10}, {2, 30}}));
    // Thinning keeps the peak of every bucket.
    curve.clear();
    for (int i = 0; i < 100000; ++i)
        curve.push_back({core::TimePs(i) * 1000, (i == 77777 ? 500 : i % 7) * kMiB, 0});
    const QList<QPointF> thin = PyTorchMemoryView::stepPoints(curve, false, 100);
    QVERIFY(thin.size() < 1000);
    double top = 0;
    for (const QPointF &p : thin)
        top = std::max(top, p.y());
    QCOMPARE(top, 500.0);
}

void TestPyTorchPanels::tinyOpOccurrences()
{
    // aten::mm: its two CPU slices and the two gemm kernels it launched.
    const OpOccurrences mm = pytorchOpOccurrences(*m_tiny, "aten::mm", 1000);
    QCOMPARE(mm.refs.size(), size_t(4));
    QCOMPARE(mm.launched, uint64_t(2));
    QCOMPARE(mm.total, uint64_t(4));
    std::multiset<std::string> names;
    for (const core::SliceRef &r : mm.refs)
        names.insert(std::string(m_tiny->trace().name(r)));
    QCOMPARE(names,
             std::multiset<std::string>({"aten::mm", "aten::mm", "gemm_s1688", "gemm_s1688"}));
    for (size_t i = 1; i < mm.refs.size(); ++i)
        QVERIFY(m_tiny->trace().start(mm.refs[i - 1]) <= m_tiny->trace().start(mm.refs[i]));
    // A kernel name finds its launches once each.
    const OpOccurrences k = pytorchOpOccurrences(*m_tiny, "relu_kernel", 1000);
    QCOMPARE(k.refs.size(), size_t(2));
    QCOMPARE(k.launched, uint64_t(0));
    // The cap holds.
    QCOMPARE(pytorchOpOccurrences(*m_tiny, "aten::mm", 3).refs.size(), size_t(3));

    // The linker hands the same slices over from its worker.
    PyTorchOpLinker linker;
    QSignalSpy spy(&linker, &PyTorchOpLinker::found);
    linker.show(m_tiny, QStringLiteral("aten::mm"), 1000);
    QVERIFY(spy.wait(60000));
    const auto h = spy.at(0).at(0).value<TimelineState::Highlights>();
    QCOMPARE(h.label, QStringLiteral("aten::mm"));
    QCOMPARE(h.refs->size(), size_t(4));
}

void TestPyTorchPanels::notApplicablePanels()
{
    OpProfilePanel opProfile;
    MemoryViewerPanel memoryViewer;
    PodViewerPanel podViewer;
    TfDataPanel tfData;
    InputPipelinePanel inputPipeline;
    const std::vector<std::pair<QWidget *, NotApplicableView *>> panels = {
        {&opProfile, opProfile.pytorchView()}, {&memoryViewer, memoryViewer.pytorchView()},
        {&podViewer, podViewer.pytorchView()}, {&tfData, tfData.pytorchView()},
        {&inputPipeline, inputPipeline.pytorchView()}};
    opProfile.setAnalyses(m_tiny);
    memoryViewer.setAnalyses(m_tiny);
    podViewer.setAnalyses(m_tiny);
    tfData.setAnalyses(m_tiny);
    inputPipeline.setAnalyses(m_tiny);
    int i = 0;
    for (const auto &[panel, view] : panels) {
        panel->resize(1200, 500);
        panel->show();
        QVERIFY(QTest::qWaitForWindowExposed(panel));
        const QString reason = view->reasonText();
        QVERIFY(view->isVisible());
        QVERIFY(reason.contains(QStringLiteral("PyTorch profile")));
        QVERIFY(reason.contains(QStringLiteral(" see ")));
        QVERIFY(!reason.contains(QLatin1Char('\n')));
        QVERIFY2(!anyVisibleChart(panel), qPrintable(reason));
        shoot(panel, QStringLiteral("pytorch_notapplicable_%1.png").arg(i++));
    }
    QVERIFY(opProfile.pytorchView()->reasonText().startsWith(
        QStringLiteral("Op Profile shows XLA/HLO ops")));
}

void TestPyTorchPanels::realData()
{
    QTest::addColumn<QString>("file");
    QTest::addColumn<QString>("tag");
    QTest::newRow("resnet50") << kResnet << QStringLiteral("resnet50");
    QTest::newRow("bert-h100") << kBert << QStringLiteral("bert");
    QTest::newRow("cpu-only") << kCpuOnly << QStringLiteral("cpuonly");
}

void TestPyTorchPanels::realOverview()
{
    QFETCH(QString, file);
    QFETCH(QString, tag);
    if (!m_reals.count(file))
        QSKIP("the real Kineto fixtures (real/chrome_json/) are not available");
    const AnalysisCachePtr &cache = m_reals[file].cache;
    const QJsonArray &events = m_reals[file].events;
    // Distinct host ProfilerStep#N ranges, counted from the raw JSON.
    QSet<QString> hostSteps;
    for (const QJsonValue &v : events) {
        const QJsonObject e = v.toObject();
        const QString cat = e.value("cat").toString().toLower();
        const QString name = e.value("name").toString();
        if (e.value("ph").toString() == "X" && name.startsWith(QStringLiteral("ProfilerStep#"))
            && (cat == "cpu_op" || cat == "operator" || cat == "user_annotation"))
            hostSteps.insert(name);
    }
    QVERIFY(!hostSteps.isEmpty());

    OverviewPanel panel;
    panel.resize(1600, 1800);
    panel.show();
    panel.setAnalyses(cache);
    PyTorchOverviewView *view = panel.pytorchView();
    QVERIFY(waitComputed(*view));
    QTRY_VERIFY_WITH_TIMEOUT(!view->isComputing(), 120000);
    const auto steps = core::analysis::pytorch::pytorchSteps(*cache);
    QCOMPARE(int(steps->hostStepCount), int(hostSteps.size()));
    // Every host step is a row unless the tail rule dropped it (the status says so).
    QCOMPARE(view->stepModel()->stepCount() + int(steps->trimmedSteps), int(hostSteps.size()));
    if (steps->trimmedSteps > 0)
        QVERIFY(view->statusText().contains(QStringLiteral("left out")));
    QCOMPARE(view->stepChart()->stepCount(), view->stepModel()->stepCount());
    bool anyKernel = false;
    for (const QJsonValue &v : events)
        anyKernel = anyKernel || v.toObject().value("cat").toString().toLower() == "kernel";
    QVERIFY(view->gpuText().contains(anyKernel ? QStringLiteral("GPU utilization")
                                               : QStringLiteral("No GPU kernels")));
    QVERIFY(view->environmentText().contains(anyKernel ? QStringLiteral("Device type: GPU")
                                                       : QStringLiteral("Device type: CPU")));
    // The process group as the file states it.
    const QJsonObject dist = m_reals[file].top.value("distributedInfo").toObject();
    if (!dist.isEmpty())
        QVERIFY2(view->environmentText().contains(
                     QStringLiteral("rank %1 of world size %2")
                         .arg(dist.value("rank").toInteger())
                         .arg(dist.value("world_size").toInteger())),
                 qPrintable(view->environmentText()));
    QVERIFY(!view->summaryText().isEmpty());
    shoot(&panel, QStringLiteral("pytorch_overview_%1.png").arg(tag));
}

void TestPyTorchPanels::realOperators()
{
    QFETCH(QString, file);
    QFETCH(QString, tag);
    if (!m_reals.count(file))
        QSKIP("the real Kineto fixtures (real/chrome_json/) are not available");
    const AnalysisCachePtr &cache = m_reals[file].cache;
    FrameworkOpStatsPanel panel;
    panel.resize(1600, 1000);
    panel.show();
    QVERIFY(QTest::qWaitForWindowExposed(&panel));
    panel.setAnalyses(cache);
    PyTorchOperatorView *view = panel.pytorchView();
    QTRY_VERIFY_WITH_TIMEOUT(!view->isComputing(), 120000);
    const int byName = view->model()->rowCount();
    QVERIFY(byName > 0);
    const int columns = view->model()->columnCount();
    QVERIFY(view->pie()->sliceCount() > 0);
    QAbstractItemModelTester tester(view->model(),
                                    QAbstractItemModelTester::FailureReportingMode::QtTest);
    view->groupCombo()->setCurrentIndex(1);   // name + input shapes
    const int byShapes = view->model()->rowCount();
    QCOMPARE(view->model()->columnCount(), columns + 1);   // the input shapes column
    if (file != kCpuOnly)   // the same operator runs on several shapes
        QVERIFY2(byShapes > byName,
                 qPrintable(QStringLiteral("%1 vs %2").arg(byShapes).arg(byName)));
    view->groupCombo()->setCurrentIndex(0);
    QCOMPARE(view->model()->rowCount(), byName);
    shoot(&panel, QStringLiteral("pytorch_operators_%1.png").arg(tag));

    QSignalSpy spy(&panel, &FrameworkOpStatsPanel::opActivated);
    QTableView *table = view->tableView();
    const QModelIndex first = table->model()->index(0, 0);
    const QString name = first.data().toString();
    QTest::mouseClick(table->viewport(), Qt::LeftButton, {}, table->visualRect(first).center());
    QTRY_COMPARE(spy.count(), 1);
    QCOMPARE(spy.at(0).at(0).toString(), name);
}

void TestPyTorchPanels::realKernels()
{
    QFETCH(QString, file);
    QFETCH(QString, tag);
    if (!m_reals.count(file))
        QSKIP("the real Kineto fixtures (real/chrome_json/) are not available");
    const AnalysisCachePtr &cache = m_reals[file].cache;
    const QJsonArray &events = m_reals[file].events;
    qint64 rawKernels = 0;
    for (const QJsonValue &v : events) {
        const QJsonObject e = v.toObject();
        if (e.value("ph").toString() == "X" && e.value("cat").toString().toLower() == "kernel")
            ++rawKernels;
    }
    KernelStatsPanel panel;
    panel.resize(1600, 800);
    panel.show();
    panel.setAnalyses(cache);
    PyTorchKernelView *view = panel.pytorchView();
    QTRY_VERIFY_WITH_TIMEOUT(!view->isComputing(), 120000);
    const int calls = view->model()->columnOf(PyTorchKernelModel::Calls);
    qint64 sum = 0;
    for (int r = 0; r < view->model()->rowCount(); ++r)
        sum += view->model()->index(r, calls).data(PyTorchKernelModel::kSortRole).toLongLong();
    QCOMPARE(sum, rawKernels);
    QCOMPARE(view->showsEmptyMessage(), rawKernels == 0);
    shoot(&panel, QStringLiteral("pytorch_kernels_%1.png").arg(tag));
}

void TestPyTorchPanels::realMemory()
{
    QFETCH(QString, file);
    QFETCH(QString, tag);
    if (!m_reals.count(file))
        QSKIP("the real Kineto fixtures (real/chrome_json/) are not available");
    const AnalysisCachePtr &cache = m_reals[file].cache;
    const QJsonArray &events = m_reals[file].events;
    qint64 records = 0, withTotals = 0;
    for (const QJsonValue &v : events) {
        const QJsonObject e = v.toObject();
        if (e.value("name").toString() == QStringLiteral("[memory]")) {
            ++records;
            withTotals += e.value("args").toObject().contains("Total Allocated") ? 1 : 0;
        }
    }
    MemoryProfilePanel panel;
    panel.resize(1600, 900);
    panel.show();
    panel.setAnalyses(cache);
    PyTorchMemoryView *view = panel.pytorchView();
    QTRY_VERIFY_WITH_TIMEOUT(!view->isComputing(), 120000);
    const auto memory = core::analysis::pytorch::pytorchMemory(*cache);
    QCOMPARE(qint64(memory->recordCount), records);
    // Records without allocator totals (PyTorch before 1.10): one line instead of an empty chart.
    QCOMPARE(view->showsEmptyMessage(), withTotals == 0);
    if (withTotals == 0) {
        QVERIFY(!anyVisibleChart(&panel));
    } else {
        QCOMPARE(view->chart()->series().size(), 4);   // allocated, reserved, two peaks
        QVERIFY(view->peakText().startsWith(QStringLiteral("Peak allocated")));
    }
    shoot(&panel, QStringLiteral("pytorch_memory_%1.png").arg(tag));
}

void TestPyTorchPanels::classicTraceKeepsClassicPage()
{
    // A Chrome JSON trace that is not Kineto keeps every panel on its own page.
    const QByteArray json =
        R"({"traceEvents":[{"ph":"X","name":"work","pid":1,"tid":1,"ts":0,"dur":5}]})";
    AnalysisCachePtr plain = loadBytes(QStringLiteral("plain.json"), json);
    QVERIFY(plain);
    QVERIFY(!isPyTorchTrace(plain));
    OpProfilePanel panel;
    panel.show();
    panel.setAnalyses(m_tiny);
    QVERIFY(panel.pytorchView()->isVisible());
    panel.setAnalyses(plain);
    QVERIFY(!panel.pytorchView()->isVisible());
    panel.setAnalyses(nullptr);
    QVERIFY(!panel.pytorchView()->isVisible());
}

QTEST_MAIN(TestPyTorchPanels)
#include "tst_pytorchpanels.moc"
