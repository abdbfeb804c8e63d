// The critical path (HolisticTraceAnalysis's lightweight rules, core/analysis/gputime/
// criticalpath.h): on small traces written here, the path worked out by hand from the stated
// rules; on real traces, bounds derived from the raw JSON: never longer than the window, never
// shorter than the busiest CPU thread or GPU stream in it; what-if speed-ups off the path change
// nothing, on it they shorten it by at most what they take off.

#include "core/analysis/gputime/criticalpath.h"
#include "core/generate/generator.h"
#include "core/io/chromejsonreader.h"
#include "core/io/traceloader.h"
#include "support/clirun.h"
#include "support/criticalpathtraces.h"
#include "support/kinetofixtures.h"

#include <QTemporaryDir>
#include <QtTest>

#include <algorithm>
#include <map>
#include <set>

using namespace tracedesk::core;
using namespace tracedesk::core::analysis;
using gputime::CriticalPath;
using gputime::PathSegment;

namespace {

const QString kAlexnet =
    QString(TRACEDESK_SHARED_FIXTURES)
    + "/chrome_json/hta__critical_path__alexnet__benchmark_result_2869224_1695835535_trace.json.gz";
const QString kMegatron0 =
    QString(TRACEDESK_SHARED_FIXTURES) + "/multirank/astrasim__megatron-tp8/megatron_kineto_0.json.gz";
const QString kDlrm0 = QString(TRACEDESK_SHARED_FIXTURES)
                       + "/multirank/param__dlrm_kineto/worker0_step_12.1694128201545.pt.trace.json.gz";

constexpr TimePs kUs = 1'000'000;

std::shared_ptr<Trace> load(const QByteArray &json)
{
    auto r = readChromeJsonBytes("hand.json", json.constData(), size_t(json.size()), nullptr, {});
    if (!r)
        qFatal("%s", r.message().c_str());
    return r.value();
}

struct Expected
{
    const char *kind;
    const char *name;
    TimePs us;
};

void compareSegments(const CriticalPath &path, const std::vector<Expected> &expected)
{
    QCOMPARE(path.segments.size(), expected.size());
    for (size_t i = 0; i < expected.size(); ++i) {
        const PathSegment &s = path.segments[i];
        QCOMPARE(QString::fromStdString(s.kind), QString(expected[i].kind));
        QCOMPARE(QString::fromStdString(s.name), QString(expected[i].name));
        QCOMPARE(s.weight, expected[i].us * kUs);
    }
}

// What the raw file holds in a window: per thread the union of its CPU operators and calls
// starting in it, per stream the union of the GPU work whose launch starts in it.
struct RawBounds
{
    double windowUs = 0;
    double busiestThreadUs = 0;
    double busiestStreamUs = 0;
};

double unionLength(std::vector<std::pair<double, double>> r)
{
    std::sort(r.begin(), r.end());
    double total = 0, start = 0, end = 0;
    bool open = false;
    for (const auto &[s, e] : r) {
        if (open && s <= end) {
            end = std::max(end, e);
            continue;
        }
        if (open)
            total += end - start;
        start = s;
        end = e;
        open = true;
    }
    return open ? total + end - start : 0.0;
}

RawBounds rawBounds(const QString &path, const QString &window, int instance)
{
    std::vector<QJsonObject> events;
    for (const QJsonValue &v : testsupport::readFixtureObject(path).value("traceEvents").toArray()) {
        if (v.toObject().value("ph").toString() == "X")
            events.push_back(v.toObject());
    }
    std::vector<std::pair<double, double>> windows;
    for (const QJsonObject &e : events) {
        if (e.value("name").toString().contains(window))
            windows.push_back({e.value("ts").toDouble(), e.value("ts").toDouble() + e.value("dur").toDouble()});
    }
    std::sort(windows.begin(), windows.end());
    RawBounds b;
    if (int(windows.size()) <= instance)
        return b;
    const auto [w0, w1] = windows[size_t(instance)];
    b.windowUs = w1 - w0;
    const std::set<QString> cpuCats = {"cpu_op", "cuda_runtime", "cuda_driver"};
    std::map<QString, std::vector<std::pair<double, double>>> threads;
    std::map<qint64, double> launchStart; // by correlation
    for (const QJsonObject &e : events) {
        const double ts = e.value("ts").toDouble(), dur = e.value("dur").toDouble();
        if (!cpuCats.count(e.value("cat").toString()) || ts < w0 || ts > w1 || dur <= 0)
            continue;
        threads[e.value("pid").toVariant().toString() + "/" + e.value("tid").toVariant().toString()]
            .push_back({ts, ts + dur});
        if (e.value("cat").toString() != "cpu_op" && e.value("args").toObject().contains("correlation"))
            launchStart[e.value("args").toObject().value("correlation").toInteger()] = ts;
    }
    std::map<QString, std::vector<std::pair<double, double>>> streams;
    for (const QJsonObject &e : events) {
        const QString cat = e.value("cat").toString();
        if (cat != "kernel" && cat != "gpu_memcpy" && cat != "gpu_memset")
            continue;
        const QJsonObject args = e.value("args").toObject();
        if (!launchStart.count(args.value("correlation").toInteger(-1)))
            continue;
        const double ts = e.value("ts").toDouble();
        streams[args.value("device").toVariant().toString() + "/" + args.value("stream").toVariant().toString()]
            .push_back({ts, ts + e.value("dur").toDouble()});
    }
    for (auto &[key, r] : threads)
        b.busiestThreadUs = std::max(b.busiestThreadUs, unionLength(r));
    for (auto &[key, r] : streams)
        b.busiestStreamUs = std::max(b.busiestStreamUs, unionLength(r));
    return b;
}

TimePs segmentSum(const CriticalPath &path)
{
    TimePs sum = 0;
    for (const PathSegment &s : path.segments)
        sum += s.weight;
    return sum;
}

} // namespace

