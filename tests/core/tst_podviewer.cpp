// Pod viewer: multi-host step alignment and per-category values on tiny hand-built traces, the
// real multi-worker GPU file against an independent walk of its XSpace, and the legacy
// pod_viewer.json files against an independent QJsonDocument reading.

#include "core/analysis/podviewer.h"
#include "core/io/traceloader.h"
#include "core/model/tracebuilder.h"

#include "xplane.pb.h"

#include <QtTest>

#include <fstream>
#include <map>
#include <set>

using namespace tracedesk::core;
using namespace tracedesk::core::analysis;
using tensorflow::profiler::XPlane;
using tensorflow::profiler::XSpace;

namespace {

constexpr TimePs kUs = 1000000;
const QString kGpu = QStringLiteral(TRACEDESK_SHARED_FIXTURES)
                     + "/xspace/xprof_GPU-multi-worker/34.83.195.179_6003.xplane.pb";
const QString kLegacyDir = QStringLiteral(TRACEDESK_SHARED_FIXTURES) + "/legacy_tools/";

// A CPU-only host: per step a train marker of stepUs, an op of opUs at +100 and an input wait
// of 100 us ending 100 us before the step end. Host compute = opUs, Input = 100,
// All others = stepUs - opUs - 100.
void addHost(TraceBuilder &b, const char *host, int64_t firstGroup, std::vector<int64_t> beginsUs,
             int64_t stepUs, int64_t opUs)
{
    const uint32_t plane = b.addPlane("/host:CPU", host, 0, PlaneKind::Host);
    const uint32_t t = b.addTrack(plane, "python", 1);
    EventKind k;
    k.plane = plane;
    k.name = b.intern("train_step");
    const uint32_t train = b.addKind(k);
    k.name = b.intern("model/dense/MatMul:MatMul");
    const uint32_t op = b.addKind(k);
    k.name = b.intern("IteratorGetNext");
    const uint32_t next = b.addKind(k);
    auto &tb = b.trackBuilder(t);
    for (size_t s = 0; s < beginsUs.size(); ++s) {
        const TimePs base = beginsUs[s] * kUs;
        const int64_t g = firstGroup + int64_t(s);
        tb.setSide(tb.addSlice(base, stepUs * kUs, train), SideColumn::GroupId, g);
        tb.setSide(tb.addSlice(base + 100 * kUs, opUs * kUs, op), SideColumn::GroupId, g);
        const uint32_t wait = tb.addSlice(base + (stepUs - 200) * kUs, 100 * kUs, next);
        tb.setSide(wait, SideColumn::GroupId, g);
    }
}

double category(const PodViewerData &d, const PodRecord &r, const char *name)
{
    for (size_t i = 0; i < d.series.size(); ++i) {
        if (d.series[i] == name)
            return r.valuesUs[i];
    }
    return -1;
}

} // namespace

class TestPodViewer : public QObject
{
    Q_OBJECT

private slots:
    void shiftedHostsAlign();
    void emptyIntersection();
    void gpuFixture();
    void legacyFiles_data();
    void legacyFiles();
    void badFiles();
    void tpuWithoutStepMarkers();
    void cli();
};

