// Kernel stats: launch-detail parsing, grouping of a tiny trace by hand, and every row of the
// real GPU fixture against a grouping computed here from the protobuf.

#include "core/analysis/opmetrics.h"
#include "core/analysis/opnames.h"
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
    QVERIFY(isOpTensorCoreEligible("model/dense/MatMul:MatMul"));
    QVERIFY(isOpTensorCoreEligible("conv/Conv2D"));
    QVERIFY(isOpTensorCoreEligible("a/BatchMatMulV2"));
    QVERIFY(!isOpTensorCoreEligible("a/Relu:Relu"));
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
    QCOMPARE(top.opName, std::string("d/MatMul:MatMul"));
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
