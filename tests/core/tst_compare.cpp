// Trace comparison: op diffs at the three levels, step times, alignment, op occurrences and
// slice matching, on a TraceBuilder fixture and its transformed copy (tst_comparefixture.h),
// and a real profile against itself.

#include "tst_comparefixture.h"

#include "core/analysis/steps.h"
#include "core/compare/opmatch.h"
#include "core/compare/tracecomparison.h"
#include "core/io/traceloader.h"

#include <QDir>
#include <QtTest>

using namespace tracedesk::core;
using namespace tracedesk::core::compare;
using comparefixture::kUs;

namespace {

constexpr int kSteps = 10;

const OpDiffRow *findRow(const OpDiff &diff, const std::string &name, const std::string &where = {})
{
    for (const OpDiffRow &r : diff.rows) {
        if (r.name == name && (where.empty() || r.where == where))
            return &r;
    }
    return nullptr;
}

struct Pair
{
    TracePtr a;
    TracePtr b;
    analysis::AnalysisCache cacheA;
    analysis::AnalysisCache cacheB;
    TraceComparison comparison;
    Pair(TracePtr ta, TracePtr tb)
        : a(ta), b(tb), cacheA(ta), cacheB(tb), comparison(compareTraces(cacheA, cacheB))
    {}
};

// B: conv 1.5x, matmul 1.2x, dropout gone: +50, +10 and -5 us per step.
comparefixture::Transform slowerB()
{
    comparefixture::Transform t;
    t.scaleByKind = {{"conv_kernel", 1.5}, {"gemm_kernel", 1.2}};
    t.drop = {"dropout_kernel"};
    return t;
}

void expectRow(const OpDiff &diff, const std::string &name, const std::string &where,
               OpChange change, double deltaUs, double deltaPercent)
{
    const OpDiffRow *r = findRow(diff, name, where);
    QVERIFY2(r, (name + " missing").c_str());
    QCOMPARE(opChangeName(r->change), opChangeName(change));
    QVERIFY2(std::abs(r->deltaUs - deltaUs) < 1e-6, (name + " delta").c_str());
    if (std::isfinite(deltaPercent))
        QVERIFY2(std::abs(r->deltaPercent - deltaPercent) < 1e-6, (name + " percent").c_str());
}

} // namespace

class TestCompare : public QObject
{
    Q_OBJECT

private slots:
    void noiseThreshold();
    void identicalTracesAreUnchanged();
    void frameworkDiffFindsTheChanges();
    void hloAndKernelDiffs();
    void stepTimes();
    void alignmentPutsStepNAtTheSameX();
    void alignmentWithoutSteps();
    void occurrencesAndMatching();
    void summaryAndGate();
    void realFixtureAgainstItself_data();
    void realFixtureAgainstItself();
};

void TestCompare::noiseThreshold()
{
    const NoiseThreshold noise;
    QCOMPARE(classifyChange(100, 101.5, true, true, noise), OpChange::Unchanged);   // 1.5 %
    QCOMPARE(classifyChange(100, 103, true, true, noise), OpChange::Slower);
    QCOMPARE(classifyChange(100, 97, true, true, noise), OpChange::Faster);
    QCOMPARE(classifyChange(10, 11.5, true, true, noise), OpChange::Unchanged);     // 1.5 us
    QCOMPARE(classifyChange(10, 12.5, true, true, noise), OpChange::Slower);
    QCOMPARE(classifyChange(0, 0.1, false, true, noise), OpChange::Added);
    QCOMPARE(classifyChange(5, 0, true, false, noise), OpChange::Removed);
}

void TestCompare::identicalTracesAreUnchanged()
{
    const TracePtr a = comparefixture::buildTraceA(kSteps);
    // Same events, every string id and kind index shifted.
    Pair p(a, comparefixture::transformTrace(*a, {}));
    QVERIFY(p.a->strings.size() != 0);
    for (int l = 0; l < kOpLevelCount; ++l) {
        const OpDiff &d = p.comparison.diff(OpLevel(l));
        QVERIFY2(!d.rows.empty(), opLevelName(OpLevel(l)));
        QCOMPARE(d.count(OpChange::Unchanged), int(d.rows.size()));
        for (const OpDiffRow &r : d.rows) {
            QCOMPARE(r.deltaUs, 0.0);
            QCOMPARE(r.occurrencesA, r.occurrencesB);
        }
    }
    QCOMPARE(p.comparison.steps.deltaPercent, 0.0);
    QCOMPARE(p.comparison.gate.deltaPercent, 0.0);
    QCOMPARE(p.comparison.alignment.offset(), TimePs(0));
}

