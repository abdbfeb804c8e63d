// Kernel stats: launch-detail parsing, grouping of a tiny trace by hand, and every row of the
// real GPU fixture against a grouping computed here from the protobuf.

#include "core/analysis/opmetrics.h"
#include "core/analysis/opnames.h"
#include "core/generate/xspacewriter.h"
#include "core/io/traceloader.h"
#include "core/model/tracebuilder.h"

#include "xplane.pb.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QtTest>

#include <filesystem>
#include <fstream>
#include <map>
#include <regex>

using namespace tracedesk::core;
using namespace tracedesk::core::analysis;

class TestKernelStats : public QObject
{
    Q_OBJECT

private slots:
    void parsesLaunchDetails();
    void tensorCoreHeuristics();
    void groupsTinyTrace();
    void xprofOpNameAndEligibility();
    void realGpuFixture();
    void noKernelsOnTpu();
    void cliJson();
};

void TestKernelStats::parsesLaunchDetails()
{
    KernelLaunchParams p = parseKernelDetails(
        "regs:32 static_shared:1024 dynamic_shared:2048 grid:80,2,1 block:256,1,1 occ_pct:50.5");
    QCOMPARE(p.registers, 32u);
    QCOMPARE(p.staticShared, 1024u);
    QCOMPARE(p.dynamicShared, 2048u);
    QCOMPARE(p.grid[0], 80u);
    QCOMPARE(p.grid[1], 2u);
    QCOMPARE(p.block[0], 256u);
    QCOMPARE(p.occupancyPct, 50.5f);
    p = parseKernelDetails("regs:38 shm:0 grid:160,1,1 block:1024,1,1");   // older TF
    QCOMPARE(p.registers, 38u);
    QCOMPARE(p.staticShared, 0u);
    QCOMPARE(p.block[0], 1024u);
    p = parseKernelDetails(" grid:16,16,1 block:256,1,1 private_mem:0 group_mem:51200 occ_pct:0");
    QCOMPARE(p.registers, 0u);
    QCOMPARE(p.grid[1], 16u);
    QCOMPARE(p.block[2], 1u);
    p = parseKernelDetails("grid:7");   // missing dims default to 1
    QCOMPARE(p.grid[0], 7u);
    QCOMPARE(p.grid[1], 1u);
}

void TestKernelStats::tensorCoreHeuristics()
{
    QVERIFY(isKernelUsingTensorCore("volta_h884gemm_64x64_ldg8_nn"));
    QVERIFY(isKernelUsingTensorCore("ampere_s16816gemm_fp16_128x128"));
    QVERIFY(!isKernelUsingTensorCore("void Eigen::internal::EigenMetaKernel<float>"));
    // XProf's IsOpTensorCoreEligible takes the op name (no type) and matches case-sensitively.
    QVERIFY(isOpTensorCoreEligible("model/dense/MatMul"));        // ends with "/MatMul"
    QVERIFY(!isOpTensorCoreEligible("MatMul"));                   // no "/" before it
    QVERIFY(!isOpTensorCoreEligible("model/dense/MatMul_1"));
    QVERIFY(isOpTensorCoreEligible("d/_FusedMatMul"));
    QVERIFY(isOpTensorCoreEligible("conv/Conv2D"));
    QVERIFY(isOpTensorCoreEligible("conv/DepthwiseConv2dNativeBackpropInput"));
    QVERIFY(isOpTensorCoreEligible("a/BatchMatMulV2"));
    QVERIFY(isOpTensorCoreEligible("rnn/CudnnRNN"));
    QVERIFY(isOpTensorCoreEligible("rnn/CudnnRNNV3"));
    QVERIFY(isOpTensorCoreEligible("x/XlaDotV2"));
    QVERIFY(!isOpTensorCoreEligible("a/Relu"));
    QVERIFY(!isOpTensorCoreEligible("model/einsum/Einsum/Cast"));   // no "Einsum" pattern
    QVERIFY(!isOpTensorCoreEligible("jit(f)/dot_general"));
    QVERIFY(!isOpTensorCoreEligible("jit(f)/conv_general_dilated"));
    QVERIFY(isEinsumTensorCoreEligible("ab,bc->ac"));
    QVERIFY(!isEinsumTensorCoreEligible("ab->ba"));
    QVERIFY(!isEinsumTensorCoreEligible("ab,bc,cd->ad"));
    QVERIFY(!isEinsumTensorCoreEligible(""));
    // ParseTfOpFullname's name: split at the first ':'.
    QCOMPARE(tfOpName("model/dense/MatMul:MatMul"), std::string_view("model/dense/MatMul"));
    QCOMPARE(tfOpName("bare_name"), std::string_view("bare_name"));
    QCOMPARE(tfOpName("jit(f)/dot_general:dot_general"), std::string_view("jit(f)/dot_general"));
    QCOMPARE(tfOpName("a/b:"), std::string_view("a/b"));
    QCOMPARE(tfOpName("Iterator::Prefetch"), std::string_view("Iterator::Prefetch"));
    QCOMPARE(tfOpName("a:b c"), std::string_view("a:b c"));   // no op type: kept whole
}

