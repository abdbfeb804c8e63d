// Graph replays attributed to the operators that recorded them at capture (graphcapture.h): a
// hand-made capture / replay pair pins the matching (order, sizes, repeats, unmatched launches),
// and the real vLLM replay with its capture is checked kernel by kernel against the operator
// each captured launch had in the raw capture JSON.

#include "core/analysis/pytorch/deviceflamegraph.h"
#include "core/analysis/pytorch/graphcapture.h"
#include "core/analysis/pytorch/kernelview.h"
#include "core/analysis/pytorch/operatorstats.h"
#include "core/io/chromejsonreader.h"
#include "core/io/graphcapturepair.h"
#include "core/io/traceloader.h"
#include "support/graphcapturepair.h"
#include "support/kinetofixtures.h"

#include <QtTest>

#include <map>
#include <set>

using namespace tracedesk::core;
using namespace tracedesk::core::analysis;
using namespace tracedesk::core::analysis::pytorch;

namespace {

using testsupport::kCapture;
using testsupport::kReplay;

constexpr TimePs kUs = 1000000;


TracePtr loadBytes(const char *json)
{
    auto r = readChromeJsonBytes("tiny.json", json, std::strlen(json), nullptr, LoadOptions{});
    return r ? r.value() : nullptr;
}

struct RawEvent
{
    QString cat;
    QString name;
    QString tid;
    double ts = 0;
    double end = 0;
    qint64 correlation = -1;
    qint64 externalId = -1;
};

std::vector<RawEvent> rawEvents(const QString &path)
{
    std::vector<RawEvent> out;
    for (const QJsonValue &v :
         testsupport::readFixtureObject(path).value("traceEvents").toArray()) {
        const QJsonObject e = v.toObject();
        if (e.value("ph").toString() != "X")
            continue;
        const QJsonObject args = e.value("args").toObject();
        RawEvent r;
        r.cat = e.value("cat").toString().toLower();
        r.name = e.value("name").toString();
        r.tid = e.value("tid").toVariant().toString();
        r.ts = e.value("ts").toDouble();
        r.end = r.ts + e.value("dur").toDouble();
        r.correlation = args.value("correlation").toInteger(-1);
        r.externalId = args.value("External id").toInteger(-1);
        out.push_back(r);
    }
    return out;
}

} // namespace

class TestGraphCapture : public QObject
{
    Q_OBJECT

private slots:
    void matchesByOrderAndSize()
    {
        const TracePtr capture = loadBytes(kCapture);
        const TracePtr replay = loadBytes(kReplay);
        QVERIFY(capture && replay);
        const KinetoIndex index = buildKinetoIndex(*replay);
        const GraphCaptureAttribution g = attributeGraphCapture(*replay, index, *capture, "cap");
        QVERIFY(g.hasCapture);
        QCOMPARE(g.captureWindows, 2u);
        QCOMPARE(g.graphLaunches, 4u);
        QCOMPARE(g.matchedLaunches, 3u);
        QCOMPARE(g.unmatchedLaunchSizes, std::vector<uint32_t>{4});
        // 3 + 2 + 3 activities; k_a 4 + k_b 5 + k_c 6 twice, k_d 7 + memset 1.
        QCOMPARE(g.matchedActivities, uint64_t(8));
        QCOMPARE(g.matchedTime, TimePs((15 * 2 + 8) * 1000000LL));
        std::map<std::string, std::string> opOf;
        for (uint32_t a = 0; a < index.activities.size(); ++a) {
            const std::string kernel(replay->name(index.activities[a].ref));
            const std::string op(g.captureOperator(a));
            if (opOf.count(kernel))
                QCOMPARE(opOf[kernel], op); // both replays of the first graph agree
            opOf[kernel] = op;
        }
        QCOMPARE(opOf["k_a"], std::string("A"));
        QCOMPARE(opOf["k_b"], std::string("B")); // the eager launch at 42 is no graph node
        QCOMPARE(opOf["k_c"], std::string("C")); // a driver-API launch is one
        QCOMPARE(opOf["k_d"], std::string("D"));
        QCOMPARE(opOf["Memset (Device)"], std::string("D")); // async sets are nodes too
        QCOMPARE(opOf["k_x"], std::string());

        // Through the cache, as the panels and the CLI get it.
        auto cache = std::make_shared<AnalysisCache>(replay);
        cache->put(std::make_shared<const GraphCaptureSource>(GraphCaptureSource{capture, "cap"}));
        const auto view = kernelView(*cache);
        QVERIFY(view->hasGraphCapture);
        QCOMPARE(view->capturedKernelUs, 37.0); // kernels only: 15 + 15 + 7
        const auto stats = operatorStats(*cache);
        QVERIFY(stats->hasGraphCapture);
        QCOMPARE(stats->captured.size(), size_t(4));
        QCOMPARE(stats->captured[0].opName, std::string("C")); // 12 us
        QCOMPARE(stats->captured[0].activities, int64_t(2));
        // The GPU-time flame graph: under the Python frame that replays the graphs, a frame per
        // capturing operator: A 4 + 4, B 5 + 5, C 6 + 6, D 7 + 1 µs; the unmatched launch's four
        // k_x (1 µs each) stay the replay frame's own time. 42 µs in all.
        const FlameGraph flame = deviceTimeFlameGraph(*replay, *operatorTree(*cache),
                                                      graphCaptureAttribution(*cache).get());
        QCOMPARE(flame.root().wall, 42 * kUs);
        std::map<std::string, TimePs> frames;
        for (uint32_t n = 1; n < flame.nodes.size(); ++n) {
            const auto stack = flame.stack(n);
            std::string path;
            for (const std::string &f : stack)
                path += (path.empty() ? "" : ";") + f;
            frames[path] = flame.nodes[n].wall;
        }
        QCOMPARE(frames["thread 1"], 42 * kUs);
        QCOMPARE(frames["thread 1;CUDAGraph.replay"], 42 * kUs);
        QCOMPARE(flame.nodes[flame.find("CUDAGraph.replay").front()].self, 4 * kUs);
        QCOMPARE(frames["thread 1;CUDAGraph.replay;captured: A"], 8 * kUs);
        QCOMPARE(frames["thread 1;CUDAGraph.replay;captured: B"], 10 * kUs);
        QCOMPARE(frames["thread 1;CUDAGraph.replay;captured: C"], 12 * kUs);
        QCOMPARE(frames["thread 1;CUDAGraph.replay;captured: D"], 8 * kUs);
        // Without a capture, nothing is claimed.
        AnalysisCache plain(replay);
        QVERIFY(!graphCaptureAttribution(plain)->hasCapture);
        QVERIFY(!kernelView(plain)->hasGraphCapture);
    }

