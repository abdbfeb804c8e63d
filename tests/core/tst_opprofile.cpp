// Op profile: tree shapes, sums, utilisation and pruning on hand-built op metrics; the real TPU
// fixture's category totals against sums computed from the protobuf.

#include "core/analysis/opprofile.h"
#include "core/io/traceloader.h"

#include "xplane.pb.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QtTest>

#include <filesystem>
#include <fstream>
#include <map>

using namespace tracedesk::core;
using namespace tracedesk::core::analysis;

namespace {

OpMetrics op(const char *name, const char *category, TimePs time, double flops, double bytes,
             const char *dedup = "")
{
    OpMetrics m;
    m.name = name;
    m.category = category;
    m.hloModule = "jit_f";
    m.hloModuleId = 3;
    m.occurrences = 2;
    m.timePs = m.selfTimePs = time;
    m.flops = flops;
    m.bytesAccessed = bytes;
    m.deduplicatedName = dedup;
    return m;
}

const OpProfileNode *child(const OpProfileNode &n, const std::string &name)
{
    for (const auto &c : n.children) {
        if (c.name == name)
            return &c;
    }
    return nullptr;
}

// Peak 1 TFLOP/s = 1000 GFLOP/s = 1 FLOP/ps; HBM 100 GB/s = 0.1 B/ps.
PerfEnv env()
{
    PerfEnv e;
    e.peakTeraFlopsPerSecond = 1.0;
    e.peakHbmBwGigaBytesPerSecond = 100.0;
    return e;
}

OpMetricsDb db()
{
    OpMetricsDb d;
    d.metrics = {op("conv.1", "convolution", 4000, 2000, 0),     // 50% FLOPS
                 op("fusion.1", "loop fusion", 2000, 0, 200, "fusion.0"),   // 100% HBM
                 op("fusion.2", "loop fusion", 1000, 0, 10, "fusion.0"),    // 10% HBM
                 op("copy.3", "data formatting", 1000, 0, 0)};
    OpMetrics idle;
    idle.name = idle.category = "IDLE";
    idle.timePs = idle.selfTimePs = 2000;
    idle.occurrences = 1;
    d.metrics.push_back(idle);
    return d;
}

} // namespace

class TestOpProfile : public QObject
{
    Q_OBJECT

private slots:
    void byProgramSumsAndRates();
    void byCategoryExcludeIdleAndTopN();
    void sortByWastedTime();
    void realTpuCategories();
    void cliJson();
};

void TestOpProfile::byProgramSumsAndRates()
{
    const OpProfile p = buildOpProfile(db(), env(), {});
    const OpProfileNode &root = p.root;
    QCOMPARE(root.metrics.timePs, TimePs(10000));
    QCOMPARE(root.children.size(), size_t(2));   // jit_f(3) and IDLE
    const OpProfileNode *program = child(root, "jit_f(3)");
    QVERIFY(program);
    QCOMPARE(program->metrics.timePs, TimePs(8000));
    QCOMPARE(program->metrics.timeFraction, 0.8);
    QCOMPARE(program->children.front().name, std::string("convolution"));   // by time
    const OpProfileNode *conv = child(*child(*program, "convolution"), "conv.1");
    QVERIFY(conv);
    QCOMPARE(conv->metrics.flopsUtilization, 0.5);
    QCOMPARE(conv->metrics.gflopsPerSecond, 500.0);
    QCOMPARE(conv->metrics.wastedFraction, 0.4 * 0.5);
    // Duplicates share one node whose sums are recomputed: 210 B over 3000 ps = 70 GB/s.
    const OpProfileNode *fusions = child(*program, "loop fusion");
    const OpProfileNode *dups = child(*fusions, "fusion.0 and its duplicate(s)");
    QVERIFY(dups);
    QCOMPARE(dups->children.size(), size_t(2));
    QCOMPARE(dups->metrics.timePs, TimePs(3000));
    QCOMPARE(dups->metrics.occurrences, int64_t(4));
    QVERIFY(std::abs(dups->metrics.hbmUtilization - 0.7) < 1e-12);
    QCOMPARE(child(*dups, "fusion.1")->metrics.hbmUtilization, 1.0);
    QVERIFY(child(root, "IDLE"));
}

void TestOpProfile::byCategoryExcludeIdleAndTopN()
{
    OpProfileOptions o;
    o.grouping = OpProfileGrouping::ByCategory;
    o.includeIdle = false;
    o.maxChildren = 2;
    const OpProfile p = buildOpProfile(db(), env(), o);
    QCOMPARE(p.root.metrics.timePs, TimePs(8000));
    QCOMPARE(p.root.numChildren, 3);
    QCOMPARE(p.root.children.size(), size_t(2));   // convolution, loop fusion
    QCOMPARE(p.root.children[0].name, std::string("convolution"));
    QCOMPARE(p.root.children[1].name, std::string("loop fusion"));
    QCOMPARE(p.root.children[0].metrics.timeFraction, 0.5);
    QVERIFY(!child(p.root, "IDLE"));
}

