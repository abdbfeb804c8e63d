// tf.data bottleneck analysis: tiny traces pin the critical path, the bottleneck and the slow-call
// threshold against hand-computed values; the real GPU fixture is checked against an
// independent walk of its raw XSpace events.

#include "core/analysis/tfdata.h"
#include "core/io/traceloader.h"
#include "core/model/tracebuilder.h"

#include "xplane.pb.h"

#include <QtTest>

#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <optional>

using namespace tracedesk::core;
using namespace tracedesk::core::analysis;

namespace {

constexpr TimePs kUs = 1'000'000;

struct Ev
{
    uint32_t track;
    const char *name;
    TimePs start;
    TimePs duration;
    std::vector<std::pair<const char *, int64_t>> stats;
};

TracePtr build(int threads, const std::vector<Ev> &events)
{
    TraceBuilder b;
    const uint32_t host = b.addPlane("/host:CPU", "h", 0, PlaneKind::Host);
    std::vector<uint32_t> tracks;
    for (int t = 0; t < threads; ++t)
        tracks.push_back(b.addTrack(host, "thread", t + 1));
    std::map<std::string, uint32_t> kinds;
    for (const Ev &e : events) {
        auto [it, fresh] = kinds.try_emplace(e.name, 0);
        if (fresh) {
            EventKind k;
            k.name = b.intern(e.name);
            it->second = b.addKind(k);
        }
        TrackBuilder &tb = b.trackBuilder(tracks[e.track]);
        ArgsArena::Writer w(tb.args());
        for (const auto &[key, value] : e.stats)
            w.addInt(b.intern(key), value);
        const ArgsRef ref = w.finish();
        tb.addSlice(e.start, e.duration, it->second, ref);
    }
    return b.build();
}

const TfDataIteratorStat &stat(const TfDataExecution &x, int64_t id)
{
    const TfDataIteratorStat *s = x.find(id);
    if (!s)
        qFatal("iterator %lld missing", (long long)id);
    return *s;
}

} // namespace

class TestTfData : public QObject
{
    Q_OBJECT

private slots:
    // FORMATS 2.16 worked example: Prefetch (123) on thread 0, Range (456) on a producer thread.
    void asyncPrefetchCriticalPath()
    {
        auto trace = build(2, {
            {0, "Iterator::Prefetch", 0, 100 * kUs, {{"id", 123}}},
            {0, "PrefetchConsume", 10 * kUs, 80 * kUs, {{"element_id", 100}}},
            {0, "Iterator::Prefetch", 200 * kUs, 20 * kUs, {{"id", 123}}},
            {0, "PrefetchConsume", 205 * kUs, 10 * kUs, {{"element_id", 200}}},
            {1, "PrefetchProduce", 0, 80 * kUs, {{"element_id", 100}}},
            {1, "Iterator::Prefetch::Range", 0, 80 * kUs, {{"id", 456}, {"parent_id", 123}}},
            {1, "PrefetchProduce", 100 * kUs, 80 * kUs, {{"element_id", 200}}},
            {1, "Iterator::Prefetch::Range", 100 * kUs, 80 * kUs,
             {{"id", 456}, {"parent_id", 123}}},
        });
        const TfDataAnalysis a = computeTfData(*trace);
        QCOMPARE(a.pipelines.size(), size_t(1));
        const TfDataPipeline &p = a.pipelines[0];
        QCOMPARE(p.name, std::string("Host:0"));
        QCOMPARE(p.id, int64_t(123));
        QVERIFY(!p.device);
        QCOMPARE(p.calls, int64_t(2));
        QCOMPARE(p.slowCalls, int64_t(1));
        QCOMPARE(p.minLatency, 20 * kUs);
        QCOMPARE(p.avgLatency, 60 * kUs);
        QCOMPARE(p.maxLatency, 100 * kUs);
        const TfDataExecution &x1 = p.executions[0];
        QCOMPARE(x1.duration, 100 * kUs);
        QCOMPARE(stat(x1, 123).selfTime, 20 * kUs);
        QCOMPARE(stat(x1, 456).selfTime, 80 * kUs);
        QVERIFY(stat(x1, 456).blocking);
        QCOMPARE(stat(x1, 456).parentId, int64_t(123));
        QCOMPARE(x1.bottleneckId, int64_t(456));
        QCOMPARE(x1.bottleneckLatency, 80 * kUs);
        const TfDataExecution &x2 = p.executions[1];
        QCOMPARE(x2.duration, 20 * kUs);
        QVERIFY(!stat(x2, 456).blocking);
        QVERIFY(stat(x2, 123).blocking);
        QCOMPARE(x2.bottleneckId, int64_t(123));
        QCOMPARE(x2.bottleneckLatency, 20 * kUs);
        QCOMPARE(a.bottlenecks.size(), size_t(1));
        QCOMPARE(a.bottlenecks[0].iteratorName, std::string("Range"));
        QCOMPARE(a.bottlenecks[0].iteratorLatency, 80 * kUs);
        QCOMPARE(a.bottlenecks[0].type, TfDataBottleneckType::Other);
        QVERIFY(a.inputBound);
        QCOMPARE(a.iteratorEvents, uint64_t(4));
    }