    // The two files opened together, or a folder holding the replay and (in a subfolder) the
    // capture, load as the replay with the capture attached, not as two ranks.
    void openedTogether()
    {
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        QDir(dir.path()).mkdir("capture_traces");
        const QString replayPath = dir.filePath("replay.pt.trace.json");
        const QString capturePath = dir.filePath("capture_traces/capture.pt.trace.json");
        for (const auto &[path, text] :
             {std::pair{replayPath, kReplay}, std::pair{capturePath, kCapture}}) {
            QFile f(path);
            QVERIFY(f.open(QIODevice::WriteOnly));
            f.write(text);
        }
        QFile meta(dir.filePath("capture_traces/execution_details.json"));
        QVERIFY(meta.open(QIODevice::WriteOnly));
        meta.write(R"([{"batch_size": 32}])");
        meta.close();
        LoadOptions noCache;
        noCache.useCache = false;
        for (const auto &loaded :
             {loadTraces({capturePath.toStdString(), replayPath.toStdString()}, nullptr, noCache),
              loadTrace(dir.path().toStdString(), nullptr, noCache)}) {
            QVERIFY2(loaded, loaded ? "" : loaded.message().c_str());
            const TracePtr trace = loaded.value();
            QVERIFY(trace->graphCapture);
            QCOMPARE(trace->info.sources.size(), size_t(1)); // the replay alone, no rank run
            AnalysisCache cache(trace);
            const auto g = graphCaptureAttribution(cache);
            QVERIFY(g->hasCapture);
            QCOMPARE(g->label, std::string("capture.pt.trace.json"));
            QCOMPARE(g->matchedLaunches, 3u);
        }
        // Two replays are no pair: nothing attached.
        const QString other = dir.filePath("replay2.pt.trace.json");
        QVERIFY(QFile::copy(replayPath, other));
        QVERIFY(!findGraphCapturePair({replayPath.toStdString(), other.toStdString()}));
    }