void TestCompare::frameworkDiffFindsTheChanges()
{
    const TracePtr a = comparefixture::buildTraceA(kSteps);
    Pair p(a, comparefixture::transformTrace(*a, slowerB()));
    const OpDiff &d = p.comparison.diff(OpLevel::Framework);
    QCOMPARE(d.stepsA, kSteps);
    QCOMPARE(d.stepsB, kSteps);
    expectRow(d, "conv1", kWhereDevice, OpChange::Slower, 50, 50);
    expectRow(d, "matmul", kWhereDevice, OpChange::Slower, 10, 20);
    expectRow(d, "dropout", kWhereDevice, OpChange::Removed, -5, -100);
    expectRow(d, "relu", kWhereDevice, OpChange::Unchanged, 0, 0);
    expectRow(d, "add", kWhereDevice, OpChange::Unchanged, 0, 0);
    // The host side of every op is untouched, dropout included.
    for (const char *op : {"conv1", "matmul", "dropout", "relu", "add"})
        expectRow(d, op, kWhereHost, OpChange::Unchanged, 0, 0);
    QCOMPARE(d.count(OpChange::Slower), 2);
    QCOMPARE(d.count(OpChange::Removed), 1);
    QCOMPARE(d.count(OpChange::Faster), 0);
    QCOMPARE(d.count(OpChange::Added), 0);
    QCOMPARE(d.count(OpChange::Unchanged), int(d.rows.size()) - 3);
    // Sorted by absolute change.
    QCOMPARE(d.rows[0].name, std::string("conv1"));
    QCOMPARE(d.rows[1].name, std::string("matmul"));
    QCOMPARE(d.rows[2].name, std::string("dropout"));
    const OpDiffRow *conv = findRow(d, "conv1", kWhereDevice);
    QCOMPARE(conv->occurrencesA, int64_t(kSteps));
    QCOMPARE(conv->occurrencesB, int64_t(kSteps));
    QCOMPARE(conv->selfA, TimePs(kSteps * 100 * kUs));
    QCOMPARE(conv->selfB, TimePs(kSteps * 150 * kUs));
    QCOMPARE(conv->perStepUsA, 100.0);
    QCOMPARE(d.slowerUs, 60.0);
    QCOMPARE(d.fasterUs, -5.0);
}

void TestCompare::hloAndKernelDiffs()
{
    const TracePtr a = comparefixture::buildTraceA(kSteps);
    Pair p(a, comparefixture::transformTrace(*a, slowerB()));
    const OpDiff &hlo = p.comparison.diff(OpLevel::Hlo);
    expectRow(hlo, "conv1/conv_kernel", {}, OpChange::Slower, 50, 50);
    expectRow(hlo, "matmul/gemm_kernel", {}, OpChange::Slower, 10, 20);
    expectRow(hlo, "dropout/dropout_kernel", {}, OpChange::Removed, -5, -100);
    expectRow(hlo, "relu/relu_kernel", {}, OpChange::Unchanged, 0, 0);
    expectRow(hlo, "add/add_kernel", {}, OpChange::Unchanged, 0, 0);
    QCOMPARE(int(hlo.rows.size()), 5);

    const OpDiff &kernels = p.comparison.diff(OpLevel::Kernel);
    expectRow(kernels, "conv_kernel", {}, OpChange::Slower, 50, 50);
    expectRow(kernels, "gemm_kernel", {}, OpChange::Slower, 10, 20);
    expectRow(kernels, "dropout_kernel", {}, OpChange::Removed, -5, -100);
    expectRow(kernels, "relu_kernel", {}, OpChange::Unchanged, 0, 0);
    expectRow(kernels, "add_kernel", {}, OpChange::Unchanged, 0, 0);
    QCOMPARE(int(kernels.rows.size()), 5);
    QCOMPARE(findRow(kernels, "gemm_kernel")->occurrencesB, int64_t(kSteps));
}

void TestCompare::stepTimes()
{
    const TracePtr a = comparefixture::buildTraceA(kSteps);
    Pair p(a, comparefixture::transformTrace(*a, slowerB()));
    const StepComparison &s = p.comparison.steps;
    QCOMPARE(s.stepCountA, kSteps);
    QCOMPARE(s.stepCountB, kSteps);
    QCOMPARE(int(s.pairs.size()), kSteps);
    for (const StepPair &pair : s.pairs) {
        // +50 +10 -5 us per step.
        QVERIFY(std::abs((pair.msB - pair.msA) - 0.055) < 1e-9);
        QCOMPARE(pair.nameA, pair.nameB);
        QCOMPARE(int(pair.categoriesA.size()), int(s.categories.size()));
    }
    QVERIFY(std::abs((s.averageMsB - s.averageMsA) - 0.055) < 1e-9);
    QVERIFY(s.deltaPercent > 0);
    // Device compute grows by the same 55 us.
    const auto it = std::find(s.categories.begin(), s.categories.end(), "Device compute");
    QVERIFY(it != s.categories.end());
    const size_t c = size_t(it - s.categories.begin());
    QVERIFY(std::abs((s.averageCategoryMsB[c] - s.averageCategoryMsA[c]) - 0.055) < 1e-9);
    QCOMPARE(p.comparison.gate.what, std::string("average step time"));
}