void TestPodViewer::shiftedHostsAlign()
{
    TraceBuilder b;
    addHost(b, "a", 0, {0, 1000, 2000, 3000}, 800, 400);    // total 3800 us
    addHost(b, "b", 10, {1000, 2000, 3000}, 700, 300);      // total 2700 us: the chief
    AnalysisCache cache(b.build());
    auto d = podViewer(cache);
    QCOMPARE(d->hosts.size(), size_t(2));
    QCOMPARE(d->chief, 1);
    QVERIFY(d->hosts[1].chief);
    QCOMPARE(d->hosts[0].totalPs, 3800 * kUs);
    QCOMPARE(d->hosts[1].totalPs, 2700 * kUs);
    // Host a's step 1 overlaps the chief's step 0: offset k = -1.
    QCOMPARE(d->hosts[0].beginHost, 1);
    QCOMPARE(d->hosts[0].beginChief, 0);
    QCOMPARE(d->hosts[0].count, 3);
    QVERIFY(!d->emptyIntersection);
    QCOMPARE(d->deviceType, std::string("CPU"));
    QCOMPARE(d->series.size(), size_t(9));
    QCOMPARE(d->steps.size(), size_t(3));
    for (int i = 0; i < 3; ++i) {
        const PodStep &s = d->steps[size_t(i)];
        QCOMPARE(s.stepNum, int64_t(i));
        QCOMPARE(s.records.size(), size_t(2));
        const PodRecord &a = s.records[0], &bb = s.records[1];
        QCOMPARE(d->hostOf(a), std::string("a"));
        QCOMPARE(a.coreId, 1u);
        QCOMPARE(d->hostOf(bb), std::string("b"));
        QCOMPARE(bb.coreId, 1001u);
        QCOMPARE(a.stepNum, int64_t(i));
        QCOMPARE(a.hostStep, int64_t(i + 1));
        QCOMPARE(bb.hostStep, int64_t(10 + i));
        QCOMPARE(a.totalUs, 800.0);
        QCOMPARE(category(*d, a, "Host compute"), 400.0);
        QCOMPARE(category(*d, a, "Input"), 100.0);
        QCOMPARE(category(*d, a, "All others"), 300.0);
        QCOMPARE(category(*d, a, "Device compute"), 0.0);
        QCOMPARE(d->bottleneckOf(a), std::string("Host compute"));
        QCOMPARE(bb.totalUs, 700.0);
        QCOMPARE(category(*d, bb, "Host compute"), 300.0);
        QCOMPARE(category(*d, bb, "Input"), 100.0);
        QCOMPARE(category(*d, bb, "All others"), 300.0);
        // A 300/300 tie: the lexicographically greater name wins.
        QCOMPARE(d->bottleneckOf(bb), std::string("Host compute"));
    }
    QVERIFY(d->diagnostics.warnings.empty());
    QCOMPARE(podViewer(cache).get(), d.get());
}

void TestPodViewer::emptyIntersection()
{
    TraceBuilder b;
    addHost(b, "c", 0, {10000, 11000, 12000}, 800, 400);             // chief, total 2800
    addHost(b, "x", 0, {12000, 13000, 14000, 15000}, 800, 400);      // matches chief step 2
    addHost(b, "y", 0, {7000, 8000, 9000, 10000}, 800, 400);         // matches chief step 0
    AnalysisCache cache(b.build());
    auto d = podViewer(cache);
    QCOMPARE(d->chief, 0);
    QCOMPARE(d->hosts[1].beginChief, 2);
    QCOMPARE(d->hosts[1].beginHost, 0);
    QCOMPARE(d->hosts[1].count, 1);
    QCOMPARE(d->hosts[2].beginChief, 0);
    QCOMPARE(d->hosts[2].beginHost, 3);
    QCOMPARE(d->hosts[2].count, 1);
    QVERIFY(d->emptyIntersection);
    QVERIFY(d->steps.empty());
    QCOMPARE(d->diagnostics.warnings.size(), size_t(1));
    const QString w = QString::fromStdString(d->diagnostics.warnings.front());
    QVERIFY2(w.contains("empty intersection") && w.contains("of y end before those of x"),
             qPrintable(w));
}

