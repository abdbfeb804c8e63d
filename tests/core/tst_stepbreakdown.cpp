// Step-time breakdown: overlap priorities on a hand-built step, the summary statistics, and on
// the real GPU file the categories of every step adding up to its step time.

#include "core/analysis/eventgrouping.h"
#include "core/analysis/stepbreakdown.h"
#include "core/analysis/steps.h"
#include "core/analysis/tpubreakdown.h"
#include "core/generate/generator.h"
#include "core/io/traceloader.h"
#include "core/model/tracebuilder.h"

#include <QTemporaryDir>
#include <QtTest>

#include <cmath>

using namespace tracedesk::core;
using namespace tracedesk::core::analysis;

namespace {

// A host plane and a GPU plane with the Steps line XProf derives; every slice may carry a
// group (its step) and a correlation id (a launch and its kernel).
struct GroupedTrace
{
    TraceBuilder b;
    const uint32_t host = b.addPlane("/host:CPU", "h", 0, PlaneKind::Host);
    const uint32_t gpu = b.addPlane("/device:GPU:0", "h", 1, PlaneKind::Device);
    const uint32_t steps = b.addTrack(gpu, "Steps", int64_t(int32_t(0xdeadbeef)));

    uint32_t kind(const char *name)
    {
        EventKind k;
        k.name = b.intern(name);
        return b.addKind(k);
    }
    // group, corr < 0: none.
    void add(uint32_t track, TimePs s, TimePs d, uint32_t k, int64_t group, int64_t corr)
    {
        auto &tb = b.trackBuilder(track);
        const uint32_t i = tb.addSlice(s, d, k);
        if (group >= 0)
            tb.setSide(i, SideColumn::GroupId, group);
        if (corr >= 0)
            tb.setSide(i, SideColumn::CorrelationId, corr);
    }
};

} // namespace

class TestStepBreakdown : public QObject
{
    Q_OBJECT

private slots:
    void overlapPriorities();
    void batchesOfSteps();
    void stepsSweptOnEveryCoreKeepGroupOrder();
    void summaries();
    void gpuFixtureCategoriesSum();
    void tpuBreakdown();
};

void TestStepBreakdown::overlapPriorities()
{
    // Step [0, 1000). Device: compute 0-600 (fp16 by name), D2H 500-700 (16-bit compute outranks
    // it on 500-600). Host: launch 100-300 (under compute: compute wins), IteratorGetNext 650-900
    // (D2H outranks input on 650-700, input owns 700-900). Uncovered 900-1000 is unknown.
    GroupedTrace t;
    const uint32_t s1 = t.b.addTrack(t.gpu, "Stream #1(Kernel)", 1);
    const uint32_t s2 = t.b.addTrack(t.gpu, "Stream #2(MemcpyD2H)", 2);
    const uint32_t th = t.b.addTrack(t.host, "t", 3);
    t.add(t.steps, 0, 1000, t.kind("5"), 5, -1);
    t.add(s1, 0, 600, t.kind("gemm_fp16_kernel"), 5, 1);
    t.add(s2, 500, 200, t.kind("MemcpyD2H"), 5, 2);
    t.add(th, 100, 200, t.kind("cudaLaunchKernel"), 5, 3);
    t.add(th, 650, 250, t.kind("IteratorGetNext"), 5, -1);
    AnalysisCache cache(t.b.build());
    auto db = stepDb(cache);
    QCOMPARE(db->steps.size(), size_t(1));
    const StepInfo &s = db->steps[0];
    QCOMPARE(s.groupId, int64_t(5));
    QCOMPARE(s.type(EventType::DeviceCompute16), TimePs(600));
    QCOMPARE(s.type(EventType::DeviceToHost), TimePs(100));
    QCOMPARE(s.type(EventType::HostWaitInput), TimePs(200));
    QCOMPARE(s.type(EventType::HostPrepare), TimePs(0));
    QCOMPARE(s.type(EventType::UnknownTime), TimePs(100));
    QCOMPARE(db->compute16Ps, TimePs(600));
    const GenericStepDetails d = genericStepDetails(s);
    QCOMPARE(d.stepTimeMs, 1000 / 1e9);
    QCOMPARE(d.outputMs, 100 / 1e9);
    QCOMPARE(d.inputMs(), 200 / 1e9);
}