void TestKernelStats::groupsTinyTrace()
{
    TraceBuilder b;
    const uint32_t plane = b.addPlane("/device:GPU:0", "h", 1, PlaneKind::Device);
    const uint32_t t = b.addTrack(plane, "Stream #7(Kernel)", 7);
    EventKind k;
    k.plane = plane;
    k.name = b.intern("volta_h884gemm");
    const uint32_t gemm = b.addKind(k);
    k.name = b.intern("relu_kernel");
    const uint32_t relu = b.addKind(k);
    const StringId details = b.intern("kernel_details");
    const StringId small = b.intern("regs:16 grid:1,1,1 block:32,1,1");
    const StringId big = b.intern("regs:64 grid:80,1,1 block:256,1,1");
    TrackBuilder &tb = b.trackBuilder(t);
    auto add = [&](TimePs start, TimePs dur, uint32_t kind, StringId d, const char *op) {
        ArgsArena::Writer w(tb.args());
        w.addStringRef(details, d);
        const uint32_t i = tb.addSlice(start, dur, kind, w.finish());
        tb.setSide(i, SideColumn::FrameworkOp, b.intern(op));
    };
    add(0, 10, gemm, big, "d/MatMul:MatMul");
    add(20, 30, gemm, big, "d/MatMul:MatMul");
    add(60, 5, gemm, small, "d/MatMul:MatMul");   // other launch configuration
    add(70, 7, relu, small, "d/Relu:Relu");
    tb.addSlice(80, 3, relu);                      // no details: not a kernel row
    const auto trace = b.build();
    const KernelStatsDb db = kernelStats(*trace);
    QCOMPARE(db.reports.size(), size_t(3));
    const KernelReport &top = db.reports[0];
    QCOMPARE(top.name, std::string("volta_h884gemm"));
    QCOMPARE(top.opName, std::string("d/MatMul"));
    QCOMPARE(top.occurrences, int64_t(2));
    QCOMPARE(top.totalDurationPs, TimePs(40));
    QCOMPARE(top.minDurationPs, TimePs(10));
    QCOMPARE(top.maxDurationPs, TimePs(30));
    QCOMPARE(top.registersPerThread, 64u);
    QCOMPARE(top.gridDim[0], 80u);
    QVERIFY(top.isKernelUsingTensorCore);
    QVERIFY(top.isOpTensorCoreEligible);
    QCOMPARE(db.reports[1].name, std::string("relu_kernel"));
    QVERIFY(!db.reports[1].isOpTensorCoreEligible);
    QCOMPARE(db.reports[2].totalDurationPs, TimePs(5));
}