void TestPodViewer::gpuFixture()
{
    if (!QFile::exists(kGpu))
        QSKIP("shared GPU multi-worker fixture not found (shared/fixtures/real)");
    XSpace space;
    {
        std::ifstream in(kGpu.toStdString(), std::ios::binary);
        QVERIFY(in && space.ParseFromIstream(&in));
    }
    // Independent: per group, the longest `Steps` marker on a GPU plane with a grouped kernel
    // (correlation_id) of the same group; the longest host train*/step_name marker replaces it
    // when it contains it.
    auto statsOf = [](const XPlane &p) {
        std::map<int64_t, std::string> names;
        for (const auto &[id, m] : p.stat_metadata())
            names[id] = m.name();
        return names;
    };
    auto findStat = [](const XPlane &p, const std::map<int64_t, std::string> &names,
                       const tensorflow::profiler::XEvent &e, const std::string &name,
                       int64_t *value) {
        auto scan = [&](const auto &stats) {
            for (const auto &s : stats) {
                auto it = names.find(s.metadata_id());
                if (it != names.end() && it->second == name) {
                    *value = s.has_int64_value() ? s.int64_value() : int64_t(s.uint64_value());
                    return true;
                }
            }
            return false;
        };
        if (scan(e.stats()))
            return true;
        auto md = p.event_metadata().find(e.metadata_id());
        return md != p.event_metadata().end() && scan(md->second.stats());
    };
    using Span = std::pair<int64_t, int64_t>;   // begin, duration
    auto offer = [](std::map<int64_t, Span> &m, int64_t g, int64_t begin, int64_t dur) {
        auto it = m.find(g);
        if (it == m.end() || dur > it->second.second)
            m[g] = {begin, dur};
    };
    std::map<int64_t, Span> device, host;
    for (const XPlane &p : space.planes()) {
        if (p.name().rfind("/device:GPU:", 0) != 0)
            continue;
        const auto names = statsOf(p);
        std::map<int64_t, Span> markers;
        std::set<int64_t> withKernels;
        for (const auto &line : p.lines()) {
            const int64_t derivedBase = int32_t(0xdeadbeef);
            const bool derived = line.id() >= derivedBase && line.id() <= derivedBase + 289;
            for (const auto &e : line.events()) {
                int64_t g = -1, corr = -1;
                if (!findStat(p, names, e, "group_id", &g) || g < 0)
                    continue;
                const int64_t begin = line.timestamp_ns() * 1000 + e.offset_ps();
                if (line.name() == "Steps")
                    offer(markers, g, begin, e.duration_ps());
                else if (!derived && findStat(p, names, e, "correlation_id", &corr))
                    withKernels.insert(g);
            }
        }
        for (const auto &[g, m] : markers) {
            if (withKernels.count(g))
                offer(device, g, m.first, m.second);
        }
    }
    for (const XPlane &p : space.planes()) {
        if (p.name() != "/host:CPU")
            continue;
        const auto names = statsOf(p);
        for (const auto &line : p.lines()) {
            for (const auto &e : line.events()) {
                int64_t g = -1;
                if (!findStat(p, names, e, "group_id", &g) || !device.count(g))
                    continue;
                const std::string &n = p.event_metadata().at(e.metadata_id()).name();
                const bool named = (n.rfind("train", 0) == 0 || n.rfind("test", 0) == 0
                                    || n.rfind("TraceContext", 0) == 0)
                                   && n.find('/') == std::string::npos;
                int64_t stepName = 0;
                const bool implicit = findStat(p, names, e, "step_name", &stepName);
                if (named || implicit)
                    offer(host, g, line.timestamp_ns() * 1000 + e.offset_ps(), e.duration_ps());
            }
        }
    }
    std::map<int64_t, double> expectedUs;
    for (const auto &[g, d] : device) {
        auto h = host.find(g);
        const bool contains = h != host.end() && h->second.first <= d.first
                              && d.first + d.second <= h->second.first + h->second.second;
        expectedUs[g] = double(contains ? h->second.second : d.second) / 1e6;
    }
    QVERIFY(!expectedUs.empty());

    auto trace = loadTrace(kGpu.toStdString());
    QVERIFY2(trace, trace ? "" : trace.message().c_str());
    AnalysisCache cache(trace.value());
    auto d = podViewer(cache);
    QCOMPARE(d->deviceType, std::string("GPU"));
    QVERIFY(!d->tpu);
    QCOMPARE(d->hosts.size(), size_t(1));   // one XSpace: one worker
    QCOMPARE(d->steps.size(), expectedUs.size());
    for (const PodStep &s : d->steps) {
        QCOMPARE(s.records.size(), size_t(1));
        const PodRecord &r = s.records.front();
        QCOMPARE(d->hostOf(r), std::string("34.83.195.179:6003"));
        QCOMPARE(r.coreId, 1u);
        QVERIFY(expectedUs.count(s.stepNum));
        QCOMPARE(r.totalUs, expectedUs[s.stepNum]);
        double sum = 0;
        for (double v : r.valuesUs)
            sum += v;
        QVERIFY(sum <= r.totalUs * (1 + 1e-12));
        QVERIFY(category(*d, r, "Device compute") > 0);
    }
}

