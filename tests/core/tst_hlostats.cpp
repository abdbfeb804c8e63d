// HLO Op Stats and Roofline: the TPU fixture's per-op numbers against sums computed here straight
// from the protobuf; the bound-by rule; the CLI JSON contract; XProf's own output files read back
// with the rows the raw JSON holds.
#include "core/analysis/hlosourcelines.h"
#include "core/analysis/hlostats.h"
#include "core/analysis/roofline.h"
#include "core/io/traceloader.h"
#include "core/legacy/legacyhlotools.h"
#include "support/clirun.h"
#include "support/kinetofixtures.h"
#include "xplane.pb.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QTemporaryDir>
#include <QtTest>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <map>

using namespace tracedesk::core;
using namespace tracedesk::core::analysis;

namespace {

const QString kTpu = QString(TRACEDESK_SHARED_FIXTURES)
                     + "/xspace/xprof_tpu_inference_2/tpu_inference_2.xplane.pb";
const QString kGolden = QString(TRACEDESK_SHARED_FIXTURES)
                        + "/legacy_tools/xprof_golden_tpu_training/data_tpu-training_";

using tensorflow::profiler::XPlane;
using tensorflow::profiler::XStat;

std::string statName(const XPlane &plane, int64_t id)
{
    auto it = plane.stat_metadata().find(id);
    return it == plane.stat_metadata().end() ? std::string() : it->second.name();
}

double statNumber(const XStat &s)
{
    switch (s.value_case()) {
    case XStat::kDoubleValue: return s.double_value();
    case XStat::kInt64Value: return double(s.int64_value());
    case XStat::kUint64Value: return double(s.uint64_value());
    default: return 0;
    }
}

// HBM bytes (read and written) and CMEM read / write bytes of a serialized
// MemoryAccessBreakdown (FORMATS.md: memory_accessed = 1 {operation_type = 1, memory_space = 2,
// bytes_accessed = 3}), decoded here from the wire format. False when malformed.
struct Breakdown
{
    double hbm = 0, cmemRead = 0, cmemWrite = 0;
};
bool varint(const std::string &s, size_t &i, uint64_t *v)
{
    *v = 0;
    for (int shift = 0; i < s.size() && shift < 64; shift += 7) {
        const uint8_t b = uint8_t(s[i++]);
        *v |= uint64_t(b & 0x7f) << shift;
        if (!(b & 0x80))
            return true;
    }
    return false;
}
bool decodeBreakdown(const std::string &s, Breakdown *out)
{
    size_t i = 0;
    while (i < s.size()) {
        uint64_t tag = 0, len = 0;
        if (!varint(s, i, &tag) || (tag & 7) != 2 || !varint(s, i, &len) || i + len > s.size())
            return false;
        const std::string m = s.substr(i, len);
        i += len;
        if ((tag >> 3) != 1)
            continue;
        uint64_t op = 0, space = 0, bytes = 0;
        for (size_t j = 0; j < m.size();) {
            uint64_t t = 0, v = 0;
            if (!varint(m, j, &t) || (t & 7) != 0 || !varint(m, j, &v))
                return false;
            (t >> 3) == 1 ? op = v : (t >> 3) == 2 ? space = v : (t >> 3) == 3 ? bytes = v : 0;
        }
        if (space == 1)
            out->hbm += double(bytes);
        else if (space == 2 && op == 1)
            out->cmemRead += double(bytes);
        else if (space == 2 && op == 2)
            out->cmemWrite += double(bytes);
    }
    return true;
}

struct Expect
{
    int64_t count = 0, time = 0, self = 0;
    double flops = 0, bytes = 0;
    bool hasBreakdown = false;
    Breakdown breakdown;          // summed over occurrences
    std::string source;
    std::string program;
};

bool close(double a, double b)
{
    return std::abs(a - b) <= 1e-9 * std::max({1.0, std::abs(a), std::abs(b)});
}

} // namespace

class TestHloStats : public QObject
{
    Q_OBJECT
private slots:
    void boundByFollowsRidge();
    void tpuOpsMatchRawEvents();
    void rooflineOnTpu();
    void cliJsonContract();
    void goldenHloStats();
    void goldenRoofline();
    void legacyFolder();
    void badFiles();
};

void TestHloStats::boundByFollowsRidge()
{
    QCOMPARE(boundByRidge(std::nullopt, 100), std::string("Unknown"));
    QCOMPARE(boundByRidge(50.0, 0), std::string("Unknown"));
    QCOMPARE(boundByRidge(99.9, 100), std::string("HBM"));
    QCOMPARE(boundByRidge(100.0, 100), std::string("Compute"));
}

