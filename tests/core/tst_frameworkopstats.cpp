// Framework op stats: hand-built op metrics pin the roll-up, ranking and fractions; the real GPU
// fixture's device rows are checked against per-op kernel sums computed from the protobuf.

#include "core/analysis/frameworkopstats.h"
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

OpMetrics op(const char *name, const char *category, const char *provenance, int64_t count,
             TimePs time, TimePs self)
{
    OpMetrics m;
    m.name = name;
    m.category = category;
    m.provenance = provenance;
    m.occurrences = count;
    m.timePs = time;
    m.selfTimePs = self;
    return m;
}

const FrameworkOpStatsRow *row(const FrameworkOpStatsTable &t, bool device, const char *name)
{
    for (const auto &r : t.rows) {
        if (r.onDevice == device && r.name == name)
            return &r;
    }
    return nullptr;
}

} // namespace

class TestFrameworkOpStats : public QObject
{
    Q_OBJECT

private slots:
    void rollsUpDeviceOps();
    void realGpuFixture();
    void cliJson();
};

void TestFrameworkOpStats::rollsUpDeviceOps()
{
    OpStats stats;
    stats.device.metrics = {op("a/MatMul/k1", "MatMul", "a/MatMul:MatMul", 3, 3'000'000, 3'000'000),
                            op("a/MatMul/k2", "MatMul", "a/MatMul:MatMul", 5, 1'000'000, 1'000'000),
                            op("b/Relu/k", "Relu", "b/Relu:Relu", 2, 2'000'000, 2'000'000),
                            op("IDLE", "IDLE", "", 1, 4'000'000, 4'000'000)};
    stats.host.metrics = {op("h/Foo", "Foo", "h/Foo:Foo", 4, 8'000'000, 6'000'000),
                          op("IDLE", "IDLE", "", 1, 2'000'000, 2'000'000)};
    const FrameworkOpStats s = frameworkOpStats(stats);

    const FrameworkOpStatsTable &w = s.withIdle;
    QCOMPARE(w.rows.size(), size_t(5));
    // Device rows first, ranked by self time: a/MatMul (4 us), IDLE (4 us), b/Relu (2 us).
    QVERIFY(w.rows[0].onDevice && w.rows[1].onDevice && w.rows[2].onDevice);
    const FrameworkOpStatsRow *mm = row(w, true, "a/MatMul");
    QVERIFY(mm);
    QCOMPARE(mm->type, std::string("MatMul"));
    QCOMPARE(mm->occurrences, int64_t(5));          // max over the merged kernels
    QCOMPARE(mm->totalSelfTimeUs, 4.0);
    QCOMPARE(mm->avgSelfTimeUs, 4.0 / 5);
    QCOMPARE(mm->selfTimeFraction, 0.4);            // of 10 us device self time
    const FrameworkOpStatsRow *relu = row(w, true, "b/Relu");
    QCOMPARE(relu->rank, 3);
    QCOMPARE(relu->cumulativeSelfTimeFraction, 1.0);
    const FrameworkOpStatsRow *foo = row(w, false, "h/Foo");
    QVERIFY(foo);
    QCOMPARE(foo->rank, 1);
    QCOMPARE(foo->totalTimeUs, 8.0);
    QCOMPARE(foo->selfTimeFraction, 0.75);

    const FrameworkOpStatsTable &wo = s.withoutIdle;
    QCOMPARE(wo.rows.size(), size_t(3));
    QVERIFY(!row(wo, true, "IDLE"));
    QCOMPARE(row(wo, true, "a/MatMul")->selfTimeFraction, 4.0 / 6.0);
    QCOMPARE(row(wo, false, "h/Foo")->selfTimeFraction, 1.0);
}