    // A view of each pipeline's slowest execution gets every statistic of the full analysis
    // but keeps one execution: the first of the equally slowest ones. Pipeline 1 starts first
    // (Host:0) though its slowest execution starts after pipeline 7's only one.
    void slowestExecutionOnly()
    {
        auto trace = build(1, {
            {0, "Iterator::Batch", 0, 30 * kUs, {{"id", 1}}},
            {0, "Iterator::Batch", 100 * kUs, 60 * kUs, {{"id", 7}}},
            {0, "Iterator::Batch", 200 * kUs, 100 * kUs, {{"id", 1}}},
            {0, "Iterator::Batch::Map", 210 * kUs, 60 * kUs, {{"id", 2}, {"parent_id", 1}}},
            {0, "Iterator::Batch", 400 * kUs, 100 * kUs, {{"id", 1}}},
        });
        const TfDataAnalysis all = computeTfData(*trace);
        const TfDataAnalysis slowest = computeTfData(*trace, TfDataExecutions::Slowest);
        QCOMPARE(slowest.pipelines.size(), size_t(2));
        QCOMPARE(all.pipelines.size(), size_t(2));
        const TfDataPipeline &p = slowest.pipelines[0];
        QCOMPARE(p.name, std::string("Host:0"));
        QCOMPARE(p.id, int64_t(1));
        QCOMPARE(p.calls, int64_t(3));
        QCOMPARE(p.slowCalls, int64_t(2));
        QCOMPARE(p.minLatency, 30 * kUs);
        QCOMPARE(p.avgLatency, 230 * kUs / 3);
        QCOMPARE(p.maxLatency, 100 * kUs);
        QCOMPARE(p.firstStart, TimePs(0));
        QCOMPARE(p.executions.size(), size_t(1));
        QCOMPARE(p.executions[0].start, 200 * kUs);
        QCOMPARE(p.executions[0].iterators.size(), size_t(2));
        QCOMPARE(p.executions[0].bottleneckId, int64_t(2));
        QCOMPARE(slowest.pipelines[1].name, std::string("Host:1"));
        QCOMPARE(slowest.pipelines[1].executions.size(), size_t(1));
        QCOMPARE(all.pipelines[0].executions.size(), size_t(3));
        QCOMPARE(all.pipelines[0].executions[0].start, 200 * kUs);
        for (size_t i = 0; i < 2; ++i) {
            const TfDataPipeline &a = all.pipelines[i], &b = slowest.pipelines[i];
            QCOMPARE(b.name, a.name);
            QCOMPARE(b.calls, a.calls);
            QCOMPARE(b.slowCalls, a.slowCalls);
            QCOMPARE(b.minLatency, a.minLatency);
            QCOMPARE(b.avgLatency, a.avgLatency);
            QCOMPARE(b.maxLatency, a.maxLatency);
            QCOMPARE(b.firstStart, a.firstStart);
            QCOMPARE(b.executions[0].start, a.executions[0].start);
        }
        QCOMPARE(slowest.bottlenecks.size(), all.bottlenecks.size());
        QCOMPARE(slowest.bottlenecks[0].iteratorName, std::string("Map"));
        QCOMPARE(slowest.bottlenecks[0].iteratorLatency, all.bottlenecks[0].iteratorLatency);
        QCOMPARE(slowest.summary, all.summary);
    }