void TestCompare::alignmentPutsStepNAtTheSameX()
{
    const TracePtr a = comparefixture::buildTraceA(kSteps);
    Pair p(a, comparefixture::transformTrace(*a, slowerB()));
    const auto stepsA = analysis::stepDb(p.cacheA);
    const auto stepsB = analysis::stepDb(p.cacheB);
    // Init and Shutdown bracket the steps, so the first step is complete.
    QCOMPARE(firstCompleteStep(*p.a, *stepsA), 0);
    QCOMPARE(stepPairCount(*p.a, *stepsA, *p.b, *stepsB), kSteps);
    QCOMPARE(p.comparison.alignment.stepA, 0);
    QVERIFY(p.comparison.alignment.byStep);
    for (int n = 0; n < kSteps; ++n) {
        const TraceAlignment al = alignTraces(*p.a, *stepsA, *p.b, *stepsB, n);
        const TimePs beginA = stepsA->steps[size_t(n)].begin;
        const TimePs beginB = stepsB->steps[size_t(n)].begin;
        QCOMPARE(al.toB(beginA), beginB);
        QCOMPARE(al.toA(beginB), beginA);
        // Each earlier step of B is 55 us longer.
        QCOMPARE(al.offset(), TimePs(55 * kUs * n));
    }
    // Out of range clamps to the last pair.
    QCOMPARE(alignTraces(*p.a, *stepsA, *p.b, *stepsB, 99).stepA, kSteps - 1);
}

void TestCompare::alignmentWithoutSteps()
{
    auto single = [](TimePs start) {
        TraceBuilder b;
        const uint32_t plane = b.addPlane("/host:CPU", "h", 1, PlaneKind::Host);
        const uint32_t track = b.addTrack(plane, "main", 1);
        EventKind k;
        k.name = b.intern("work");
        k.plane = plane;
        b.trackBuilder(track).addSlice(start, 10 * kUs, b.addKind(k));
        return TracePtr(b.build());
    };
    const TracePtr a = single(3 * kUs), b = single(40 * kUs);
    analysis::StepDb none;
    const TraceAlignment al = alignTraces(*a, none, *b, none);
    QVERIFY(!al.byStep);
    QCOMPARE(al.offset(), TimePs(37 * kUs));
    QCOMPARE(firstCompleteStep(*a, none), -1);
}

void TestCompare::occurrencesAndMatching()
{
    const TracePtr a = comparefixture::buildTraceA(kSteps);
    Pair p(a, comparefixture::transformTrace(*a, slowerB()));
    const auto convA = opOccurrences(*p.a, OpLevel::Kernel, "conv_kernel");
    const auto convB = opOccurrences(*p.b, OpLevel::Kernel, "conv_kernel");
    QCOMPARE(int(convA.size()), kSteps);
    QCOMPARE(int(convB.size()), kSteps);
    for (TimePs d : durationsOf(*p.a, convA))
        QCOMPARE(d, 100 * kUs);
    for (TimePs d : durationsOf(*p.b, convB))
        QCOMPARE(d, 150 * kUs);
    QCOMPARE(int(opOccurrences(*p.b, OpLevel::Kernel, "dropout_kernel").size()), 0);
    QCOMPARE(int(opOccurrences(*p.a, OpLevel::Framework, "conv1", kWhereDevice).size()), kSteps);
    const auto hostConv = opOccurrences(*p.a, OpLevel::Framework, "conv1", kWhereHost);
    QCOMPARE(int(hostConv.size()), kSteps);
    QCOMPARE(p.a->duration(hostConv.front()), 5 * kUs);
    QCOMPARE(int(opOccurrences(*p.a, OpLevel::Framework, "conv1").size()), 2 * kSteps);
    QCOMPARE(int(opOccurrences(*p.a, OpLevel::Hlo, "matmul/gemm_kernel").size()), kSteps);

    const auto hostKey = opKeyOfSlice(*p.a, hostConv.front(), OpLevel::Framework);
    QVERIFY(hostKey);
    QCOMPARE(hostKey->name, std::string("conv1"));
    QCOMPARE(hostKey->where, std::string(kWhereHost));
    QVERIFY(!opKeyOfSlice(*p.a, hostConv.front(), OpLevel::Kernel));
    const auto kernelKey = opKeyOfSlice(*p.a, convA[3], OpLevel::Hlo);
    QVERIFY(kernelKey);
    QCOMPARE(kernelKey->name, std::string("conv1/conv_kernel"));

    // The 4th conv of A matches the 4th conv of B once times are mapped through the alignment.
    const SliceRef fourth = convA[3];
    const auto match = matchingSlice(*p.a, fourth, *p.b,
                                     p.comparison.alignment.toB(p.a->start(fourth)));
    QVERIFY(match);
    QCOMPARE(p.b->name(*match), std::string_view("conv_kernel"));
    QCOMPARE(p.b->side(*match, SideColumn::GroupId), int64_t(3));
    QCOMPARE(p.b->string(p.b->tracks[match->track].name), std::string_view("Stream #7(Kernel)"));
    const auto nearest = nearestOf(*p.b, convB, p.b->start(convB[6]) + kUs);
    QVERIFY(nearest);
    QCOMPARE(*nearest, convB[6]);
    // A name B lacks has no match.
    const auto dropA = opOccurrences(*p.a, OpLevel::Kernel, "dropout_kernel");
    QVERIFY(!matchingSlice(*p.a, dropA.front(), *p.b, 0));
}