    // The vLLM FULL-graph decode on MI300X: each replayed kernel's capture operator is the
    // operator the raw capture JSON gives the launch in the same position of the window (its
    // External id's cpu_op, else the innermost cpu_op, else annotation or Python frame around
    // it on its thread).
    void vllmReplayWithCapture()
    {
        const QString dir =
            QString(TRACEDESK_SHARED_FIXTURES) + "/cudagraph/tracelens__vllm_decode_full/";
        const QString capturePath =
            dir + "capture_traces/graph_capture_rank_0.1773709742341309550.pt.trace.json.gz";
        const QString replayPath = dir + "graph_execution.json.gz";
        TRACEDESK_REQUIRE_FIXTURE(capturePath);
        TRACEDESK_REQUIRE_FIXTURE(replayPath);

        // Raw capture: the launches between begin and end capture with no GPU record.
        const std::vector<RawEvent> cap = rawEvents(capturePath);
        std::set<qint64> ran;
        std::map<qint64, QString> opById;
        for (const RawEvent &e : cap) {
            if (e.cat == "kernel" || e.cat == "gpu_memcpy" || e.cat == "gpu_memset")
                ran.insert(e.correlation);
            if (e.cat == "cpu_op" && e.externalId >= 0)
                opById.emplace(e.externalId, e.name);
        }
        const RawEvent *begin = nullptr, *end = nullptr;
        for (const RawEvent &e : cap) {
            if (e.name.contains("StreamBeginCapture"))
                begin = &e;
            if (e.name.contains("StreamEndCapture"))
                end = &e;
        }
        QVERIFY(begin && end);
        std::vector<const RawEvent *> launches;
        for (const RawEvent &e : cap) {
            if ((e.cat == "cuda_runtime" || e.cat == "cuda_driver") && e.tid == begin->tid &&
                e.ts > begin->ts && e.ts < end->ts && e.name.contains("LaunchKernel") &&
                !ran.count(e.correlation))
                launches.push_back(&e);
        }
        std::sort(launches.begin(), launches.end(),
                  [](const RawEvent *a, const RawEvent *b) { return a->ts < b->ts; });
        auto innermost = [&](const RawEvent &launch, const QStringList &cats) {
            const RawEvent *best = nullptr;
            for (const RawEvent &e : cap) {
                if (cats.contains(e.cat) && e.tid == launch.tid && e.ts <= launch.ts &&
                    e.end >= launch.end && (!best || e.ts >= best->ts))
                    best = &e;
            }
            return best ? best->name : QString();
        };
        std::vector<QString> expected;
        for (const RawEvent *l : launches) {
            QString op = opById.count(l->externalId) ? opById[l->externalId] : QString();
            if (op.isEmpty())
                op = innermost(*l, {"cpu_op"});
            if (op.isEmpty())
                op = innermost(*l, {"user_annotation", "python_function"});
            expected.push_back(op);
        }

        // Raw replay: the graph launch's kernels in start order.
        const std::vector<RawEvent> rep = rawEvents(replayPath);
        qint64 graphCorrelation = -1;
        for (const RawEvent &e : rep) {
            if (e.name.contains("GraphLaunch"))
                graphCorrelation = e.correlation;
        }
        std::vector<std::pair<double, QString>> replayed;
        for (const RawEvent &e : rep) {
            if (e.cat == "kernel" && e.correlation == graphCorrelation)
                replayed.push_back({e.ts, e.name});
        }
        std::sort(replayed.begin(), replayed.end());
        QCOMPARE(replayed.size(), launches.size()); // 421 nodes, 421 replayed kernels

        auto c = readChromeJson(capturePath.toStdString(), nullptr, LoadOptions{});
        auto r = readChromeJson(replayPath.toStdString(), nullptr, LoadOptions{});
        QVERIFY(c && r);
        const KinetoIndex index = buildKinetoIndex(*r.value());
        const GraphCaptureAttribution g =
            attributeGraphCapture(*r.value(), index, *c.value(), "capture");
        QCOMPARE(g.matchedLaunches, 1u);
        QCOMPARE(g.matchedActivities, uint64_t(launches.size()));
        std::vector<std::pair<TimePs, std::string>> ours;
        for (uint32_t a = 0; a < index.activities.size(); ++a) {
            if (!g.captureOperator(a).empty())
                ours.push_back({index.activities[a].start, std::string(g.captureOperator(a))});
        }
        std::sort(ours.begin(), ours.end());
        QCOMPARE(ours.size(), expected.size());
        int gemmsUnderMatmulOps = 0;
        for (size_t k = 0; k < ours.size(); ++k) {
            QCOMPARE(QString::fromStdString(ours[k].second), expected[k]);
            // The hipBLASLt GEMMs of the replay were recorded by addmm / mm.
            if (replayed[k].second.startsWith("Cijk_"))
                gemmsUnderMatmulOps += expected[k].contains("mm") ? 1 : 0;
        }
        QVERIFY(gemmsUnderMatmulOps > 0);
    }
};

QTEST_GUILESS_MAIN(TestGraphCapture)
#include "tst_graphcapture.moc"