// Three steps whose group ids are not in time order (2, 1, 3), so the kernel stream and one host
// thread meet their groups out of id order, while another thread meets them in order. Swept
// one group at a time, two at a time, or all at once, each step's breakdown is the same and is
// what its own events give:
//   group 2, step 0-2000:    kernel 0-400; input 500-700 and 1000-1100
//   group 1, step 3000-4000: kernel 3000-3300; input 3400-3600
//   group 3, step 5000-6000: kernel 5000-5500; input 5600-5700 (5200-5300 is under the kernel)
void TestStepBreakdown::batchesOfSteps()
{
    GroupedTrace t;
    const uint32_t stream = t.b.addTrack(t.gpu, "Stream #1(Kernel)", 1);
    const uint32_t unordered = t.b.addTrack(t.host, "t1", 3);
    const uint32_t ordered = t.b.addTrack(t.host, "t2", 4);
    const uint32_t gemm = t.kind("gemm_kernel"), input = t.kind("IteratorGetNext");
    t.add(t.steps, 0, 2000, t.kind("2"), 2, -1);
    t.add(t.steps, 3000, 1000, t.kind("1"), 1, -1);
    t.add(t.steps, 5000, 1000, t.kind("3"), 3, -1);
    t.add(stream, 0, 400, gemm, 2, 1);
    t.add(stream, 3000, 300, gemm, 1, 2);
    t.add(stream, 5000, 500, gemm, 3, 3);
    t.add(unordered, 500, 200, input, 2, -1);
    t.add(unordered, 2500, 100, input, -1, -1);   // between steps, in no group
    t.add(unordered, 3400, 200, input, 1, -1);
    t.add(unordered, 5600, 100, input, 3, -1);
    t.add(ordered, 1000, 100, input, 2, -1);
    t.add(ordered, 5200, 100, input, 3, -1);
    const auto trace = t.b.build();
    const auto groups = computeStepGroups(*trace);
    for (const uint64_t batch : {uint64_t(1), uint64_t(5), uint64_t(1) << 22}) {
        StepDbOptions options;
        options.batchSpans = batch;
        const StepDb db = computeStepDb(*trace, groups, options);
        QCOMPARE(db.steps.size(), size_t(3));
        const int64_t ids[] = {2, 1, 3};
        const TimePs kernel[] = {400, 300, 500}, wait[] = {300, 200, 100},
                     unknown[] = {1300, 500, 400};
        for (size_t k = 0; k < 3; ++k) {
            const StepInfo &s = db.steps[k];
            QCOMPARE(s.groupId, ids[k]);
            QCOMPARE(s.type(EventType::DeviceCompute32), kernel[k]);
            QCOMPARE(s.type(EventType::HostWaitInput), wait[k]);
            QCOMPARE(s.type(EventType::UnknownTime), unknown[k]);
        }
    }
}

// A batch's steps are swept on every core: over a generated trace of a thousand steps they are
// the steps of batches of one group each (swept one at a time, in order), time for time.
void TestStepBreakdown::stepsSweptOnEveryCoreKeepGroupOrder()
{
    QTemporaryDir dir;
    const std::string path = dir.filePath("g.xplane.pb").toStdString();
    GeneratorOptions generate;
    generate.events = 150000;
    QVERIFY(generateTrace(generate, path).ok());
    auto loaded = loadTrace(path);
    QVERIFY(loaded.ok());
    const Trace &trace = *loaded.value();
    const auto groups = computeStepGroups(trace);
    StepDbOptions one;
    one.batchSpans = 1;
    const StepDb alone = computeStepDb(trace, groups, one);
    const StepDb together = computeStepDb(trace, groups);
    QVERIFY(alone.steps.size() > 500);
    QCOMPARE(together.steps.size(), alone.steps.size());
    for (size_t k = 0; k < alone.steps.size(); ++k) {
        const StepInfo &a = alone.steps[k], &b = together.steps[k];
        QCOMPARE(b.groupId, a.groupId);
        QCOMPARE(b.begin, a.begin);
        QCOMPARE(b.duration, a.duration);
        QCOMPARE(b.name, a.name);
        for (int t = 0; t < kEventTypeCount; ++t)
            QCOMPARE(b.type(EventType(t)), a.type(EventType(t)));
    }
}

void TestStepBreakdown::summaries()
{
    const StepSummary s = summarize({2, 4, 4, 4, 5, 5, 7, 9});
    QCOMPARE(s.count, 8);
    QCOMPARE(s.average, 5.0);
    QCOMPARE(s.minimum, 2.0);
    QCOMPARE(s.maximum, 9.0);
    QVERIFY(std::abs(s.standardDeviation - std::sqrt(32.0 / 7.0)) < 1e-12);
    QCOMPARE(summarize({3}).standardDeviation, 0.0);
    QCOMPARE(summarize({}).count, 0);
}