class TestCriticalPath : public QObject
{
    Q_OBJECT

private slots:
    // gemm's launch found the stream idle (launch delay), the sync brings its end to the CPU,
    // aten::add's launch found it idle again: 10 + 15 + 455 + 5 + 10 + 35 us.
    void handBuiltPath()
    {
        const auto trace = load(testsupport::handCriticalPathTrace(true));
        const auto index = pytorch::buildKinetoIndex(*trace);
        const auto graph = gputime::buildCriticalPathGraph(*trace, index, std::nullopt);
        QVERIFY(graph.syncEvents);
        const CriticalPath path = gputime::criticalPath(*trace, graph);
        QVERIFY(path.error.empty());
        QCOMPARE(path.length, 530 * kUs);
        compareSegments(path, {{"cpu", "aten::mm", 10},
                               {"launch", "gemm", 15},
                               {"gpu", "gemm", 455},
                               {"cpu", "aten::add", 5},
                               {"launch", "add_kernel", 10},
                               {"gpu", "add_kernel", 35}});
        QCOMPARE(path.cpu, 15 * kUs);
        QCOMPARE(path.gpu, 490 * kUs);
        QCOMPARE(path.launch, 25 * kUs);
        QCOMPARE(path.wait + path.sync, TimePs(0));
        QCOMPARE(path.segments[2].start - path.segments[0].start, 25 * kUs);
        QCOMPARE(QString::fromStdString(path.segments[2].boundBy), QString("gpu_compute_bound"));
        QCOMPARE(QString::fromStdString(path.segments[1].boundBy),
                 QString("gpu_kernel_launch_overhead"));
    }

