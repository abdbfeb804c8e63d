// The kernel view (PYTORCH.md §2.7): a hand-made trace pins grouping, duration-weighted means
// with missing values (and "inf" blocks per SM) as 0, tensor-core detection and the launching
// operator; the real Kineto fixtures are checked against kernel counts and sums from their raw
// JSON.

#include "core/analysis/pytorch/kernelview.h"
#include "core/io/chromejsonreader.h"
#include "support/kinetofixtures.h"

#include <QtTest>

#include <cmath>

using namespace tracedesk::core;
using namespace tracedesk::core::analysis;
using namespace tracedesk::core::analysis::pytorch;

namespace {

using testsupport::loadText;

// aten::mm launches two TC gemms, aten::relu three relu kernels, a launch with no External id
// under ProfilerStep#0 one more relu (attributed to the enclosing annotation); one kernel has no
// correlation and one a correlation without runtime (both orphans: no recorded launch).
const char *const kKernelTrace = R"json({"schemaVersion":1,
"deviceProperties":[{"id":0,"name":"Test GPU","totalGlobalMem":1024,"computeMajor":7,"computeMinor":0,"numSms":80,"maxThreadsPerMultiprocessor":2048}],
"traceEvents":[
{"ph":"X","cat":"user_annotation","name":"ProfilerStep#0","pid":1,"tid":100,"ts":0,"dur":500,"args":{"External id":1}},
{"ph":"X","cat":"cpu_op","name":"aten::mm","pid":1,"tid":100,"ts":10,"dur":100,"args":{"External id":2}},
{"ph":"X","cat":"cuda_runtime","name":"cudaLaunchKernel","pid":1,"tid":100,"ts":20,"dur":5,"args":{"External id":2,"correlation":1}},
{"ph":"X","cat":"cuda_runtime","name":"cudaLaunchKernel","pid":1,"tid":100,"ts":40,"dur":5,"args":{"External id":2,"correlation":2}},
{"ph":"X","cat":"cpu_op","name":"aten::relu","pid":1,"tid":100,"ts":200,"dur":50,"args":{"External id":3}},
{"ph":"X","cat":"cuda_runtime","name":"cudaLaunchKernel","pid":1,"tid":100,"ts":210,"dur":5,"args":{"External id":3,"correlation":3}},
{"ph":"X","cat":"cuda_runtime","name":"cudaLaunchKernel","pid":1,"tid":100,"ts":220,"dur":5,"args":{"External id":3,"correlation":4}},
{"ph":"X","cat":"cuda_runtime","name":"cudaLaunchKernel","pid":1,"tid":100,"ts":230,"dur":5,"args":{"External id":3,"correlation":5}},
{"ph":"X","cat":"cuda_runtime","name":"cudaLaunchKernel","pid":1,"tid":100,"ts":300,"dur":5,"args":{"correlation":6}},
{"ph":"X","cat":"kernel","name":"volta_h884gemm_64x64","pid":0,"tid":7,"ts":1000,"dur":10,"args":{"device":0,"stream":7,"correlation":1,"grid":[4,2,1],"block":[128,1,1],"registers per thread":64,"shared memory":1024,"blocks per SM":2.5,"warps per SM":10.0,"est. achieved occupancy %":50}},
{"ph":"X","cat":"kernel","name":"volta_h884gemm_64x64","pid":0,"tid":7,"ts":1020,"dur":30,"args":{"device":0,"stream":7,"correlation":2,"grid":[4,2,1],"block":[128,1,1],"registers per thread":64,"shared memory":1024,"blocks per SM":"inf","est. achieved occupancy %":25}},
{"ph":"X","cat":"kernel","name":"relu_kernel","pid":0,"tid":7,"ts":1100,"dur":5,"args":{"device":0,"stream":7,"correlation":3,"grid":[1,1,1],"block":[256,1,1],"registers per thread":16,"shared memory":0,"blocks per SM":1.0,"est. achieved occupancy %":-1}},
{"ph":"X","cat":"kernel","name":"relu_kernel","pid":0,"tid":7,"ts":1110,"dur":15,"args":{"device":0,"stream":7,"correlation":4}},
{"ph":"X","cat":"kernel","name":"relu_kernel","pid":0,"tid":7,"ts":1130,"dur":0,"args":{"device":0,"stream":7,"correlation":5,"grid":[1,1,1],"block":[256,1,1],"registers per thread":16,"shared memory":0,"blocks per SM":4.0,"est. achieved occupancy %":90}},
{"ph":"X","cat":"kernel","name":"relu_kernel","pid":0,"tid":7,"ts":1140,"dur":25,"args":{"device":0,"stream":7,"correlation":6,"grid":[1,1,1],"block":[256,1,1],"registers per thread":16,"shared memory":0,"blocks per SM":2.0,"est. achieved occupancy %":10}},
{"ph":"X","cat":"kernel","name":"nocorr_kernel","pid":0,"tid":7,"ts":1200,"dur":7,"args":{"device":0,"stream":7}},
{"ph":"X","cat":"kernel","name":"zero_kernel","pid":0,"tid":7,"ts":1300,"dur":0,"args":{"device":0,"stream":7,"correlation":77,"blocks per SM":3.0,"est. achieved occupancy %":80}}
]})json";