void TestStepBreakdown::gpuFixtureCategoriesSum()
{
    const QString path = QStringLiteral(TRACEDESK_SHARED_FIXTURES)
                         + "/xspace/xprof_GPU-multi-worker/34.83.195.179_6003.xplane.pb";
    if (!QFile::exists(path))
        QSKIP("shared GPU fixture not found (shared/fixtures/real)");
    auto trace = loadTrace(path.toStdString());
    QVERIFY(trace);
    AnalysisCache cache(trace.value());
    const auto b = genericStepTimeBreakdown(*stepDb(cache));
    QVERIFY(!b.steps.empty());
    for (const GenericStepDetails &d : b.steps) {
        double sum = 0;
        for (const StepCategory &c : kGenericCategories)
            sum += d.*c.ms;
        QVERIFY2(std::abs(sum - d.stepTimeMs) < 1e-9, qPrintable(QString::number(sum)));
        QVERIFY(d.deviceComputeMs > 0);
    }
    QCOMPARE(b.stepTime.count, int(b.steps.size()));
    // GPU steps hold no TPU details: they read as zeros and take no memory.
    for (const StepInfo &s : stepDb(cache)->steps) {
        QVERIFY(!s.tpu.isSet());
        QCOMPARE(s.tpu->tcComputeMs, 0.0);
    }
}

void TestStepBreakdown::tpuBreakdown()
{
    // Two TensorCores, one step (group 3) of 1000 ps. Core 0: fusion 0-500 containing a nested
    // convolution 100-300 (self: fusion 300, convolution 200), infeed 600-700. Core 1: all-reduce
    // 0-400, idle otherwise.
    TraceBuilder b;
    auto kind = [&](const char *n, const char *category, uint32_t plane) {
        EventKind k;
        k.name = b.intern(n);
        k.plane = plane;
        if (category) {
            ArgsArena::Writer w(b.trace().metaArgs);
            w.addStringRef(b.intern("hlo_category"), b.intern(category));
            k.stats = w.finish();
        }
        return b.addKind(k);
    };
    for (int core = 0; core < 2; ++core) {
        const uint32_t p = b.addPlane("/device:TPU:" + std::to_string(core), "h", 10 + core,
                                      PlaneKind::Device);
        const uint32_t steps = b.addTrack(p, "Steps", 1);
        const uint32_t ops = b.addTrack(p, "XLA Ops", 3);
        auto &st = b.trackBuilder(steps);
        st.setSide(st.addSlice(0, 1000, kind("3", nullptr, p)), SideColumn::GroupId, 3);
        auto &o = b.trackBuilder(ops);
        if (core == 0) {
            o.addSlice(0, 500, kind("fusion.1", "loop fusion", p));
            o.addSlice(100, 200, kind("convolution.2", "convolution", p));
            o.addSlice(600, 100, kind("infeed.3", "infeed", p));
        } else {
            o.addSlice(0, 400, kind("all-reduce.4", "all-reduce", p));
        }
    }
    AnalysisCache cache(b.build());
    auto db = stepDb(cache);
    QCOMPARE(db->hardware, StepHardware::Tpu);
    QCOMPARE(db->steps.size(), size_t(1));
    const StepInfo &s = db->steps[0];
    QCOMPARE(s.groupId, int64_t(3));
    QCOMPARE(s.cores.size(), size_t(2));
    const TpuCoreStep &c0 = s.cores[0];
    QCOMPARE(c0.tcBusyPs, TimePs(600));
    QCOMPARE(c0.highFlopsComputePs, TimePs(200));
    QCOMPARE(c0.infeedPs, TimePs(100));
    QCOMPARE(c0.tcIdlePs, TimePs(400));
    const TpuCoreStep &c1 = s.cores[1];
    QCOMPARE(c1.crsPs, TimePs(400));
    QCOMPARE(c1.tcIdlePs, TimePs(600));
    // Core 0: step = compute 500 + infeed 100 + idle 400; core 1: crs 400 + idle 600.
    QCOMPARE(c0.tcBusyPs + c0.tcIdlePs, TimePs(1000));
    QCOMPARE(c1.tcBusyPs + c1.tcIdlePs, TimePs(1000));
    QCOMPARE(s.tpu->tcComputeMs, 0.0);             // min over cores (core 1 computes nothing)
    QCOMPARE(s.tpu->tcIdleMs, 400 / 1e9);          // min over cores
    QCOMPARE(s.tpu->tcInfeedMs, 100 / 1e9);        // max over cores
    QCOMPARE(s.tpu->coreIdMaxInfeed, int64_t(10));
    QCOMPARE(s.tpu->allReduceComputeMs, 0.0);
    QCOMPARE(s.tpu->allReduceSyncMs, 400 / 1e9);
    QCOMPARE(s.tpu->infeedPercentAverage, 5.0);
    // A copy of the step is a copy of its details, not a second view of them.
    StepInfo copy = s;
    copy.tpu.edit().tcIdleMs = 1;
    QCOMPARE(s.tpu->tcIdleMs, 400 / 1e9);
    QCOMPARE(copy.tpu->tcInfeedMs, 100 / 1e9);
    const auto t = tpuStepTimeBreakdown(*db);
    QCOMPARE(t.steps.size(), size_t(1));
    QCOMPARE(t.stepTime.average, 1000 / 1e9);
}

QTEST_GUILESS_MAIN(TestStepBreakdown)
#include "tst_stepbreakdown.moc"