// A hand-made XSpace whose kernels carry `tf_op` (and one an `equation`). Expected values follow
// XProf's ConvertDeviceTraceXPlaneToKernelReports by hand: op_name = the part of `tf_op` before
// the first ':' (a value without one is the name itself); eligible = IsOpTensorCoreEligible(name)
// || IsEinsumTensorCoreEligible(equation) || the kernel uses Tensor Cores.
void TestKernelStats::xprofOpNameAndEligibility()
{
    QTemporaryDir dir;
    const std::string path = (dir.path() + "/gpu.xplane.pb").toStdString();
    XSpaceWriter w(path);
    QVERIFY(w.open().ok());
    const uint32_t plane = w.addPlane(1, "/device:GPU:0");
    const int64_t details = w.statMetadata(plane, "kernel_details");
    const int64_t tfOp = w.statMetadata(plane, "tf_op");
    const int64_t equation = w.statMetadata(plane, "equation");
    const uint32_t line = w.addLine(plane, 7, "Stream #7(Kernel)", 0);
    struct K
    {
        const char *kernel, *op, *equation;
        int64_t durationPs;
    };
    const K kernels[] = {
        {"volta_h884gemm", "model/dense/MatMul:MatMul", nullptr, 9000},
        {"relu_kernel", "bare_name", nullptr, 8000},
        {"cast_kernel", "model/einsum/Einsum/Cast:Cast", nullptr, 7000},
        {"gemv_kernel", "x/Einsum:Einsum", "ab,bc->ac", 6000},
        {"transpose_kernel", "y/Einsum:Einsum", "ab->ba", 5000},
        {"volta_s884gemm", "jit(f)/dot_general:dot_general", nullptr, 4000},
        {"reduce_kernel", "jit(g)/dot_general:dot_general", nullptr, 3000},
        {"rnn_kernel", "lstm/CudnnRNNV3:CudnnRNNV3", nullptr, 2000},
        {"mm_kernel", "a/MatMul_1:MatMul", nullptr, 1000},
    };
    int64_t at = 0;
    for (const K &k : kernels) {
        XStatList stats;
        stats.addString(details, "regs:32 grid:1,1,1 block:32,1,1");
        stats.addString(tfOp, k.op);
        if (k.equation)
            stats.addString(equation, k.equation);
        w.addEvent(line, w.eventMetadata(plane, k.kernel), at, k.durationPs, &stats);
        at += 10000;
    }
    QVERIFY(w.finish().ok());
    auto trace = loadTrace(path);
    QVERIFY2(trace, trace ? "" : trace.message().c_str());
    const KernelStatsDb db = kernelStats(*trace.value());
    QCOMPARE(db.reports.size(), std::size(kernels));
    struct Expect
    {
        const char *op;
        bool usesTc, eligible;
    };
    const Expect expected[] = {
        {"model/dense/MatMul", true, true},              // name ends with "/MatMul"
        {"bare_name", false, false},                     // no colon: the bare name
        {"model/einsum/Einsum/Cast", false, false},      // "Einsum" is no XProf pattern
        {"x/Einsum", false, true},                       // two-operand einsum equation
        {"y/Einsum", false, false},                      // one operand: not eligible
        {"jit(f)/dot_general", true, true},              // its kernel uses Tensor Cores
        {"jit(g)/dot_general", false, false},            // "dot_general" is no XProf pattern
        {"lstm/CudnnRNNV3", false, true},                // contains "CudnnRNNV"
        {"a/MatMul_1", false, false},                    // does not end with "/MatMul"
    };
    for (size_t i = 0; i < db.reports.size(); ++i) {   // sorted by duration, as written
        const KernelReport &r = db.reports[i];
        QCOMPARE(r.name, std::string(kernels[i].kernel));
        QCOMPARE(r.opName, std::string(expected[i].op));
        QVERIFY2(r.isKernelUsingTensorCore == expected[i].usesTc, r.name.c_str());
        QVERIFY2(r.isOpTensorCoreEligible == expected[i].eligible, r.name.c_str());
    }
}