    // Iterator names are held once per distinct name by the analysis itself: they stay readable
    // after the trace is gone, and in a copy after the original is gone.
    void iteratorNamesOutliveTheTrace()
    {
        std::optional<TfDataAnalysis> copy;
        {
            auto trace = build(1, {
                {0, "Iterator::Batch", 0, 100 * kUs, {{"id", 1}}},
                {0, "Iterator::Batch::Map", 10 * kUs, 80 * kUs, {{"id", 2}, {"parent_id", 1}}},
                {0, "Iterator::Batch", 200 * kUs, 100 * kUs, {{"id", 1}}},
                {0, "Iterator::Batch::Map", 210 * kUs, 80 * kUs, {{"id", 2}, {"parent_id", 1}}},
            });
            auto a = std::make_unique<TfDataAnalysis>(computeTfData(*trace));
            copy = *a;
        }
        QCOMPARE(copy->iteratorNames->size(), size_t(2));
        QCOMPARE(copy->pipelines.size(), size_t(1));
        QCOMPARE(copy->pipelines[0].executions.size(), size_t(2));
        for (const TfDataExecution &x : copy->pipelines[0].executions) {
            QCOMPARE(std::string(stat(x, 1).longName), std::string("Iterator::Batch"));
            QCOMPARE(std::string(stat(x, 1).name()), std::string("Batch"));
            QCOMPARE(std::string(stat(x, 2).longName), std::string("Iterator::Batch::Map"));
            QCOMPARE(std::string(stat(x, 2).name()), std::string("Map"));
        }
    }

    // Same-thread nesting: Batch 0-100 > Map 10-90 > TFRecord 20-50 (us).
    // Self: Batch 20, Map 50, TFRecord 30 -> the bottleneck is Map (parallel version exists).
    void nestedChainBottleneck()
    {
        auto trace = build(1, {
            {0, "Iterator::Batch", 0, 100 * kUs, {{"id", 1}}},
            {0, "Iterator::Batch::Map", 10 * kUs, 80 * kUs, {{"id", 2}, {"parent_id", 1}}},
            {0, "Iterator::Batch::Map::TFRecord", 20 * kUs, 30 * kUs,
             {{"id", 3}, {"parent_id", 2}}},
        });
        const TfDataAnalysis a = computeTfData(*trace);
        QCOMPARE(a.pipelines.size(), size_t(1));
        const TfDataExecution &x = a.pipelines[0].executions[0];
        QCOMPARE(x.iterators.size(), size_t(3));
        QCOMPARE(stat(x, 1).selfTime, 20 * kUs);
        QCOMPARE(stat(x, 2).selfTime, 50 * kUs);
        QCOMPARE(stat(x, 3).selfTime, 30 * kUs);
        QCOMPARE(stat(x, 3).start, 20 * kUs);
        QCOMPARE(stat(x, 3).calls, int64_t(1));
        QVERIFY(stat(x, 1).blocking && stat(x, 2).blocking && stat(x, 3).blocking);
        QCOMPARE(x.bottleneckId, int64_t(2));
        QCOMPARE(a.bottlenecks.size(), size_t(1));
        QCOMPARE(a.bottlenecks[0].iteratorLongName, std::string("Iterator::Batch::Map"));
        QCOMPARE(a.bottlenecks[0].type, TfDataBottleneckType::TransformationWithParallelVersion);
        QVERIFY(a.bottlenecks[0].suggestion.find("num_parallel_calls") != std::string::npos);
        QVERIFY(a.inputBound);
    }

    // A root of exactly 50 us is not slow, one of 50 us + 1 ps is.
    void slowCallThreshold()
    {
        auto trace = build(1, {
            {0, "Iterator::Range", 0, 50 * kUs, {{"id", 7}}},
            {0, "Iterator::Range", 100 * kUs, 50 * kUs + 1, {{"id", 7}}},
            {0, "Iterator::Range", 200 * kUs, 10 * kUs, {{"id", 7}}},
            {0, "Iterator::TFRecord", 300 * kUs, 50 * kUs, {{"id", 8}}},
        });
        const TfDataAnalysis a = computeTfData(*trace);
        QCOMPARE(a.pipelines.size(), size_t(2));
        // Ranked by the slowest execution.
        QCOMPARE(a.pipelines[0].id, int64_t(7));
        QCOMPARE(a.pipelines[0].name, std::string("Host:0"));
        QCOMPARE(a.pipelines[0].calls, int64_t(3));
        QCOMPARE(a.pipelines[0].slowCalls, int64_t(1));
        QCOMPARE(a.pipelines[0].avgLatency, (110 * kUs + 1) / 3);
        QCOMPARE(a.pipelines[1].id, int64_t(8));
        QCOMPARE(a.pipelines[1].name, std::string("Host:1"));
        QCOMPARE(a.pipelines[1].slowCalls, int64_t(0));
        QCOMPARE(a.bottlenecks[1].type, TfDataBottleneckType::SlowSource);
        QVERIFY(a.inputBound);
    }

