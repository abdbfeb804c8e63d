// Bottleneck classification: every threshold pinned just below and at its value with tiny GPU
// traces whose step is 100,000 ps long, so 1,000 ps is exactly 1 % of the step time.

#include "core/analysis/bottleneck.h"
#include "core/model/tracebuilder.h"

#include <QtTest>

using namespace tracedesk::core;
using namespace tracedesk::core::analysis;

namespace {

constexpr TimePs kStep = 100000;

// Time (ps) of each category in the single step; device compute fills the rest.
struct Mix
{
    TimePs input = 0;        // host IteratorGetNext (HOST_WAIT_INPUT)
    TimePs output = 0;       // device MemcpyD2H
    TimePs collectives = 0;  // device nccl kernel
    TimePs launch = 0;       // host launch with a correlation id (HOST_PREPARE)
    TimePs unknown = 0;      // uncovered step time
};

TracePtr gpuStep(const Mix &m)
{
    TraceBuilder b;
    const uint32_t host = b.addPlane("/host:CPU", "h", 0, PlaneKind::Host);
    const uint32_t gpu = b.addPlane("/device:GPU:0", "h", 1, PlaneKind::Device);
    const uint32_t steps = b.addTrack(gpu, "Steps", int64_t(int32_t(0xdeadbeef)));
    const uint32_t stream = b.addTrack(gpu, "Stream #7(Kernel)", 7);
    const uint32_t thread = b.addTrack(host, "python", 1);
    auto kind = [&](const char *name) {
        EventKind k;
        k.name = b.intern(name);
        return b.addKind(k);
    };
    const uint32_t stepKind = kind("0"), compute = kind("volta_sgemm"), d2h = kind("MemcpyD2H"),
                   nccl = kind("ncclAllReduceKernel"), next = kind("IteratorGetNext"),
                   launch = kind("cudaLaunchKernel");
    b.trackBuilder(steps).setSide(b.trackBuilder(steps).addSlice(0, kStep, stepKind),
                                  SideColumn::GroupId, 0);
    TimePs t = 0;
    int64_t corr = 1;
    auto device = [&](uint32_t k, TimePs d) {
        if (d <= 0)
            return;
        auto &tb = b.trackBuilder(stream);
        const uint32_t s = tb.addSlice(t, d, k);
        tb.setSide(s, SideColumn::GroupId, 0);
        tb.setSide(s, SideColumn::CorrelationId, corr++);
        t += d;
    };
    auto hostEvent = [&](uint32_t k, TimePs d, bool correlated) {
        if (d <= 0)
            return;
        auto &tb = b.trackBuilder(thread);
        const uint32_t s = tb.addSlice(t, d, k);
        tb.setSide(s, SideColumn::GroupId, 0);
        if (correlated)
            tb.setSide(s, SideColumn::CorrelationId, 1000 + corr++);
        t += d;
    };
    device(compute, kStep - m.input - m.output - m.collectives - m.launch - m.unknown);
    device(d2h, m.output);
    device(nccl, m.collectives);
    hostEvent(next, m.input, false);
    hostEvent(launch, m.launch, true);
    return b.build();
}

BottleneckAnalysis classify(const Mix &m, bool tfData = false)
{
    AnalysisCache cache(gpuStep(m));
    auto db = stepDb(cache);
    BottleneckTotals totals = bottleneckTotals(*db);
    totals.tfDataInUse = tfData;
    return classifyBottleneck(totals);
}

} // namespace

class TestBottleneck : public QObject
{
    Q_OBJECT

private slots:
    void fixtureBreakdownIsExact();
    void inputThresholds();
    void outputThresholds();
    void kernelLaunchThresholds();
    void allOtherThresholds();
    void collectivesThresholds();
    void zeroStepTime();
    void tpuThresholds();
    void summaryNextStep();
};

void TestBottleneck::fixtureBreakdownIsExact()
{
    AnalysisCache cache(gpuStep({1000, 2000, 3000, 4000, 5000}));
    auto db = stepDb(cache);
    QCOMPARE(db->steps.size(), size_t(1));
    const StepInfo &s = db->steps[0];
    QCOMPARE(s.duration, kStep);
    QCOMPARE(s.type(EventType::HostWaitInput), TimePs(1000));
    QCOMPARE(s.type(EventType::DeviceToHost), TimePs(2000));
    QCOMPARE(s.type(EventType::DeviceCollectives), TimePs(3000));
    QCOMPARE(s.type(EventType::HostPrepare), TimePs(4000));
    QCOMPARE(s.type(EventType::UnknownTime), TimePs(5000));
    QCOMPARE(s.type(EventType::DeviceCompute32), TimePs(85000));
}