void TestKernelStats::realGpuFixture()
{
    const std::string path = std::string(TRACEDESK_SHARED_FIXTURES)
                             + "/xspace/xprof_GPU-multi-worker/34.83.195.179_6003.xplane.pb";
    if (!std::filesystem::exists(path))
        QSKIP("shared GPU fixture not present");
    tensorflow::profiler::XSpace space;
    std::ifstream in(path, std::ios::binary);
    QVERIFY(space.ParseFromIstream(&in));
    // (kernel, regs, grid, block, op) -> (count, total, min, max)
    using Key = std::tuple<std::string, std::string, std::string, std::string, std::string>;
    struct Agg { int64_t count = 0, total = 0, min = INT64_MAX, max = 0; };
    std::map<Key, Agg> expected;
    const std::regex regs("regs:(\\d+)"), grid("grid:([\\d,]+)"), block("block:([\\d,]+)");
    const std::regex tfOpFull("([A-Za-z0-9.][A-Za-z0-9_./>\\\\-]*):([A-Z_][A-Za-z0-9_]*)");
    for (const auto &plane : space.planes()) {
        if (plane.name().rfind("/device:GPU:", 0) != 0)
            continue;
        auto stat = [&](const tensorflow::profiler::XEvent &e, const std::string &name) {
            for (const auto &s : e.stats()) {
                if (plane.stat_metadata().at(s.metadata_id()).name() != name)
                    continue;
                return s.has_ref_value() ? plane.stat_metadata().at(int64_t(s.ref_value())).name()
                                         : s.str_value();
            }
            return std::string();
        };
        for (const auto &line : plane.lines()) {
            if (line.name().rfind("Stream #", 0) != 0)
                continue;
            for (const auto &e : line.events()) {
                const std::string details = stat(e, "kernel_details");
                if (details.empty())
                    continue;
                std::smatch m;
                std::string r = "0", g = "1,1,1", bl = "1,1,1";
                if (std::regex_search(details, m, regs))
                    r = m[1];
                if (std::regex_search(details, m, grid))
                    g = m[1];
                if (std::regex_search(details, m, block))
                    bl = m[1];
                std::string op = stat(e, "level 0");
                op = op.substr(0, op.find('#'));
                // XProf keeps the name of `name:Type` (a TF op name and type, as all of this
                // fixture's ops are); anything else stays whole.
                if (std::regex_match(op, m, tfOpFull))
                    op = m[1];
                Agg &a = expected[{plane.event_metadata().at(e.metadata_id()).name(), r, g, bl,
                                   op}];
                ++a.count;
                a.total += e.duration_ps();
                a.min = std::min<int64_t>(a.min, e.duration_ps());
                a.max = std::max<int64_t>(a.max, e.duration_ps());
            }
        }
    }
    QVERIFY(expected.size() > 100);
    auto trace = loadTrace(path);
    QVERIFY(trace);
    const KernelStatsDb db = kernelStats(*trace.value());
    QCOMPARE(db.reports.size(), std::min<size_t>(expected.size(), 1000));
    for (const KernelReport &r : db.reports) {
        auto dims = [](const uint32_t *d) {
            return std::to_string(d[0]) + "," + std::to_string(d[1]) + "," + std::to_string(d[2]);
        };
        const Key key{r.name, std::to_string(r.registersPerThread), dims(r.gridDim),
                      dims(r.blockDim), r.opName};
        auto it = expected.find(key);
        QVERIFY2(it != expected.end(), r.name.c_str());
        QCOMPARE(r.occurrences, it->second.count);
        QCOMPARE(r.totalDurationPs, it->second.total);
        QCOMPARE(r.minDurationPs, it->second.min);
        QCOMPARE(r.maxDurationPs, it->second.max);
    }
    for (size_t i = 1; i < db.reports.size(); ++i)
        QVERIFY(db.reports[i - 1].totalDurationPs >= db.reports[i].totalDurationPs);
}

void TestKernelStats::noKernelsOnTpu()
{
    const std::string path = std::string(TRACEDESK_SHARED_FIXTURES)
                             + "/xspace/xprof_tpu_inference_2/tpu_inference_2.xplane.pb";
    if (!std::filesystem::exists(path))
        QSKIP("shared TPU fixture not present");
    auto trace = loadTrace(path);
    QVERIFY(trace);
    QVERIFY(kernelStats(*trace.value()).reports.empty());
}

void TestKernelStats::cliJson()
{
    const QString path = QString::fromLatin1(TRACEDESK_SHARED_FIXTURES)
                         + "/xspace/xprof_GPU-multi-worker/34.83.195.179_6003.xplane.pb";
    if (!QFile::exists(path))
        QSKIP("shared GPU fixture not present");
    auto trace = loadTrace(path.toStdString());
    QVERIFY(trace);
    const KernelStatsDb db = kernelStats(*trace.value());
    QProcess cli;
    cli.start(TRACEDESK_CLI, {"kernel-stats", path, "--json"});
    QVERIFY(cli.waitForFinished(120000));
    QCOMPARE(cli.exitCode(), 0);
    const QJsonArray reports =
        QJsonDocument::fromJson(cli.readAllStandardOutput()).object()["reports"].toArray();
    QCOMPARE(reports.size(), qsizetype(db.reports.size()));
    const QJsonObject first = reports.first().toObject();
    QCOMPARE(first["name"].toString().toStdString(), db.reports[0].name);
    QCOMPARE(first["occurrences"].toInteger(), db.reports[0].occurrences);
    QCOMPARE(first["block_dim"].toArray().at(0).toInt(), int(db.reports[0].blockDim[0]));
    QCOMPARE(first["total_duration_ns"].toDouble(), double(db.reports[0].totalDurationPs) / 1e3);
}

QTEST_GUILESS_MAIN(TestKernelStats)
#include "tst_kernelstats.moc"