void TestHloStats::tpuOpsMatchRawEvents()
{
    TRACEDESK_REQUIRE_FIXTURE(kTpu);
    tensorflow::profiler::XSpace space;
    std::ifstream in(kTpu.toStdString(), std::ios::binary);
    QVERIFY(in && space.ParseFromIstream(&in));
    std::map<std::string, Expect> expected;
    double peakTflops = 0, peakHbm = 0;
    for (const auto &plane : space.planes()) {
        if (plane.name().rfind("/device:TPU:", 0) != 0)
            continue;
        for (const auto &s : plane.stats()) {
            const std::string n = statName(plane, s.metadata_id());
            if (n == "peak_teraflops_per_second" && peakTflops == 0)
                peakTflops = statNumber(s);
            if (n == "peak_hbm_bw_gigabytes_per_second" && peakHbm == 0)
                peakHbm = statNumber(s);
        }
        for (const auto &line : plane.lines()) {
            if (line.name() != "XLA Ops")
                continue;
            struct Ev { int64_t start, dur; std::string name; };
            std::vector<Ev> evs;
            for (const auto &e : line.events()) {
                const auto &md = plane.event_metadata().at(e.metadata_id());
                const std::string name = md.display_name().empty() ? md.name() : md.display_name();
                double flops = 0, bytes = 0;
                Breakdown breakdown;
                bool hasBreakdown = false;
                auto take = [&](const XStat &s) {
                    const std::string n = statName(plane, s.metadata_id());
                    if (n == "program_id")
                        expected[name].program =
                            std::to_string(s.value_case() == XStat::kUint64Value
                                               ? s.uint64_value()
                                               : uint64_t(s.int64_value()));
                    else if (n == "source")
                        expected[name].source = s.has_ref_value()
                                                    ? statName(plane, int64_t(s.ref_value()))
                                                    : s.str_value();
                    else if (n == "flops")
                        flops = statNumber(s);
                    else if (n == "bytes_accessed")
                        bytes = statNumber(s);
                    else if (n == "memory_access_breakdown")
                        hasBreakdown = decodeBreakdown(s.bytes_value(), &breakdown);
                };
                for (const auto &s : md.stats())
                    take(s);
                for (const auto &s : e.stats())
                    take(s);
                expected[name].flops += flops;
                expected[name].bytes += bytes;
                if (hasBreakdown) {
                    expected[name].hasBreakdown = true;
                    expected[name].breakdown.hbm += breakdown.hbm;
                    expected[name].breakdown.cmemRead += breakdown.cmemRead;
                    expected[name].breakdown.cmemWrite += breakdown.cmemWrite;
                }
                evs.push_back({e.offset_ps(), e.duration_ps(), name});
            }
            std::stable_sort(evs.begin(), evs.end(), [](const Ev &a, const Ev &b) {
                return a.start != b.start ? a.start < b.start : a.dur > b.dur;
            });
            struct Open { int64_t end, dur, child; std::string name; };
            std::vector<Open> stack;
            auto pop = [&] {
                expected[stack.back().name].self += stack.back().dur - stack.back().child;
                stack.pop_back();
            };
            for (const Ev &e : evs) {
                while (!stack.empty() && stack.back().end <= e.start)
                    pop();
                if (!stack.empty())
                    stack.back().child += e.dur;
                ++expected[e.name].count;
                expected[e.name].time += e.dur;
                stack.push_back({e.start + e.dur, e.dur, 0, e.name});
            }
            while (!stack.empty())
                pop();
        }
    }
    QVERIFY(!expected.empty());
    // The fixture's breakdowns leave some bytes out of HBM, so the check below can tell them.
    QVERIFY(std::any_of(expected.begin(), expected.end(), [](const auto &e) {
        return e.second.hasBreakdown && !close(e.second.breakdown.hbm, e.second.bytes);
    }));
    QVERIFY(peakTflops > 0 && peakHbm > 0);
    const double ridge = peakTflops * 1000 / peakHbm;

    auto trace = loadTrace(kTpu.toStdString());
    QVERIFY(trace);
    AnalysisCache cache(trace.value());
    const auto stats = hloStats(cache);
    QVERIFY(close(stats->ridgePoint, ridge));
    QCOMPARE(stats->rows.size(), expected.size());
    size_t sourced = 0;
    for (const auto &[name, e] : expected)
        sourced += e.source.empty() ? 0 : 1;
    QVERIFY(sourced > 0);
    for (const HloStatsRow &r : stats->rows) {
        auto it = expected.find(r.hloOpName);
        QVERIFY2(it != expected.end(), r.hloOpName.c_str());
        const Expect &e = it->second;
        QCOMPARE(r.occurrences, e.count);
        QCOMPARE(r.sourceInfo, e.source);
        QCOMPARE(r.programId, e.program);
        QVERIFY(close(r.totalTimeUs, double(e.time) / 1e6));
        QVERIFY(close(r.totalSelfTimeUs, double(e.self) / 1e6));
        QVERIFY(r.flops && r.bytesAccessed && r.gflopsPerSecond);
        QVERIFY(close(*r.flops, e.flops));
        QVERIFY(close(*r.bytesAccessed, e.bytes));
        // XLA Ops on this device do not nest, so time and self time agree and the rate is
        // flops over self time as well as over time.
        QCOMPARE(e.time, e.self);
        QVERIFY(close(*r.gflopsPerSecond, e.flops / (double(e.self) / 1000.0)));
        // Bandwidths: all bytes, and the HBM share the op's breakdown names (XProf's hbm_bw),
        // in GiB/s over the op's time.
        const double ns = double(e.time) / 1000.0;
        QVERIFY(r.memoryBwGibPerSecond && r.hbmBwGibPerSecond);
        QVERIFY(close(*r.memoryBwGibPerSecond, e.bytes / ns * 1e9 / 1073741824.0));
        const double hbm = e.hasBreakdown ? e.breakdown.hbm : e.bytes;
        QVERIFY2(close(*r.hbmBwGibPerSecond, hbm / ns * 1e9 / 1073741824.0), r.hloOpName.c_str());
        if (e.hasBreakdown) {
            QVERIFY(r.cmemReadBwGibPerSecond && r.cmemWriteBwGibPerSecond);
            QVERIFY(close(*r.cmemReadBwGibPerSecond,
                          e.breakdown.cmemRead / ns * 1e9 / 1073741824.0));
            QVERIFY(close(*r.cmemWriteBwGibPerSecond,
                          e.breakdown.cmemWrite / ns * 1e9 / 1073741824.0));
        }
        if (e.bytes > 0) {
            QVERIFY(r.operationalIntensity);
            QVERIFY(close(*r.operationalIntensity, e.flops / e.bytes));
            QCOMPARE(r.boundBy,
                     std::string(e.flops / e.bytes >= ridge ? "Compute" : "HBM"));
        } else {
            QVERIFY(!r.operationalIntensity);
            QCOMPARE(r.boundBy, std::string("Unknown"));
        }
    }
    for (size_t i = 1; i < stats->rows.size(); ++i)
        QVERIFY(stats->rows[i - 1].totalSelfTimeUs >= stats->rows[i].totalSelfTimeUs);
    QVERIFY(std::abs(stats->rows.back().cumulativeSelfTimePercent - 100.0) < 1e-6);

    // Grouped by source line: the raw sums of the ops each line produced.
    std::map<std::string, Expect> byLine;
    for (const auto &[name, e] : expected) {
        Expect &l = byLine[e.source.empty() ? std::string(kNoSourceLine) : e.source];
        l.count += e.count;
        l.time += e.time;
        l.self += e.self;
        l.flops += e.flops;
        l.bytes += e.bytes;
    }
    const HloStats lines = groupHloStatsBySource(*stats);
    QCOMPARE(lines.rows.size(), byLine.size());
    QVERIFY(lines.rows.size() > 1);
    for (const HloStatsRow &r : lines.rows) {
        auto it = byLine.find(r.hloOpName);
        QVERIFY2(it != byLine.end(), r.hloOpName.c_str());
        const Expect &e = it->second;
        QCOMPARE(r.occurrences, e.count);
        QVERIFY(close(r.totalSelfTimeUs, double(e.self) / 1e6));
        QVERIFY(r.flops && close(*r.flops, e.flops));
        if (e.bytes > 0)
            QVERIFY(r.operationalIntensity && close(*r.operationalIntensity, e.flops / e.bytes));
        if (e.time > 0)
            QVERIFY(close(*r.gflopsPerSecond, e.flops / (double(e.time) / 1000.0)));
    }
    QVERIFY(std::abs(lines.rows.back().cumulativeSelfTimePercent - 100.0) < 1e-6);

    // The CLI's --by-source rows are the same lines.
    const auto run = clitest::runCli({"hlo-stats", "--by-source", "--json", kTpu});
    QVERIFY2(run.exitCode == 0, run.err.constData());
    const QJsonArray rows = QJsonDocument::fromJson(run.out).object().value("rows").toArray();
    QCOMPARE(rows.size(), qsizetype(byLine.size()));
    for (const QJsonValue &v : rows) {
        const QJsonObject o = v.toObject();
        const auto it = byLine.find(o.value("hlo_op_name").toString().toStdString());
        QVERIFY(it != byLine.end());
        QCOMPARE(o.value("occurrences").toInteger(), it->second.count);
    }
}