void TestPodViewer::legacyFiles_data()
{
    QTest::addColumn<QString>("path");
    QTest::newRow("cloud-tpu") << kLegacyDir + "xprof_demo_Cloud-TPU/10.240.1.50.pod_viewer.json";
    QTest::newRow("profile-demo") << kLegacyDir + "xprof_profile_demo/profile_demo.pod_viewer.json";
}

void TestPodViewer::legacyFiles()
{
    QFETCH(QString, path);
    if (!QFile::exists(path))
        QSKIP("shared legacy fixture not found (shared/fixtures/real)");
    QFile f(path);
    QVERIFY(f.open(QIODevice::ReadOnly));
    const QJsonObject top = QJsonDocument::fromJson(f.readAll()).object();
    const QJsonArray maps = top["podStatsSequence"].toObject()["podStatsMap"].toArray();
    QVERIFY(!maps.isEmpty());

    auto read = readPodViewerJsonFile(path.toStdString());
    QVERIFY2(read, read ? "" : read.message().c_str());
    const PodViewerData &d = read.value();
    QVERIFY(d.legacy);
    QVERIFY(d.tpu);
    QCOMPARE(d.series.size(), size_t(8));
    QCOMPARE(QString::fromStdString(d.deviceType),
             top["runEnvironment"].toObject()["tpuType"].toString());
    QCOMPARE(d.steps.size(), size_t(maps.size()));
    for (qsizetype m = 0; m < maps.size(); ++m) {
        const QJsonObject map = maps[m].toObject();
        const QJsonObject perCore = map["podStatsPerCore"].toObject();
        const PodStep &s = d.steps[size_t(m)];
        QCOMPARE(s.stepNum, int64_t(map["stepNum"].toVariant().toLongLong()));
        QCOMPARE(s.records.size(), size_t(perCore.size()));
        for (const PodRecord &r : s.records) {
            const QJsonObject rec = perCore[QString::number(r.coreId)].toObject();
            QVERIFY(!rec.isEmpty());
            QCOMPARE(QString::fromStdString(d.hostOf(r)), rec["hostName"].toString());
            QCOMPARE(r.chipId, rec["chipId"].toVariant().toInt());
            QCOMPARE(r.nodeId, rec["nodeId"].toVariant().toInt());
            QCOMPARE(r.totalUs, rec["totalDurationUs"].toDouble());
            QCOMPARE(QString::fromStdString(d.bottleneckOf(r)), rec["bottleneck"].toString());
            QCOMPARE(r.valuesUs[0], rec["highFlopsComputeUs"].toDouble());
            QCOMPARE(r.valuesUs[6], rec["sendDurationUs"].toDouble());
            double others = 0;
            for (const char *k : {"highFlopsComputeUs", "hostInfeedDurationUs",
                                  "hostOutfeedDurationUs", "allReduceComputeDurationUs",
                                  "allReduceSyncDurationUs", "sendDurationUs", "recvDurationUs"})
                others += rec[k].toDouble();
            QVERIFY(qAbs(r.valuesUs[1] - (rec["totalDurationUs"].toDouble() - others)) < 1e-6);
            QVERIFY(r.valuesUs[1] > 0);   // FORMATS.md: the listed fields sum below the total
        }
    }
}