    // A window holding more events than the limit is refused with a note, before anything is
    // built; one holding exactly that many is searched.
    void refusesTooManyEvents()
    {
        const auto trace = load(testsupport::handCriticalPathTrace(true));
        const auto index = pytorch::buildKinetoIndex(*trace);
        const auto full = gputime::buildCriticalPathGraph(*trace, index, std::nullopt);
        QVERIFY(full.error.empty());
        const size_t events = full.events.size();
        QVERIFY(events > 2);
        const auto fits = gputime::buildCriticalPathGraph(*trace, index, std::nullopt, events);
        QVERIFY(fits.error.empty());
        QCOMPARE(gputime::criticalPath(*trace, fits).length, 530 * kUs);
        const auto refused =
            gputime::buildCriticalPathGraph(*trace, index, std::nullopt, events - 1);
        QVERIFY(refused.events.empty() && refused.edges.empty());
        QVERIFY(refused.error.find(std::to_string(events)) != std::string::npos);
        const CriticalPath path = gputime::criticalPath(*trace, refused);
        QCOMPARE(path.error, refused.error);
        QCOMPARE(path.length, TimePs(0));
    }

    void handBuiltWhatIf()
    {
        const auto trace = load(testsupport::handCriticalPathTrace(true));
        const auto index = pytorch::buildKinetoIndex(*trace);
        const auto graph = gputime::buildCriticalPathGraph(*trace, index, std::nullopt);
        // gemm 5x: 455 -> 91 us, still the longest way (the CPU's is 93 us).
        CriticalPath p = gputime::criticalPath(*trace, graph, {{"gemm", 5}});
        QCOMPARE(p.length, 166 * kUs);
        QCOMPARE(p.affectedEvents, size_t(1));
        // aten::mm 2x halves its own time and its launch call's: 10 -> 5 us on the path.
        p = gputime::criticalPath(*trace, graph, {{"aten::mm", 2}});
        QCOMPARE(p.length, 525 * kUs);
        QCOMPARE(p.affectedEvents, size_t(2));
        // aten::empty runs while the GPU works: off the path, no change.
        p = gputime::criticalPath(*trace, graph, {{"aten::empty", 4}});
        QCOMPARE(p.length, 530 * kUs);
        // A name nobody has changes nothing.
        p = gputime::criticalPath(*trace, graph, {{"aten::nothing", 4}});
        QCOMPARE(p.affectedEvents, size_t(0));
        QCOMPARE(p.length, 530 * kUs);
    }

    // Without the recorded Stream Sync the wait in cudaStreamSynchronize keeps its 450 us: the
    // path runs on the CPU, 40 (aten::mm) + 3 + 450 + 5 + 10 + 35 us.
    void unrecordedSyncKeepsTheWait()
    {
        const auto trace = load(testsupport::handCriticalPathTrace(false));
        const auto index = pytorch::buildKinetoIndex(*trace);
        const auto graph = gputime::buildCriticalPathGraph(*trace, index, std::nullopt);
        QVERIFY(!graph.syncEvents);
        const CriticalPath path = gputime::criticalPath(*trace, graph);
        QCOMPARE(path.length, 543 * kUs);
        QCOMPARE(path.sync, 450 * kUs);
        const auto blocked = std::find_if(path.segments.begin(), path.segments.end(),
                                          [](const PathSegment &s) { return s.kind == "sync"; });
        QVERIFY(blocked != path.segments.end());
        QCOMPARE(QString::fromStdString(blocked->name), QString("cudaStreamSynchronize"));
        QCOMPARE(QString::fromStdString(blocked->boundBy), QString("cpu_blocked_on_gpu"));
    }