void TestCompare::summaryAndGate()
{
    const TracePtr a = comparefixture::buildTraceA(kSteps);
    Pair p(a, comparefixture::transformTrace(*a, slowerB()));
    const auto lines = summaryLines(p.comparison, OpLevel::Framework);
    QVERIFY(lines.size() >= 4);
    QVERIFY2(lines[0].find("Average step time") == 0, lines[0].c_str());
    QVERIFY2(lines[0].find("B is slower") != std::string::npos, lines[0].c_str());
    QVERIFY2(lines[1].find("Biggest regressions: conv1 (Device) +50.00 us per step (+50.0%)")
                 == 0,
             lines[1].c_str());
    QVERIFY2(lines[2].find("dropout (Device) is gone in B") != std::string::npos,
             lines[2].c_str());

    comparefixture::Transform slow;
    slow.stretch = 1.1;
    Pair q(a, comparefixture::transformTrace(*a, slow));
    QVERIFY2(std::abs(q.comparison.gate.deltaPercent - 10.0) < 1e-6,
             std::to_string(q.comparison.gate.deltaPercent).c_str());
    QVERIFY(std::abs(q.comparison.steps.deltaPercent - 10.0) < 1e-6);
    // Every op is 10% slower: beyond the noise for conv (+10 us) and gemm (+5 us), within it
    // for add (+1 us) and dropout (+0.5 us).
    const OpDiff &k = q.comparison.diff(OpLevel::Kernel);
    QCOMPARE(opChangeName(findRow(k, "conv_kernel")->change), "slower");
    QCOMPARE(opChangeName(findRow(k, "gemm_kernel")->change), "slower");
    QCOMPARE(opChangeName(findRow(k, "add_kernel")->change), "unchanged");
    QCOMPARE(opChangeName(findRow(k, "dropout_kernel")->change), "unchanged");
}

void TestCompare::realFixtureAgainstItself_data()
{
    QTest::addColumn<QString>("file");
    QTest::newRow("gpu") << "xspace/xprof_GPU-multi-worker/34.83.195.179_6003.xplane.pb";
    QTest::newRow("tpu") << "xspace/xprof_tpu_inference_2/tpu_inference_2.xplane.pb";
    QTest::newRow("rocm") << "xspace/tracelens_jax08_gemm/tw003.xplane.pb";
}

void TestCompare::realFixtureAgainstItself()
{
    QFETCH(QString, file);
    const QString root = QStringLiteral(TRACEDESK_SHARED_FIXTURES);
    if (!QDir(root).exists())
        QSKIP("../shared/fixtures/real is absent; real-profile comparison skipped");
    const std::string path = (root + QLatin1Char('/') + file).toStdString();
    auto loaded = loadTrace(path);
    QVERIFY2(loaded.ok(), loaded.ok() ? "" : loaded.message().c_str());
    const TracePtr a = loaded.value();
    Pair p(a, comparefixture::transformTrace(*a, {}));
    int rows = 0;
    for (int l = 0; l < kOpLevelCount; ++l) {
        const OpDiff &d = p.comparison.diff(OpLevel(l));
        QCOMPARE(d.count(OpChange::Unchanged), int(d.rows.size()));
        rows += int(d.rows.size());
    }
    QVERIFY(rows > 0);
    QCOMPARE(p.comparison.gate.deltaPercent, 0.0);
    QCOMPARE(p.comparison.alignment.offset(), TimePs(0));
}

QTEST_GUILESS_MAIN(TestCompare)
#include "tst_compare.moc"