void TestBottleneck::inputThresholds()
{
    QCOMPARE(classify({19999}).inputClassification, std::string("both"));
    const auto high = classify({20000});
    QCOMPARE(high.inputClassification, std::string("host"));
    QVERIFY(QString::fromStdString(high.inputStatement).contains("HIGHLY input-bound because 20.0%"));
    QCOMPARE(classify({4999}).inputClassification, std::string("device"));
    const auto moderate = classify({5000});
    QCOMPARE(moderate.inputClassification, std::string("both"));
    QVERIFY(QString::fromStdString(moderate.inputStatement).contains("MODERATELY"));
    // Below 5 % input, 'All others' >= 3 % makes the program POTENTIALLY input-bound and
    // silences the All-others check.
    const auto potential = classify({0, 0, 0, 0, 3000});
    QCOMPARE(potential.inputClassification, std::string("both"));
    QVERIFY(QString::fromStdString(potential.inputStatement).contains("POTENTIALLY"));
    QCOMPARE(potential.allOtherClassification, std::string("no"));
    const auto notBound = classify({0, 0, 0, 0, 2999});
    QCOMPARE(notBound.inputClassification, std::string("device"));
    QVERIFY(QString::fromStdString(notBound.inputStatement).contains("NOT input-bound"));
}

void TestBottleneck::outputThresholds()
{
    QCOMPARE(classify({0, 19999}).outputClassification, std::string("both"));
    QCOMPARE(classify({0, 20000}).outputClassification, std::string("host"));
    const auto low = classify({0, 4999});
    QCOMPARE(low.outputClassification, std::string("device"));
    QVERIFY(low.outputStatement.empty());
    QCOMPARE(classify({0, 5000}).outputClassification, std::string("both"));
}

void TestBottleneck::kernelLaunchThresholds()
{
    QCOMPARE(classify({0, 0, 0, 2999}).kernelLaunchClassification, std::string("no"));
    QCOMPARE(classify({0, 0, 0, 3000}).kernelLaunchClassification, std::string("moderate"));
    QCOMPARE(classify({0, 0, 0, 14999}).kernelLaunchClassification, std::string("moderate"));
    const auto high = classify({0, 0, 0, 15000});
    QCOMPARE(high.kernelLaunchClassification, std::string("high"));
    QVERIFY(!QString::fromStdString(high.kernelLaunchStatement).contains("TF_GPU_THREAD_MODE"));
    QVERIFY(QString::fromStdString(classify({0, 0, 0, 15000}, true).kernelLaunchStatement)
                .contains("TF_GPU_THREAD_MODE=gpu_private"));
}

void TestBottleneck::allOtherThresholds()
{
    // 5 % input keeps the input check away from the 'POTENTIALLY' branch.
    QCOMPARE(classify({5000, 0, 0, 0, 2999}).allOtherClassification, std::string("no"));
    QCOMPARE(classify({5000, 0, 0, 0, 3000}).allOtherClassification, std::string("moderate"));
    QCOMPARE(classify({5000, 0, 0, 0, 14999}).allOtherClassification, std::string("moderate"));
    QCOMPARE(classify({5000, 0, 0, 0, 15000}).allOtherClassification, std::string("high"));
}

void TestBottleneck::collectivesThresholds()
{
    QCOMPARE(classify({0, 0, 2999}).deviceCollectivesClassification, std::string("no"));
    QCOMPARE(classify({0, 0, 3000}).deviceCollectivesClassification, std::string("moderate"));
    QCOMPARE(classify({0, 0, 14999}).deviceCollectivesClassification, std::string("moderate"));
    const auto high = classify({0, 0, 15000});
    QCOMPARE(high.deviceCollectivesClassification, std::string("high"));
    QCOMPARE(high.collectivesPercent, 15.0);
    QCOMPARE(high.computePercent, 85.0);
    QCOMPARE(high.idlePercent, 0.0);
}

void TestBottleneck::zeroStepTime()
{
    const auto a = classifyBottleneck(BottleneckTotals{});
    QCOMPARE(a.inputClassification, std::string("unknown"));
    QCOMPARE(a.kernelLaunchClassification, std::string("no"));
    QCOMPARE(a.allOtherClassification, std::string("no"));
}

void TestBottleneck::tpuThresholds()
{
    BottleneckTotals t;
    t.tpu = true;
    t.step = 100000;
    t.idle = 2999;
    t.allReduce = 5999;
    auto a = classifyBottleneck(t);
    QVERIFY(a.tcIdleStatement.empty());
    QVERIFY(a.allReduceStatement.empty());
    t.idle = 3000;
    t.allReduce = 6000;
    a = classifyBottleneck(t);
    QVERIFY(QString::fromStdString(a.tcIdleStatement).contains("3.0%"));
    QVERIFY(QString::fromStdString(a.allReduceStatement).contains("6.0%"));
    // TPU input uses infeed only; 'All others' does not apply.
    t.input = 4999;
    QCOMPARE(classifyBottleneck(t).inputClassification, std::string("device"));
}

void TestBottleneck::summaryNextStep()
{
    BottleneckTotals t;
    t.step = 100;
    t.input = 30;
    QVERIFY(QString::fromStdString(classifyBottleneck(t).summaryNextStep).contains("tf.data API"));
    t.tfDataInUse = true;
    QVERIFY(QString::fromStdString(classifyBottleneck(t).summaryNextStep).contains("host-side analysis"));
    t.input = 1;
    QVERIFY(QString::fromStdString(classifyBottleneck(t).summaryNextStep).contains("skip"));
    QCOMPARE(oneDigit(12.345), std::string("12.3"));
}

QTEST_GUILESS_MAIN(TestBottleneck)
#include "tst_bottleneck.moc"