    // k2 on stream 20 waits (cudaStreamWaitEvent) for the event recorded after k1 on stream 7:
    // the path runs through k1 into k2, 10 (launch) + 100 + 30 us; without the wait edge the
    // longest way would be k1's alone.
    void eventWaitAcrossStreams()
    {
        const QByteArray json = R"({"schemaVersion":1,"deviceProperties":[{"id":0}],"traceEvents":[
 {"ph":"X","cat":"cuda_runtime","name":"cudaLaunchKernel","pid":1,"tid":1,"ts":1000,"dur":5,"args":{"correlation":21}},
 {"ph":"X","cat":"kernel","name":"k1","pid":0,"tid":7,"ts":1010,"dur":100,"args":{"correlation":21,"device":0,"stream":7}},
 {"ph":"X","cat":"cuda_runtime","name":"cudaEventRecord","pid":1,"tid":1,"ts":1006,"dur":2,"args":{"correlation":22}},
 {"ph":"X","cat":"cuda_runtime","name":"cudaStreamWaitEvent","pid":1,"tid":1,"ts":1009,"dur":2,"args":{"correlation":23}},
 {"ph":"X","cat":"cuda_sync","name":"Stream Wait Event","pid":0,"tid":20,"ts":1012,"dur":1,"args":{"correlation":23,"device":0,"stream":20,"wait_on_stream":7,"wait_on_cuda_event_record_corr_id":22}},
 {"ph":"X","cat":"cuda_runtime","name":"cudaLaunchKernel","pid":1,"tid":1,"ts":1012,"dur":5,"args":{"correlation":24}},
 {"ph":"X","cat":"kernel","name":"k2","pid":0,"tid":20,"ts":1115,"dur":30,"args":{"correlation":24,"device":0,"stream":20}}]})";
        const auto trace = load(json);
        const auto index = pytorch::buildKinetoIndex(*trace);
        const auto graph = gputime::buildCriticalPathGraph(*trace, index, std::nullopt);
        const CriticalPath path = gputime::criticalPath(*trace, graph);
        QCOMPARE(path.length, 140 * kUs);
        compareSegments(path, {{"launch", "k1", 10}, {"gpu", "k1", 100}, {"gpu", "k2", 30}});
    }

    void realBounds_data()
    {
        QTest::addColumn<QString>("path");
        QTest::addColumn<QString>("window");
        QTest::addColumn<int>("instance");
        QTest::newRow("alexnet measure forward") << kAlexnet
                                                 << "[param|pytorch.model.alex_net|0|0|0|measure|forward]" << 1;
        QTest::newRow("megatron rank 0 step 3") << kMegatron0 << "ProfilerStep#3" << 0;
        QTest::newRow("dlrm rank 0 step 10") << kDlrm0 << "ProfilerStep#10" << 0;
    }

    void realBounds()
    {
        QFETCH(QString, path);
        QFETCH(QString, window);
        QFETCH(int, instance);
        TRACEDESK_REQUIRE_FIXTURE(path);
        const RawBounds raw = rawBounds(path, window, instance);
        QVERIFY(raw.windowUs > 0);
        auto loaded = loadTrace(path.toStdString());
        QVERIFY(loaded);
        const Trace &trace = *loaded.value();
        const auto index = pytorch::buildKinetoIndex(trace);
        const auto w = gputime::annotationWindow(trace, index, window.toStdString(), size_t(instance));
        QVERIFY(w);
        const auto graph = gputime::buildCriticalPathGraph(trace, index, w);
        const CriticalPath p = gputime::criticalPath(trace, graph);
        QVERIFY2(p.error.empty(), p.error.c_str());
        const double lengthUs = double(p.length) / double(kUs);
        const QString numbers = QString("path %1 us, window %2, thread %3, stream %4")
                                    .arg(lengthUs).arg(raw.windowUs).arg(raw.busiestThreadUs)
                                    .arg(raw.busiestStreamUs);
        QVERIFY2(lengthUs <= raw.windowUs + 0.01, qPrintable(numbers));
        QVERIFY2(lengthUs >= raw.busiestThreadUs - 0.01, qPrintable(numbers));
        QVERIFY2(lengthUs >= raw.busiestStreamUs - 0.01, qPrintable(numbers));
        QCOMPARE(segmentSum(p), p.length);
        QCOMPARE(p.cpu + p.gpu + p.launch + p.wait + p.sync, p.length);

        // An operator or kernel none of whose events (nor what runs under them) is on the
        // path: speeding it up leaves the length alone.
        std::set<std::string> touching; // names with an event on the path, or above one
        for (const PathSegment &s : p.segments) {
            for (uint32_t a = s.event; a != pytorch::kNoIndex; a = graph.events[a].parent)
                touching.insert(std::string(trace.name(graph.events[a].ref)));
        }
        std::map<std::string, bool> touchesPath;
        for (const gputime::PathEvent &ev : graph.events) {
            if (ev.gpu || trace.kind(ev.ref).role == SliceRole::CpuOp) {
                const std::string name(trace.name(ev.ref));
                touchesPath[name] = touching.count(name) > 0;
            }
        }
        const auto off = std::find_if(touchesPath.begin(), touchesPath.end(),
                                      [](const auto &kv) { return !kv.second; });
        QVERIFY(off != touchesPath.end());
        const CriticalPath offPath = gputime::criticalPath(trace, graph, {{off->first, 3}});
        QVERIFY(offPath.affectedEvents > 0);
        QCOMPARE(offPath.length, p.length);

        // The longest segment's event 2x faster: shorter, by at most half the path's time in it.
        const auto top = std::max_element(p.segments.begin(), p.segments.end(),
                                          [](const auto &a, const auto &b) { return a.weight < b.weight; });
        // Its time: the path's own time of its events and of what runs under them.
        TimePs itsTime = 0;
        for (const PathSegment &s : p.segments) {
            if (s.kind == "launch" || s.kind == "wait")
                continue;
            for (uint32_t a = s.event; a != pytorch::kNoIndex; a = graph.events[a].parent) {
                if (trace.name(graph.events[a].ref) == top->name) {
                    itsTime += s.weight;
                    break;
                }
            }
        }
        const CriticalPath faster = gputime::criticalPath(trace, graph, {{top->name, 2}});
        QVERIFY(faster.length < p.length);
        QVERIFY2(faster.length >= p.length - itsTime / 2 - 1,
                 qPrintable(QString("%1 -> %2, its time %3").arg(p.length).arg(faster.length).arg(itsTime)));
    }

    // Every real Kineto trace: a path is found (no cycle), its segments add up to it, and it
    // is no longer than the span of the events it was built from.
    void everyKinetoFixture_data()
    {
        QTest::addColumn<QString>("path");
        for (const QString &name : testsupport::kinetoFixtureNames())
            QTest::newRow(qPrintable(name)) << testsupport::realChromeJsonDir() + name;
    }

    void everyKinetoFixture()
    {
        QFETCH(QString, path);
        TRACEDESK_REQUIRE_FIXTURE(path);
        auto loaded = loadTrace(path.toStdString());
        QVERIFY(loaded);
        const Trace &trace = *loaded.value();
        const auto index = pytorch::buildKinetoIndex(trace);
        const auto graph = gputime::buildCriticalPathGraph(trace, index, std::nullopt);
        const CriticalPath p = gputime::criticalPath(trace, graph);
        QVERIFY2(p.error.empty(), p.error.c_str());
        QCOMPARE(segmentSum(p), p.length);
        if (graph.events.empty())
            return;
        TimePs first = graph.events.front().start, last = graph.events.front().end;
        for (const gputime::PathEvent &e : graph.events) {
            first = std::min(first, e.start);
            last = std::max(last, e.end);
        }
        QVERIFY(p.length <= last - first);
        QVERIFY(p.length > 0);
    }

    // Generated Kineto traces of each shape and several seeds, a step at a time: every step's
    // path is found, adds up, fits in its step's events and is no shorter than the busiest
    // thread's operators in it (the thread's chain alone is that long).
    void generatedSteps_data()
    {
        QTest::addColumn<int>("shape");
        QTest::addColumn<int>("seed");
        for (int shape : {int(KinetoShape::Training), int(KinetoShape::Moe), int(KinetoShape::Serving)}) {
            for (int seed : {1, 7, 42})
                QTest::newRow(qPrintable(QString("shape %1 seed %2").arg(shape).arg(seed))) << shape << seed;
        }
    }

    void generatedSteps()
    {
        QFETCH(int, shape);
        QFETCH(int, seed);
        QTemporaryDir dir;
        const std::string file = (dir.path() + "/gen.pt.trace.json").toStdString();
        GeneratorOptions options;
        options.events = 20000;
        options.format = GeneratedFormat::Kineto;
        options.seed = uint64_t(seed);
        options.kinetoShape = KinetoShape(shape);
        QVERIFY(generateTrace(options, file));
        auto loaded = loadTrace(file);
        QVERIFY(loaded);
        const Trace &trace = *loaded.value();
        const auto index = pytorch::buildKinetoIndex(trace);
        // Each step; a serving trace has none (its iterations are not ProfilerSteps): all of it.
        std::vector<gputime::TimeWindow> windows;
        for (const pytorch::KinetoNode &node : index.nodes) {
            if (pytorch::isProfilerStepName(trace.name(node.ref)))
                windows.push_back({node.start, node.end, std::string(trace.name(node.ref))});
        }
        if (KinetoShape(shape) == KinetoShape::Serving) {
            QVERIFY(windows.empty());
            windows.push_back({trace.begin, trace.end, "whole trace"});
        }
        QVERIFY(!windows.empty());
        for (const gputime::TimeWindow &window : windows) {
            const auto graph = gputime::buildCriticalPathGraph(trace, index, window);
            const CriticalPath p = gputime::criticalPath(trace, graph);
            QVERIFY2(p.error.empty(), p.error.c_str());
            QCOMPARE(segmentSum(p), p.length);
            TimePs first = window.start, last = window.end;
            std::map<uint32_t, std::vector<std::pair<double, double>>> byThread;
            for (const gputime::PathEvent &e : graph.events) {
                first = std::min(first, e.start);
                last = std::max(last, e.end);
                if (!e.gpu)
                    byThread[e.ref.track].push_back({double(e.start), double(e.end)});
            }
            QVERIFY(p.length <= last - first);
            double busiest = 0;
            for (auto &[track, spans] : byThread)
                busiest = std::max(busiest, unionLength(spans));
            QVERIFY2(double(p.length) >= busiest - 1,
                     qPrintable(QString("%1: %2 < %3").arg(window.name.c_str()).arg(p.length).arg(busiest)));
        }
    }

    // The JSON contract, and the segments adding up to the length as the file states it.
    void cliJson()
    {
        TRACEDESK_REQUIRE_FIXTURE(kAlexnet);
        const auto run = clitest::runCli({"critical-path", kAlexnet, "--annotation",
                                          "[param|pytorch.model.alex_net|0|0|0|measure|forward]",
                                          "--instance", "1", "--speedup", "cudaMalloc=2", "--json"});
        QCOMPARE(run.exitCode, 0);
        const QJsonObject o = QJsonDocument::fromJson(run.out).object();
        QVERIFY(o.value("length_us").toDouble() > 0);
        QVERIFY(o.value("sync_events").toBool());
        const QJsonArray segments = o.value("segments").toArray();
        QVERIFY(!segments.isEmpty());
        double sum = 0;
        std::set<QString> kinds;
        for (const QJsonValue &v : segments) {
            const QJsonObject s = v.toObject();
            for (const char *key : {"name", "kind", "start_us", "dur_us"})
                QVERIFY2(s.contains(key), key);
            sum += s.value("dur_us").toDouble();
            kinds.insert(s.value("kind").toString());
        }
        QVERIFY(std::abs(sum - o.value("length_us").toDouble()) < 0.01);
        QVERIFY(kinds.count("cpu") && kinds.count("gpu"));
        const QJsonObject whatIf = o.value("what_if").toObject();
        QCOMPARE(whatIf.value("name").toString(), QString("cudaMalloc"));
        QVERIFY(whatIf.value("length_us").toDouble() < o.value("length_us").toDouble());
        QVERIFY(whatIf.value("events").toInt() > 0);

        const auto bad = clitest::runCli({"critical-path", kAlexnet, "--speedup", "cudaMalloc=0"});
        QCOMPARE(bad.exitCode, 2);
        const auto none = clitest::runCli({"critical-path", kAlexnet, "--step", "3"});
        QCOMPARE(none.exitCode, 1);
        QVERIFY(none.err.contains("ProfilerStep#3"));
    }
};

QTEST_GUILESS_MAIN(TestCriticalPath)
#include "tst_criticalpath.moc"