// A GPU-only trace: no host thread, no metrics.
const char *const kGpuOnlyTrace = R"json({"traceEvents":[
{"ph":"X","cat":"kernel","name":"lonely","pid":0,"tid":7,"ts":10,"dur":3,"args":{"device":0,"stream":7,"correlation":5}},
{"ph":"X","cat":"kernel","name":"lonely","pid":0,"tid":7,"ts":20,"dur":5,"args":{"device":0,"stream":7,"correlation":6}}
]})json";

const KernelNameRow *nameRow(const KernelView &v, std::string_view name)
{
    for (const KernelNameRow &r : v.byName) {
        if (r.name == name)
            return &r;
    }
    return nullptr;
}

bool close(double a, double b)
{
    return std::abs(a - b) < 1e-9;
}

} // namespace

class TestPytorchKernels : public QObject
{
    Q_OBJECT

private slots:
    void tensorCoreKernelNames();
    void byName();
    void byProperties();
    void gpuOnly();
    void realFixtures();
};

void TestPytorchKernels::byName()
{
    const TracePtr trace = loadText(kKernelTrace);
    QVERIFY(trace);
    AnalysisCache cache(trace);
    const auto view = kernelView(cache);
    QCOMPARE(kernelView(cache), view);
    QCOMPARE(view->kernelCount, int64_t(8));
    QVERIFY(close(view->totalKernelUs, 92)); // 10+30+5+15+0+25+7+0
    QVERIFY(close(view->tensorCoreKernelUs, 40));
    QVERIFY(view->hasBlocksPerSm);
    QVERIFY(view->hasOccupancy);
    QCOMPARE(view->byName.size(), size_t(4));
    // By total: relu 45, gemm 40, nocorr 7, zero 0.
    QCOMPARE(view->byName[0].name, std::string("relu_kernel"));
    QCOMPARE(view->byName[1].name, std::string("volta_h884gemm_64x64"));
    QCOMPARE(view->byName[2].name, std::string("nocorr_kernel"));
    QCOMPARE(view->byName[3].name, std::string("zero_kernel"));

    const KernelNameRow *gemm = nameRow(*view, "volta_h884gemm_64x64");
    QVERIFY(gemm->tensorCoresUsed);
    QCOMPARE(gemm->times.calls, int64_t(2));
    QVERIFY(close(gemm->times.totalUs, 40));
    QVERIFY(close(gemm->times.meanUs, 20));
    QVERIFY(close(gemm->times.maxUs, 30));
    QVERIFY(close(gemm->times.minUs, 10));
    // "inf" blocks per SM counts as 0: (10·2.5 + 30·0) / 40; occupancy (10·50 + 30·25) / 40.
    QVERIFY(close(gemm->times.meanBlocksPerSm, 0.625));
    QVERIFY(close(gemm->times.meanOccupancyPercent, 31.25));
    QCOMPARE(gemm->operatorName, std::string("aten::mm"));

    const KernelNameRow *relu = nameRow(*view, "relu_kernel");
    QVERIFY(!relu->tensorCoresUsed);
    QCOMPARE(relu->times.calls, int64_t(4));
    QVERIFY(close(relu->times.totalUs, 45));
    QVERIFY(close(relu->times.meanUs, 11.25));
    QVERIFY(close(relu->times.maxUs, 25));
    QVERIFY(close(relu->times.minUs, 0));
    // Blocks: (5·1 + 15·0 + 0·4 + 25·2) / 45; occupancy: -1 and missing are 0: (0·90 + 25·10) / 45.
    QVERIFY(close(relu->times.meanBlocksPerSm, 55.0 / 45.0));
    QVERIFY(close(relu->times.meanOccupancyPercent, 250.0 / 45.0));
    // The launch under ProfilerStep#0 alone holds 25 µs of it, aten::relu 20 µs.
    QCOMPARE(relu->operatorName, std::string("ProfilerStep#0"));
    // By rule: External id 40 (gemms) + 20 (aten::relu); the enclosing annotation 25; no
    // recorded launch 7 + 0 (nocorr, zero).
    QVERIFY(close(view->kernelUsByRule[size_t(LaunchRule::ExternalId)], 60));
    QVERIFY(close(view->kernelUsByRule[size_t(LaunchRule::EnclosingAnnotation)], 25));
    QVERIFY(close(view->kernelUsByRule[size_t(LaunchRule::EnclosingOperator)], 0));
    QVERIFY(close(view->kernelUsByRule[size_t(LaunchRule::ThreadRoot)], 0));
    QVERIFY(close(view->kernelUsWithoutLaunch, 7));
    // The same kernel by name and operator: two rows, as the CLI reports them.
    int reluRows = 0;
    for (const KernelNameRow &r : view->byNameOperator) {
        if (r.name != "relu_kernel")
            continue;
        ++reluRows;
        QVERIFY(close(r.times.totalUs, r.operatorName == "ProfilerStep#0" ? 25 : 20));
    }
    QCOMPARE(reluRows, 2);
    // The orphans (nocorr, zero) say why they have no operator.
    for (const KernelNameRow &r : view->byNameOperator) {
        if (r.name == "nocorr_kernel" || r.name == "zero_kernel")
            QCOMPARE(r.operatorName, std::string(kNoRecordedLaunchName));
    }

    const KernelNameRow *zero = nameRow(*view, "zero_kernel");
    QCOMPARE(zero->times.calls, int64_t(1));
    QCOMPARE(zero->times.meanBlocksPerSm, 0.0); // zero total duration
    QCOMPARE(zero->times.meanOccupancyPercent, 0.0);
    QCOMPARE(zero->operatorName, std::string("CallTreeRoot")); // orphan on the step thread's root
    QCOMPARE(nameRow(*view, "nocorr_kernel")->operatorName, std::string("CallTreeRoot"));
}