void TestOpProfile::sortByWastedTime()
{
    OpProfileOptions o;
    o.grouping = OpProfileGrouping::ByCategory;
    o.sort = OpProfileSort::WastedTime;
    const OpProfile p = buildOpProfile(db(), env(), o);
    // Wasted: conv 0.4*0.5 = 0.2, IDLE 0.2, fusions 0.2*1 + 0.1*0.9... = 0.03, copy 0.1.
    for (size_t i = 1; i < p.root.children.size(); ++i)
        QVERIFY(p.root.children[i - 1].metrics.wastedFraction
                >= p.root.children[i].metrics.wastedFraction);
    QCOMPARE(p.root.children.back().name, std::string("loop fusion"));
}

void TestOpProfile::realTpuCategories()
{
    const std::string path = std::string(TRACEDESK_SHARED_FIXTURES)
                             + "/xspace/xprof_tpu_inference_2/tpu_inference_2.xplane.pb";
    if (!std::filesystem::exists(path))
        QSKIP("shared TPU fixture not present");
    tensorflow::profiler::XSpace space;
    std::ifstream in(path, std::ios::binary);
    QVERIFY(space.ParseFromIstream(&in));
    std::map<std::string, std::pair<int64_t, int64_t>> expected;   // category -> (count, time)
    for (const auto &plane : space.planes()) {
        if (plane.name().rfind("/device:TPU:", 0) != 0)
            continue;
        for (const auto &line : plane.lines()) {
            if (line.name() != "XLA Ops")
                continue;
            for (const auto &e : line.events()) {
                std::string category;
                for (const auto &s : plane.event_metadata().at(e.metadata_id()).stats()) {
                    if (plane.stat_metadata().at(s.metadata_id()).name() == "hlo_category")
                        category = s.str_value();
                }
                auto &slot = expected[category];
                ++slot.first;
                slot.second += e.duration_ps();
            }
        }
    }
    QVERIFY(!expected.empty());
    auto trace = loadTrace(path);
    QVERIFY(trace);
    AnalysisCache cache(trace.value());
    OpProfileOptions o;
    o.grouping = OpProfileGrouping::ByCategory;
    o.includeIdle = false;
    const OpProfile p = buildOpProfile(cache, o);
    QCOMPARE(p.root.children.size(), expected.size());
    int64_t total = 0;
    for (const auto &[category, v] : expected) {
        const OpProfileNode *n = child(p.root, category);
        QVERIFY2(n, category.c_str());
        QCOMPARE(n->metrics.occurrences, v.first);
        QCOMPARE(n->metrics.timePs, v.second);
        total += v.second;
    }
    QCOMPARE(p.root.metrics.timePs, total);
    QCOMPARE(p.deviceType, std::string("TPU v6 Lite"));
    QCOMPARE(p.peakGigaFlopsPerSecond, 918000.0);
}

void TestOpProfile::cliJson()
{
    const QString path = QString::fromLatin1(TRACEDESK_SHARED_FIXTURES)
                         + "/xspace/xprof_tpu_inference_2/tpu_inference_2.xplane.pb";
    if (!QFile::exists(path))
        QSKIP("shared TPU fixture not present");
    auto trace = loadTrace(path.toStdString());
    QVERIFY(trace);
    AnalysisCache cache(trace.value());
    OpProfileOptions o;
    o.grouping = OpProfileGrouping::ByCategory;
    const OpProfile p = buildOpProfile(cache, o);
    QProcess cli;
    cli.start(TRACEDESK_CLI, {"op-profile", path, "--json", "--by", "category"});
    QVERIFY(cli.waitForFinished(120000));
    QCOMPARE(cli.exitCode(), 0);
    const QJsonObject doc = QJsonDocument::fromJson(cli.readAllStandardOutput()).object();
    QCOMPARE(doc["device_type"].toString(), QString("TPU v6 Lite"));
    const QJsonObject root = doc["root"].toObject();
    QCOMPARE(root["time_ps"].toInteger(), p.root.metrics.timePs);
    const QJsonArray children = root["children"].toArray();
    QCOMPARE(children.size(), qsizetype(p.root.children.size()));
    QCOMPARE(children.first().toObject()["name"].toString().toStdString(),
             p.root.children[0].name);

    QProcess bad;
    bad.start(TRACEDESK_CLI, {"op-profile", path, "--by", "nonsense"});
    QVERIFY(bad.waitForFinished(120000));
    QCOMPARE(bad.exitCode(), 2);
}

QTEST_GUILESS_MAIN(TestOpProfile)
#include "tst_opprofile.moc"