void TestPodViewer::badFiles()
{
    QTemporaryDir dir;
    const QString bad = dir.filePath("bad.pod_viewer.json");
    QFile f(bad);
    QVERIFY(f.open(QIODevice::WriteOnly));
    f.write("{\"podStatsSequence\": [1, 2");
    f.close();
    auto r = readPodViewerJsonFile(bad.toStdString());
    QVERIFY(!r);
    QVERIFY(QString::fromStdString(r.message()).contains("bad.pod_viewer.json"));
    const QString wrong = dir.filePath("wrong.pod_viewer.json");
    QFile g(wrong);
    QVERIFY(g.open(QIODevice::WriteOnly));
    g.write("{\"hello\": 1}");
    g.close();
    auto w = readPodViewerJsonFile(wrong.toStdString());
    QVERIFY(!w);
    QVERIFY(QString::fromStdString(w.message())
                .contains("wrong.pod_viewer.json: is not a pod viewer file"));
    QVERIFY(!readPodViewerJsonFile(dir.filePath("missing.pod_viewer.json").toStdString()));
    // More series than a record holds is refused, not cut short.
    const QString many = dir.filePath("many.pod_viewer.json");
    QFile h(many);
    QVERIFY(h.open(QIODevice::WriteOnly));
    QByteArray events;
    for (int i = 1; i <= 10; ++i)
        events += (i > 1 ? "," : "") + QByteArray("{\"id\":") + QByteArray::number(i)
                  + ",\"name\":\"s" + QByteArray::number(i) + "\"}";
    h.write("{\"stepBreakdownEvents\":[" + events + "],\"podStatsSequence\":{}}");
    h.close();
    auto m = readPodViewerJsonFile(many.toStdString());
    QVERIFY(!m);
    QVERIFY2(QString::fromStdString(m.message()).contains("many.pod_viewer.json"),
             m.message().c_str());
    QVERIFY(QString::fromStdString(m.message()).contains("lists 10 series"));
}

void TestPodViewer::tpuWithoutStepMarkers()
{
    const QString path = QStringLiteral(TRACEDESK_SHARED_FIXTURES)
                         + "/xspace/xprof_tpu_inference_2/tpu_inference_2.xplane.pb";
    if (!QFile::exists(path))
        QSKIP("shared TPU fixture not found (shared/fixtures/real)");
    auto trace = loadTrace(path.toStdString());
    QVERIFY2(trace, trace ? "" : trace.message().c_str());
    AnalysisCache cache(trace.value());
    auto d = podViewer(cache);
    QCOMPARE(d->deviceType, std::string("TPU"));
    QVERIFY(d->tpu);
    QVERIFY(d->steps.empty());   // PROVENANCE: no `Steps` line events on the TensorCores
    QCOMPARE(d->diagnostics.warnings.size(), size_t(1));
    QCOMPARE(d->diagnostics.warnings.front(), std::string(kNoStepMarkerMessage));
}

void TestPodViewer::cli()
{
    const QString cli = QStringLiteral(TRACEDESK_CLI);
    const QString path = kLegacyDir + "xprof_profile_demo/profile_demo.pod_viewer.json";
    if (!QFile::exists(cli) || !QFile::exists(path))
        QSKIP("tracedesk-cli or the shared legacy fixture is missing");
    QProcess p;
    p.start(cli, {"pod", path, "--json"});
    QVERIFY(p.waitForFinished(60000));
    QCOMPARE(p.exitCode(), 0);
    const QJsonObject out = QJsonDocument::fromJson(p.readAllStandardOutput()).object();
    QFile f(path);
    QVERIFY(f.open(QIODevice::ReadOnly));
    const QJsonArray maps = QJsonDocument::fromJson(f.readAll())
                                .object()["podStatsSequence"].toObject()["podStatsMap"].toArray();
    const QJsonArray steps = out["steps"].toArray();
    QCOMPARE(steps.size(), maps.size());
    for (qsizetype i = 0; i < steps.size(); ++i)
        QCOMPARE(steps[i].toObject()["records"].toArray().size(),
                 maps[i].toObject()["podStatsPerCore"].toObject().size());
    QVERIFY(out["legacy"].toBool());
    QCOMPARE(out["device_type"].toString(), QStringLiteral("TPU v3"));

    QTemporaryDir dir;
    const QString bad = dir.filePath("x.pod_viewer.json");
    QFile b(bad);
    QVERIFY(b.open(QIODevice::WriteOnly));
    b.write("[");
    b.close();
    p.start(cli, {"pod", bad});
    QVERIFY(p.waitForFinished(60000));
    QCOMPARE(p.exitCode(), 1);
    QVERIFY(QString::fromUtf8(p.readAllStandardError())
                .contains("x.pod_viewer.json: is not valid JSON"));
}

QTEST_GUILESS_MAIN(TestPodViewer)
#include "tst_podviewer.moc"