void TestPytorchKernels::byProperties()
{
    const TracePtr trace = loadText(kKernelTrace);
    QVERIFY(trace);
    const OperatorTree tree = buildOperatorTree(*trace);
    const KernelView view = buildKernelView(*trace, tree);
    // gemm 40, relu/root 25, relu/relu without properties 15, nocorr 7, relu/relu 5, zero 0.
    QCOMPARE(view.byProperties.size(), size_t(6));
    const KernelPropertiesRow &gemm = view.byProperties[0];
    QCOMPARE(gemm.name, std::string("volta_h884gemm_64x64"));
    QCOMPARE(gemm.operatorName, std::string("aten::mm"));
    QCOMPARE(gemm.grid[0], int64_t(4));
    QCOMPARE(gemm.grid[1], int64_t(2));
    QCOMPARE(gemm.grid[2], int64_t(1));
    QCOMPARE(gemm.block[0], int64_t(128));
    QCOMPARE(gemm.registersPerThread, int64_t(64));
    QCOMPARE(gemm.sharedMemoryBytes, int64_t(1024));
    QVERIFY(gemm.tensorCoresUsed);
    QVERIFY(gemm.operatorTensorCoreEligible);
    QCOMPARE(gemm.times.calls, int64_t(2));
    QVERIFY(close(gemm.times.meanBlocksPerSm, 0.625));

    const KernelPropertiesRow &rootRelu = view.byProperties[1];
    QCOMPARE(rootRelu.name, std::string("relu_kernel"));
    QCOMPARE(rootRelu.operatorName, std::string("ProfilerStep#0"));
    QVERIFY(!rootRelu.operatorTensorCoreEligible);
    QVERIFY(close(rootRelu.times.totalUs, 25));
    QVERIFY(close(rootRelu.times.meanBlocksPerSm, 2));
    QVERIFY(close(rootRelu.times.meanOccupancyPercent, 10));

    const KernelPropertiesRow &bare = view.byProperties[2];
    QCOMPARE(bare.operatorName, std::string("aten::relu"));
    QCOMPARE(bare.grid[0], int64_t(0));
    QCOMPARE(bare.registersPerThread, int64_t(0));
    QVERIFY(close(bare.times.totalUs, 15));

    QCOMPARE(view.byProperties[3].name, std::string("nocorr_kernel"));
    QCOMPARE(view.byProperties[3].operatorName, std::string("CallTreeRoot"));

    const KernelPropertiesRow &relu = view.byProperties[4];
    QCOMPARE(relu.operatorName, std::string("aten::relu"));
    QCOMPARE(relu.grid[0], int64_t(1));
    QCOMPARE(relu.block[0], int64_t(256));
    QCOMPARE(relu.registersPerThread, int64_t(16));
    QCOMPARE(relu.times.calls, int64_t(2));
    QVERIFY(close(relu.times.totalUs, 5));
    QVERIFY(close(relu.times.meanUs, 2.5));
    QVERIFY(close(relu.times.minUs, 0));
    QVERIFY(close(relu.times.meanBlocksPerSm, 1)); // (5·1 + 0·4) / 5
    QVERIFY(close(relu.times.meanOccupancyPercent, 0));
    QCOMPARE(view.byProperties[5].name, std::string("zero_kernel"));
}