void TestHloStats::rooflineOnTpu()
{
    TRACEDESK_REQUIRE_FIXTURE(kTpu);
    auto trace = loadTrace(kTpu.toStdString());
    QVERIFY(trace);
    AnalysisCache cache(trace.value());
    const auto model = rooflineModel(cache);
    const auto stats = hloStats(cache);
    QVERIFY(!model->rooflines.empty());
    QCOMPARE(model->rooflines.front().memory, std::string("HBM"));
    QVERIFY(close(model->rooflines.front().ridgePoint, stats->ridgePoint));
    for (const Roofline &r : model->rooflines)
        QVERIFY(close(r.ridgePoint, model->peakGigaFlopsPerSecond / r.peakGigaBytesPerSecond));
    QVERIFY(!model->points.empty());
    const RooflinePoint &total = model->points.front();
    QCOMPARE(total.kind, RooflinePoint::Kind::Total);
    double flops = 0, bytes = 0;
    for (const HloStatsRow &r : stats->rows) {
        flops += r.flops.value_or(0);
        bytes += r.bytesAccessed.value_or(0);
    }
    QVERIFY(total.flops && close(*total.flops, flops));
    QVERIFY(total.operationalIntensity && close(*total.operationalIntensity, flops / bytes));
    const size_t ops = std::count_if(model->points.begin(), model->points.end(),
                                     [](const RooflinePoint &p) {
                                         return p.kind == RooflinePoint::Kind::Op;
                                     });
    QCOMPARE(ops, std::min<size_t>(100, stats->rows.size()));
}