    void noIteratorsMeansNoActivity()
    {
        auto trace = build(1, {{0, "IteratorGetNextOp::DoCompute", 0, 10 * kUs, {}}});
        const TfDataAnalysis a = computeTfData(*trace);
        QVERIFY(a.pipelines.empty());
        QVERIFY(!a.inputBound);
        QVERIFY(a.summary.find("No tf.data activity") != std::string::npos);
    }

    // Root calls and latencies against a walk of the raw XSpace; FORMATS 2.16 numbers for the
    // Generator bottleneck.
    void realGpuFixture()
    {
        const std::filesystem::path dir =
            std::filesystem::path(TRACEDESK_SHARED_FIXTURES) / "xspace/xprof_GPU-multi-worker";
        const auto file = dir / "34.83.195.179_6003.xplane.pb";
        if (!std::filesystem::exists(file))
            QSKIP("shared fixture xprof_GPU-multi-worker is not present");
        tensorflow::profiler::XSpace space;
        {
            std::ifstream in(file, std::ios::binary);
            QVERIFY(space.ParseFromIstream(&in));
        }
        std::map<int64_t, std::vector<int64_t>> rootDurations;   // id -> durations
        for (const auto &plane : space.planes()) {
            if (plane.name() != "/host:CPU")
                continue;
            for (const auto &line : plane.lines()) {
                for (const auto &ev : line.events()) {
                    const std::string &name = plane.event_metadata().at(ev.metadata_id()).name();
                    if (name.rfind("Iterator::", 0) != 0
                        || name.find("::", 10) != std::string::npos)
                        continue;
                    for (const auto &s : ev.stats()) {
                        if (plane.stat_metadata().at(s.metadata_id()).name() == "id")
                            rootDurations[s.int64_value()].push_back(ev.duration_ps());
                    }
                }
            }
        }
        QCOMPARE(rootDurations.size(), size_t(2));

        auto trace = loadTrace(file.string());
        QVERIFY2(trace.ok(), trace.ok() ? "" : trace.message().c_str());
        const TfDataAnalysis a = computeTfData(*trace.value());
        QCOMPARE(a.pipelines.size(), rootDurations.size());
        for (const TfDataPipeline &p : a.pipelines) {
            QVERIFY(rootDurations.count(p.id));
            const auto &d = rootDurations[p.id];
            QCOMPARE(p.calls, int64_t(d.size()));
            QCOMPARE(p.maxLatency, *std::max_element(d.begin(), d.end()));
            QCOMPARE(p.minLatency, *std::min_element(d.begin(), d.end()));
            QVERIFY(p.device);
            QCOMPARE(p.slowCalls, int64_t(1));
            const TfDataExecution &x = p.executions[0];
            const TfDataIteratorStat *b = x.find(x.bottleneckId);
            QVERIFY(b);
            QCOMPARE(std::string(b->name()), std::string("Generator"));
        }
        QCOMPARE(a.pipelines[0].executions[0].bottleneckLatency, TimePs(6'726'044'000));
        QCOMPARE(a.pipelines[1].executions[0].bottleneckLatency, TimePs(6'251'032'000));
        QCOMPARE(stat(a.pipelines[0].executions[0], a.pipelines[0].id).selfTime,
                 TimePs(351'190'000));
        QCOMPARE(stat(a.pipelines[1].executions[0], a.pipelines[1].id).selfTime,
                 TimePs(273'612'000));
        QVERIFY(a.bottlenecks.empty());
        QVERIFY(!a.inputBound);
        QVERIFY(a.summary.find("Only device-side tf.data pipelines") != std::string::npos);
    }

    // A JAX profile is not told to profile longer: tf.data is TensorFlow's, and it says so.
    void jaxProfileGetsNoCaptureHint()
    {
        const std::filesystem::path file = std::filesystem::path(TRACEDESK_SHARED_FIXTURES)
                                           / "xspace/tracelens_jax08_gemm/tw003.xplane.pb";
        if (!std::filesystem::exists(file))
            QSKIP("shared fixture tracelens_jax08_gemm is not present");
        auto trace = loadTrace(file.string());
        QVERIFY2(trace.ok(), trace.ok() ? "" : trace.message().c_str());
        const TfDataAnalysis a = computeTfData(*trace.value());
        QVERIFY(a.pipelines.empty());
        QVERIFY2(a.summary.find("longer") == std::string::npos, a.summary.c_str());
        QVERIFY2(a.summary.find("written by JAX") != std::string::npos, a.summary.c_str());
    }
};

QTEST_GUILESS_MAIN(TestTfData)
#include "tst_tfdata.moc"