void TestPytorchKernels::gpuOnly()
{
    const TracePtr trace = loadText(kGpuOnlyTrace);
    QVERIFY(trace);
    const OperatorTree tree = buildOperatorTree(*trace);
    QCOMPARE(tree.orphanRoot, kNoIndex);
    const KernelView view = buildKernelView(*trace, tree);
    QVERIFY(!view.hasBlocksPerSm);
    QVERIFY(!view.hasOccupancy);
    QCOMPARE(view.byName.size(), size_t(1));
    QCOMPARE(view.byName[0].times.calls, int64_t(2));
    QVERIFY(close(view.byName[0].times.totalUs, 8));
    QCOMPARE(view.byName[0].operatorName, std::string()); // unknown launcher
    QVERIFY(view.byProperties.empty());                   // not reachable from any tree
}

void TestPytorchKernels::realFixtures()
{
    // TRACEDESK_SHARED_FIXTURES already ends in fixtures/real.
    const QString dir = QString(TRACEDESK_SHARED_FIXTURES) + "/chrome_json/";
    if (!QDir(dir).exists())
        QSKIP(qPrintable("real fixtures missing: " + dir));
    int checked = 0;
    for (const QString &name : testsupport::kinetoFixtureNames()) {
        const QString path = dir + name;
        const QJsonObject root = testsupport::readFixtureObject(path);
        if (root.isEmpty()) {
            qWarning("raw JSON of %s does not parse with QJsonDocument; skipped", qPrintable(name));
            continue;
        }
        int64_t count = 0;
        int64_t totalPs = 0;
        int64_t tcCount = 0;
        for (const QJsonValue &v : root.value("traceEvents").toArray()) {
            const QJsonObject e = v.toObject();
            const QString cat = e.value("cat").toString().toLower();
            if (e.value("ph").toString() != "X" || (cat != "kernel" && cat != "mtia_ccp_events"))
                continue;
            ++count;
            totalPs += std::llround(e.value("dur").toDouble() * 1e6);
            const std::string kernel = e.value("name").toString().toStdString();
            tcCount += usesTensorCores(kernel) ? 1 : 0;
        }
        LoadControl control;
        auto r = readChromeJson(path.toStdString(), &control, LoadOptions{});
        QVERIFY2(r.ok(), r.ok() ? "" : r.message().c_str());
        AnalysisCache cache(r.value());
        const auto view = kernelView(cache);
        const auto tree = operatorTree(cache);
        const QByteArray what = name.toUtf8();
        // Every kernel counted once, in the totals and in the name rows.
        QVERIFY2(
            view->kernelCount == count,
            qPrintable(
                QString("%1: %2 kernels, raw %3").arg(name).arg(view->kernelCount).arg(count)));
        int64_t calls = 0;
        int64_t tcCalls = 0;
        double rowsUs = 0;
        for (const KernelNameRow &row : view->byName) {
            calls += row.times.calls;
            tcCalls += row.tensorCoresUsed ? row.times.calls : 0;
            rowsUs += row.times.totalUs;
            QVERIFY(row.times.minUs <= row.times.meanUs + 1e-9 &&
                    row.times.meanUs <= row.times.maxUs + 1e-9);
        }
        QCOMPARE(calls, count);
        QCOMPARE(tcCalls, tcCount);
        const double rawUs = double(totalPs) / 1e6;
        // Raw durations carry at most ns precision: allow 1 ns per kernel of rounding.
        QVERIFY2(std::abs(view->totalKernelUs - rawUs) <= 1e-3 * double(count) + 1e-6,
                 qPrintable(QString("%1: %2 us, raw %3 us")
                                .arg(name)
                                .arg(view->totalKernelUs, 0, 'f', 3)
                                .arg(rawUs, 0, 'f', 3)));
        QVERIFY(std::abs(rowsUs - view->totalKernelUs) <= 1e-6 * std::max(1.0, rawUs));
        // With a thread to hold orphans, every kernel is reachable from the tree.
        if (tree->orphanRoot != kNoIndex) {
            int64_t propertyCalls = 0;
            for (const KernelPropertiesRow &row : view->byProperties)
                propertyCalls += row.times.calls;
            QVERIFY2(propertyCalls == count, what.constData());
        }
        ++checked;
    }
    QVERIFY(checked > 0);
}

// The plugin's Volta-Ampere names, and the Hopper / Blackwell / CUTLASS ones added to them.
void TestPytorchKernels::tensorCoreKernelNames()
{
    QVERIFY(usesTensorCores("volta_h884gemm_64x64_ldg8_nn"));
    QVERIFY(usesTensorCores("sm80_xmma_gemm_bf16bf16_bf16f32_f32_tn_n_tilesize128x128x32"));
    QVERIFY(usesTensorCores("nvjet_tst_64x64_64x16_2x1_2cta_v_bz_bias_TNT"));
    QVERIFY(usesTensorCores("cutlass_80_wmma_tensorop_bf16_s161616gemm_bf16_16x16_128x2_tn_align8"));
    QVERIFY(usesTensorCores("sm90_gmma_bf16bf16_bf16f32_f32_tn_n_tilesize128x256x64"));
    QVERIFY(!usesTensorCores("void at::native::vectorized_elementwise_kernel<4>"));
    QVERIFY(!usesTensorCores("volta_sgemm_128x64_nn"));
}

QTEST_GUILESS_MAIN(TestPytorchKernels)
#include "tst_pytorchkernels.moc"