void TestHloStats::cliJsonContract()
{
    TRACEDESK_REQUIRE_FIXTURE(kTpu);
    QProcess cli;
    cli.start(TRACEDESK_CLI, {"hlo-stats", kTpu, "--json"});
    QVERIFY(cli.waitForFinished(120000));
    QCOMPARE(cli.exitCode(), 0);
    const QJsonArray rows =
        QJsonDocument::fromJson(cli.readAllStandardOutput()).object()["rows"].toArray();
    QVERIFY(!rows.isEmpty());
    for (const QJsonValue &v : rows) {
        const QJsonObject o = v.toObject();
        for (const char *key : {"hlo_op_name", "category", "occurrences", "total_time_us",
                                "total_self_time_us", "gflops_per_s", "operational_intensity",
                                "bound_by"})
            QVERIFY2(o.contains(key), key);
    }
    QProcess roof;
    roof.start(TRACEDESK_CLI, {"roofline", kTpu, "--json"});
    QVERIFY(roof.waitForFinished(120000));
    QCOMPARE(roof.exitCode(), 0);
    const QJsonObject r = QJsonDocument::fromJson(roof.readAllStandardOutput()).object();
    QVERIFY(!r["rooflines"].toArray().isEmpty());
    QVERIFY(!r["points"].toArray().isEmpty());
}

void TestHloStats::goldenHloStats()
{
    const QString path = kGolden + "hlo_stats_tpu_training.json.gz";
    TRACEDESK_REQUIRE_FIXTURE(path);
    const QJsonObject raw = QJsonDocument::fromJson(testsupport::readMaybeGzip(path)).object();
    QStringList ids;
    for (const QJsonValue &c : raw["cols"].toArray())
        ids << c.toObject()["id"].toString();
    const QJsonArray rows = raw["rows"].toArray();
    auto read = legacy::readHloStatsJsonFile(path.toStdString());
    QVERIFY2(read, read ? "" : read.message().c_str());
    const HloStats &s = read.value();
    QCOMPARE(qsizetype(s.rows.size()), rows.size());
    for (qsizetype i = 0; i < rows.size(); ++i) {
        const QJsonArray c = rows[i].toObject()["c"].toArray();
        auto cell = [&](const char *id) { return c[ids.indexOf(id)].toObject().value("v"); };
        const HloStatsRow &r = s.rows[size_t(i)];
        QCOMPARE(QString::fromStdString(r.hloOpName), cell("hlo_op_name").toString());
        QCOMPARE(QString::fromStdString(r.category), cell("category").toString());
        QCOMPARE(QString::fromStdString(r.boundBy), cell("bound_by").toString());
        QCOMPARE(double(r.occurrences), cell("occurrences").toDouble());
        QCOMPARE(r.totalSelfTimeUs, cell("total_self_time").toDouble());
        QVERIFY(r.operationalIntensity);
        QCOMPARE(*r.operationalIntensity, cell("operational_intensity").toDouble());
    }
}