void TestFrameworkOpStats::realGpuFixture()
{
    const std::string path = std::string(TRACEDESK_SHARED_FIXTURES)
                             + "/xspace/xprof_GPU-multi-worker/34.83.195.179_6003.xplane.pb";
    if (!std::filesystem::exists(path))
        QSKIP("shared GPU fixture not present");
    tensorflow::profiler::XSpace space;
    std::ifstream in(path, std::ios::binary);
    QVERIFY(space.ParseFromIstream(&in));
    // op name -> (self time, kernels per kernel name)
    std::map<std::string, int64_t> self;
    std::map<std::string, std::map<std::string, int64_t>> counts;
    for (const auto &plane : space.planes()) {
        if (plane.name().rfind("/device:GPU:", 0) != 0)
            continue;
        for (const auto &line : plane.lines()) {
            if (line.name().rfind("Stream #", 0) != 0)
                continue;
            for (const auto &e : line.events()) {
                std::string op;
                for (const auto &s : e.stats()) {
                    if (plane.stat_metadata().at(s.metadata_id()).name() == "level 0")
                        op = s.has_ref_value()
                                 ? plane.stat_metadata().at(int64_t(s.ref_value())).name()
                                 : s.str_value();
                }
                if (op.empty())
                    continue;
                op = op.substr(0, op.find('#'));
                const std::string name = op.substr(0, op.rfind(':'));
                self[name] += e.duration_ps();
                ++counts[name][plane.event_metadata().at(e.metadata_id()).name()];
            }
        }
    }
    QVERIFY(!self.empty());
    auto trace = loadTrace(path);
    QVERIFY(trace);
    AnalysisCache cache(trace.value());
    const auto stats = frameworkOpStats(cache);
    const FrameworkOpStatsTable &t = stats->withoutIdle;
    size_t deviceRows = 0;
    double total = 0;
    for (const auto &[name, ps] : self)
        total += double(ps);
    for (const FrameworkOpStatsRow &r : t.rows) {
        if (!r.onDevice)
            continue;
        ++deviceRows;
        auto it = self.find(r.name);
        QVERIFY2(it != self.end(), r.name.c_str());
        QCOMPARE(r.totalSelfTimeUs, double(it->second) / 1e6);
        int64_t maxCount = 0;
        for (const auto &[kernel, n] : counts[r.name])
            maxCount = std::max(maxCount, n);
        QCOMPARE(r.occurrences, maxCount);
        QVERIFY(std::abs(r.selfTimeFraction - double(it->second) / total) < 1e-12);
    }
    QCOMPARE(deviceRows, std::min<size_t>(self.size(), 500));
    // The top device row is the op with the most kernel time.
    auto top = std::max_element(self.begin(), self.end(),
                                [](auto &a, auto &b) { return a.second < b.second; });
    QCOMPARE(t.rows.front().name, top->first);
    // IDLE is the device's largest row here (the device is mostly idle); without IDLE it is gone.
    QCOMPARE(stats->withIdle.rows.front().name, std::string("IDLE"));
    QVERIFY(std::none_of(t.rows.begin(), t.rows.end(),
                         [](const FrameworkOpStatsRow &r) { return r.name == "IDLE"; }));
    QCOMPARE(stats->deviceType, std::string("Nvidia GPU (Volta)"));
}

void TestFrameworkOpStats::cliJson()
{
    const QString path = QString::fromLatin1(TRACEDESK_SHARED_FIXTURES)
                         + "/xspace/xprof_GPU-multi-worker/34.83.195.179_6003.xplane.pb";
    if (!QFile::exists(path))
        QSKIP("shared GPU fixture not present");
    auto trace = loadTrace(path.toStdString());
    QVERIFY(trace);
    AnalysisCache cache(trace.value());
    const auto stats = frameworkOpStats(cache);
    QProcess cli;
    cli.start(TRACEDESK_CLI, {"op-stats", path, "--json", "--no-idle"});
    QVERIFY(cli.waitForFinished(120000));
    QCOMPARE(cli.exitCode(), 0);
    const QJsonObject doc = QJsonDocument::fromJson(cli.readAllStandardOutput()).object();
    const QJsonArray rows = doc["rows"].toArray();
    QCOMPARE(rows.size(), qsizetype(stats->withoutIdle.rows.size()));
    const QJsonObject first = rows.first().toObject();
    QCOMPARE(first["op_name"].toString().toStdString(), stats->withoutIdle.rows[0].name);
    QCOMPARE(first["host_or_device"].toString(), QString("Device"));
    QCOMPARE(first["total_self_time_us"].toDouble(), stats->withoutIdle.rows[0].totalSelfTimeUs);
    QCOMPARE(doc["device_type"].toString(), QString("Nvidia GPU (Volta)"));

    QProcess text;
    text.start(TRACEDESK_CLI, {"op-stats", path});
    QVERIFY(text.waitForFinished(120000));
    QCOMPARE(text.exitCode(), 0);
    QVERIFY(text.readAllStandardOutput().contains("IDLE"));

    QProcess bad;
    bad.start(TRACEDESK_CLI, {"op-stats"});
    QVERIFY(bad.waitForFinished(120000));
    QCOMPARE(bad.exitCode(), 2);
}

QTEST_GUILESS_MAIN(TestFrameworkOpStats)
#include "tst_frameworkopstats.moc"
