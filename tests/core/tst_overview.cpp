// Overview page: on the real GPU file the step figures match the StepDb and the top ops are
// ordered and bounded; on the TPU inference file the program-latency percentiles match an
// independent reading of its XLA Modules lines.

#include "core/analysis/overview.h"
#include "core/io/traceloader.h"

#include "xplane.pb.h"

#include <QtTest>

#include <algorithm>
#include <cmath>
#include <fstream>

using namespace tracedesk::core;
using namespace tracedesk::core::analysis;

class TestOverview : public QObject
{
    Q_OBJECT

private slots:
    void gpuOverview();
    void tpuInferenceLatency();
};

void TestOverview::gpuOverview()
{
    const QString path = QStringLiteral(TRACEDESK_SHARED_FIXTURES)
                         + "/xspace/xprof_GPU-multi-worker/34.83.195.179_6003.xplane.pb";
    if (!QFile::exists(path))
        QSKIP("shared GPU fixture not found (shared/fixtures/real)");
    auto trace = loadTrace(path.toStdString());
    QVERIFY(trace);
    AnalysisCache cache(trace.value());
    auto page = overviewPage(cache);
    auto db = stepDb(cache);
    QCOMPARE(page->hardware, StepHardware::Gpu);
    QCOMPARE(page->stepCount, int(db->steps.size()));
    double sum = 0;
    for (const StepInfo &s : db->steps)
        sum += double(s.duration) / 1e9;
    QVERIFY(std::abs(page->averageStepTimeMs - sum / double(db->steps.size())) < 1e-9);
    double breakdown = 0;
    for (const auto &[label, ms] : page->averageBreakdownMs)
        breakdown += ms;
    QVERIFY(std::abs(breakdown - page->averageStepTimeMs) < 1e-9);
    QVERIFY(!page->topDeviceOps.empty());
    QVERIFY(page->topDeviceOps.size() <= 10);
    for (size_t i = 1; i < page->topDeviceOps.size(); ++i)
        QVERIFY(page->topDeviceOps[i - 1].selfTimePs >= page->topDeviceOps[i].selfTimePs);
    QVERIFY(page->topDeviceOps.back().cumulativeTimeFraction <= 1.0);
    // V100 planes: 8 /device:GPU: planes, Volta.
    QCOMPARE(page->runEnvironment.deviceCoreCount, 8);
    QVERIFY(QString::fromStdString(page->runEnvironment.deviceType).contains("Volta"));
    QVERIFY(std::abs(page->deviceCompute16bitPercent + page->deviceCompute32bitPercent - 100) < 1e-9);
    QCOMPARE(page->bottleneck, page->input->bottleneck.inputClassification);
    QVERIFY(!page->statement.empty());
    QVERIFY(!page->inferenceLatency.available);
}

void TestOverview::tpuInferenceLatency()
{
    const QString path = QStringLiteral(TRACEDESK_SHARED_FIXTURES)
                         + "/xspace/xprof_tpu_inference_2/tpu_inference_2.xplane.pb";
    if (!QFile::exists(path))
        QSKIP("shared TPU fixture not found (shared/fixtures/real)");
    tensorflow::profiler::XSpace space;
    std::ifstream in(path.toStdString(), std::ios::binary);
    QVERIFY(space.ParseFromIstream(&in));
    std::vector<int64_t> runs;
    for (const auto &p : space.planes()) {
        for (const auto &l : p.lines()) {
            if (l.name() != "XLA Modules" || l.events_size() <= int(runs.size()))
                continue;
            runs.clear();
            for (const auto &e : l.events())
                runs.push_back(e.duration_ps());
        }
    }
    QCOMPARE(runs.size(), size_t(105));
    std::sort(runs.begin(), runs.end());
    auto trace = loadTrace(path.toStdString());
    QVERIFY(trace);
    AnalysisCache cache(trace.value());
    auto page = overviewPage(cache);
    QCOMPARE(page->hardware, StepHardware::Tpu);
    QCOMPARE(page->stepCount, 0);
    QVERIFY(page->inferenceLatency.available);
    QCOMPARE(page->inferenceLatency.count, int64_t(105));
    // Nearest rank: p50 of 105 values is the 53rd.
    QCOMPARE(page->inferenceLatency.percentiles[0].first, 50.0);
    QCOMPARE(page->inferenceLatency.percentiles[0].second, double(runs[52]) / 1e9);
    QCOMPARE(page->inferenceLatency.percentiles[4].second, double(runs[103]) / 1e9);
    QVERIFY(!page->diagnostics.warnings.empty());
    QCOMPARE(page->diagnostics.warnings.front(), std::string(kNoStepMarkerMessage));
    QCOMPARE(page->runEnvironment.deviceCoreCount, 4);
}

QTEST_GUILESS_MAIN(TestOverview)
#include "tst_overview.moc"