void TestHloStats::goldenRoofline()
{
    const QString path = kGolden + "roofline_model_tpu_training.json.gz";
    TRACEDESK_REQUIRE_FIXTURE(path);
    const QJsonArray tables = QJsonDocument::fromJson(testsupport::readMaybeGzip(path)).array();
    const QJsonObject raw = tables.first().toObject();
    QStringList ids;
    for (const QJsonValue &c : raw["cols"].toArray())
        ids << c.toObject()["id"].toString();
    const QJsonArray rows = raw["rows"].toArray();
    auto read = legacy::readRooflineJsonFile(path.toStdString());
    QVERIFY2(read, read ? "" : read.message().c_str());
    const RooflineModel &m = read.value();
    QCOMPARE(qsizetype(m.points.size()), rows.size());
    QCOMPARE(m.peakGigaFlopsPerSecond, raw["p"].toObject()["peak_flop_rate"].toString().toDouble());
    QVERIFY(!m.rooflines.empty());
    QCOMPARE(m.rooflines.front().ridgePoint,
             raw["p"].toObject()["hbm_ridge_point"].toString().toDouble());
    for (qsizetype i = 0; i < rows.size(); ++i) {
        const QJsonArray c = rows[i].toObject()["c"].toArray();
        auto cell = [&](const char *id) { return c[ids.indexOf(id)].toObject().value("v"); };
        const RooflinePoint &p = m.points[size_t(i)];
        QCOMPARE(QString::fromStdString(p.step), cell("step").toString());
        QCOMPARE(QString::fromStdString(p.name), cell("operation").toString());
        QCOMPARE(QString::fromStdString(p.boundBy), cell("bound_by").toString());
        QVERIFY(p.gflopsPerSecond);
        QCOMPARE(*p.gflopsPerSecond, cell("measured_flop_rate").toDouble());
    }
}

void TestHloStats::legacyFolder()
{
    const QString golden = kGolden + "hlo_stats_tpu_training.json.gz";
    TRACEDESK_REQUIRE_FIXTURE(golden);
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const QByteArray raw = testsupport::readMaybeGzip(golden);
    QFile out(dir.filePath("host0.hlo_stats.json"));
    QVERIFY(out.open(QIODevice::WriteOnly));
    out.write(raw);
    out.close();
    const qsizetype rows = QJsonDocument::fromJson(raw).object()["rows"].toArray().size();
    QProcess cli;
    cli.start(TRACEDESK_CLI, {"hlo-stats", dir.path(), "--json"});
    QVERIFY(cli.waitForFinished(120000));
    QCOMPARE(cli.exitCode(), 0);
    const QJsonObject o = QJsonDocument::fromJson(cli.readAllStandardOutput()).object();
    QCOMPARE(o["rows"].toArray().size(), rows);
    QVERIFY(o["source"].toString().endsWith("host0.hlo_stats.json"));
}

void TestHloStats::badFiles()
{
    const QString dir = QDir::tempPath() + "/tst_hlostats_bad";
    QDir().mkpath(dir);
    const std::string notJson = (dir + "/x.hlo_stats.json").toStdString();
    std::ofstream(notJson) << "{ nope";
    auto a = legacy::readHloStatsJsonFile(notJson);
    QVERIFY(!a);
    QVERIFY(a.message().find(notJson) != std::string::npos);
    const std::string noTable = (dir + "/x.roofline_model.json").toStdString();
    std::ofstream(noTable) << "[]";
    auto b = legacy::readRooflineJsonFile(noTable);
    QVERIFY(!b);
    QVERIFY(b.message().find("empty") != std::string::npos);
    auto c = legacy::readHloStatsJsonFile((dir + "/missing.hlo_stats.json").toStdString());
    QVERIFY(!c);
}

QTEST_GUILESS_MAIN(TestHloStats)
#include "tst_hlostats.moc"
