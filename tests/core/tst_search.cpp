#include "core/model/tracebuilder.h"
#include "core/query/search.h"

#include <QtTest>

#include <algorithm>
#include <random>

using namespace tracedesk::core;

namespace {

enum Kind : uint32_t { MatMul, MatMulGrad, Conv, Fusion, Renamed };

// Two tracks. Track 0: MatMul 0-100 containing Conv 10-20 and matmul_grad 30-60; Fusion
// 100-150; MatMul 200-210. Track 1: Conv 5-50 containing MatMul 5-15; Renamed 60-70 (its
// display name is "CopyToDevice"); matmul_grad 100-110.
std::shared_ptr<Trace> makeTrace()
{
    TraceBuilder b;
    const uint32_t plane = b.addPlane("/device:TPU:0", "host", 1, PlaneKind::Device);
    const uint32_t t0 = b.addTrack(plane, "Ops", 1);
    const uint32_t t1 = b.addTrack(plane, "Steps", 2);
    for (const char *name : {"MatMul", "matmul_grad", "Conv2D", "fusion.1", "op.7"}) {
        EventKind kind;
        kind.name = b.intern(name);
        kind.displayName = kind.name;
        b.addKind(kind);
    }
    b.trace().kinds[Renamed].displayName = b.intern("CopyToDevice");
    TrackBuilder &a = b.trackBuilder(t0);
    a.addSlice(0, 100, MatMul);
    a.addSlice(10, 10, Conv);
    a.addSlice(30, 30, MatMulGrad);
    a.addSlice(100, 50, Fusion);
    a.addSlice(200, 10, MatMul);
    TrackBuilder &c = b.trackBuilder(t1);
    c.addSlice(5, 45, Conv);
    c.addSlice(5, 10, MatMul);
    c.addSlice(60, 10, Renamed);
    c.addSlice(100, 10, MatMulGrad);
    return b.build();
}

std::vector<SliceRef> bruteForce(const Trace &trace, std::string_view query)
{
    std::vector<SliceRef> refs;
    for (uint32_t t = 0; t < trace.tracks.size(); ++t) {
        for (uint32_t r = 0; r < trace.tracks[t].rows.size(); ++r) {
            for (uint32_t i = 0; i < trace.tracks[t].rows[r].size(); ++i) {
                const SliceRef ref{t, r, i};
                const EventKind &k = trace.kind(ref);
                if (!query.empty()
                    && (containsIgnoringCase(trace.string(k.name), query)
                        || containsIgnoringCase(trace.string(k.displayName), query)))
                    refs.push_back(ref);
            }
        }
    }
    std::sort(refs.begin(), refs.end(), [&](const SliceRef &x, const SliceRef &y) {
        return std::tuple(trace.start(x), x.track, x.row, x.index)
               < std::tuple(trace.start(y), y.track, y.row, y.index);
    });
    return refs;
}

SearchResult run(const Trace &trace, std::string_view query, SearchOptions options = {})
{
    auto result = searchSlices(trace, query, options);
    if (!result.ok())
        qFatal("search failed: %s", result.message().c_str());
    return std::move(result).value();
}

} // namespace

class TestSearch : public QObject
{
    Q_OBJECT

private slots:
    void containsIgnoresAsciiCase();
    void kindsMatchNameOrDisplayName();
    void countsAndOrder();
    void displayNameMatches();
    void noMatchAndEmptyQuery();
    void capKeepsEarliestAndCountsAll();
    void threadCountDoesNotChangeResult();
    void cancelledSearchReturnsNothing();
    void opModeMatchesNamesAndOpColumns();
};

void TestSearch::containsIgnoresAsciiCase()
{
    QVERIFY(containsIgnoringCase("MatMul", "matmul"));
    QVERIFY(containsIgnoringCase("fusion.1", "ION."));
    QVERIFY(containsIgnoringCase("abc", ""));
    QVERIFY(containsIgnoringCase("aaab", "aab"));
    QVERIFY(!containsIgnoringCase("abc", "abcd"));
    QVERIFY(!containsIgnoringCase("", "a"));
    QVERIFY(!containsIgnoringCase("Conv2D", "conv3"));
}

void TestSearch::kindsMatchNameOrDisplayName()
{
    auto trace = makeTrace();
    const std::vector<uint8_t> expected{1, 1, 0, 0, 0};
    QCOMPARE(matchingKinds(*trace, "MATMUL"), expected);
    QCOMPARE(matchingKinds(*trace, "copyto"), (std::vector<uint8_t>{0, 0, 0, 0, 1}));
    QCOMPARE(matchingKinds(*trace, ""), (std::vector<uint8_t>{0, 0, 0, 0, 0}));
}

void TestSearch::countsAndOrder()
{
    auto trace = makeTrace();
    const SearchResult r = run(*trace, "mAtMuL");
    QCOMPARE(r.total, uint64_t(5));
    QCOMPARE(r.refs.size(), size_t(5));
    QVERIFY(!r.truncated());
    std::vector<TimePs> starts;
    for (const SliceRef &ref : r.refs) {
        QVERIFY(trace->valid(ref));
        QVERIFY(containsIgnoringCase(trace->name(ref), "matmul"));
        starts.push_back(trace->start(ref));
    }
    QCOMPARE(starts, (std::vector<TimePs>{0, 5, 30, 100, 200}));
    QCOMPARE(r.refs, bruteForce(*trace, "mAtMuL"));
    // Order is by start across tracks: Conv2D on track 1 (at 5) before track 0 (at 10).
    const SearchResult conv = run(*trace, "conv");
    QCOMPARE(conv.refs.size(), size_t(2));
    QCOMPARE(conv.refs[0].track, uint32_t(1));
    QCOMPARE(conv.refs[1].track, uint32_t(0));
    QCOMPARE(run(*trace, "grad").total, uint64_t(2));
    QCOMPARE(run(*trace, ".").total, uint64_t(2));   // fusion.1, op.7
}

void TestSearch::displayNameMatches()
{
    auto trace = makeTrace();
    const SearchResult r = run(*trace, "COPYTODEVICE");
    QCOMPARE(r.total, uint64_t(1));
    QCOMPARE(trace->start(r.refs[0]), 60);
    QCOMPARE(run(*trace, "op.7").total, uint64_t(1));
}

void TestSearch::noMatchAndEmptyQuery()
{
    auto trace = makeTrace();
    QCOMPARE(run(*trace, "allreduce").total, uint64_t(0));
    QVERIFY(run(*trace, "allreduce").refs.empty());
    QCOMPARE(run(*trace, "").total, uint64_t(0));
    TraceBuilder empty;
    auto none = empty.build();
    QCOMPARE(run(*none, "x").total, uint64_t(0));
}

void TestSearch::capKeepsEarliestAndCountsAll()
{
    auto trace = makeTrace();
    SearchOptions options;
    options.cap = 3;
    const SearchResult r = run(*trace, "matmul", options);
    QCOMPARE(r.total, uint64_t(5));
    QVERIFY(r.truncated());
    const auto all = bruteForce(*trace, "matmul");
    QCOMPARE(r.refs, std::vector<SliceRef>(all.begin(), all.begin() + 3));
    options.cap = 0;
    const SearchResult zero = run(*trace, "matmul", options);
    QVERIFY(zero.refs.empty());
    QCOMPARE(zero.total, uint64_t(5));
}

void TestSearch::threadCountDoesNotChangeResult()
{
    // Eight tracks of random nested slices over 40 kinds.
    TraceBuilder b;
    const uint32_t plane = b.addPlane("host", "host", 1, PlaneKind::Host);
    for (int k = 0; k < 40; ++k) {
        EventKind kind;
        kind.name = b.intern((k % 3 ? "Op" : "kernel_") + std::to_string(k));
        b.addKind(kind);
    }
    std::mt19937_64 rng(3);
    for (int t = 0; t < 8; ++t) {
        const uint32_t track = b.addTrack(plane, "t" + std::to_string(t), t);
        TimePs at = 0;
        for (int i = 0; i < 20000; ++i) {
            const TimePs d = std::uniform_int_distribution<TimePs>(1, 1000)(rng);
            const auto kind = std::uniform_int_distribution<uint32_t>(0, 39)(rng);
            b.trackBuilder(track).addSlice(at, d, kind);
            if (i % 4 == 0)   // a nested child on the next row
                b.trackBuilder(track).addSlice(at, d / 2, (kind + 1) % 40);
            at += d + std::uniform_int_distribution<TimePs>(0, 3)(rng);
        }
    }
    auto trace = b.build();
    for (const char *query : {"KERNEL_", "op1", "kernel_39", "p3"}) {
        const auto want = bruteForce(*trace, query);
        for (unsigned threads : {1u, 2u, 5u}) {
            SearchOptions options;
            options.threads = threads;
            const SearchResult r = run(*trace, query, options);
            QCOMPARE(r.total, uint64_t(want.size()));
            QVERIFY(r.refs == want);
            options.cap = 1000;
            const SearchResult capped = run(*trace, query, options);
            QVERIFY(std::equal(capped.refs.begin(), capped.refs.end(), want.begin()));
            QCOMPARE(capped.refs.size(), std::min<size_t>(1000, want.size()));
        }
    }
}

void TestSearch::cancelledSearchReturnsNothing()
{
    auto trace = makeTrace();
    std::atomic<bool> cancel{true};
    SearchOptions options;
    options.cancel = &cancel;
    const auto r = searchSlices(*trace, "matmul", options);
    QVERIFY(!r.ok());
    QVERIFY(r.isCancelled());
    cancel = false;
    QVERIFY(searchSlices(*trace, "matmul", options).ok());
}

// Op mode: exact op names, framework `name:type` forms, and the per-slice and per-kind hlo_op /
// tf_op columns; near names ("fusion.10", "MatMul_1") never match.
void TestSearch::opModeMatchesNamesAndOpColumns()
{
    QVERIFY(matchesOp("fusion.1", "fusion.1"));
    QVERIFY(matchesOp("dense/MatMul:MatMul", "dense/MatMul"));
    QVERIFY(!matchesOp("fusion.10", "fusion.1"));
    QVERIFY(!matchesOp("dense/MatMul_1:MatMul", "dense/MatMul"));
    QVERIFY(!matchesOp("anything", ""));

    TraceBuilder b;
    auto kind = [&](const char *name) {
        EventKind k;
        k.name = b.intern(name);
        return b.addKind(k);
    };
    const uint32_t fusion = kind("fusion.1");
    const uint32_t fusion10 = kind("fusion.10");
    const uint32_t gemm = kind("volta_sgemm");
    const uint32_t hostOp = kind("dense/MatMul:MatMul");
    const uint32_t otherOp = kind("dense/MatMul_1:MatMul");
    EventKind tagged;   // a kernel whose kind carries the framework op
    tagged.name = b.intern("redzone_kernel");
    tagged.side[size_t(SideColumn::FrameworkOp)] = b.intern("dense/MatMul:MatMul");
    const uint32_t taggedKernel = b.addKind(tagged);

    const uint32_t device = b.addPlane("/device:GPU:0", "h", 1, PlaneKind::Device);
    const uint32_t host = b.addPlane("/host:CPU", "h", 2, PlaneKind::Host);
    const uint32_t tpuOps = b.addTrack(device, "XLA Ops", 1);
    b.trackBuilder(tpuOps).addSlice(0, 10, fusion);          // 0: by kind name
    b.trackBuilder(tpuOps).addSlice(20, 10, fusion10);       // never
    const uint32_t stream = b.addTrack(device, "Stream #7", 2);
    auto &k = b.trackBuilder(stream);
    const uint32_t g1 = k.addSlice(100, 5, gemm);            // hlo_op fusion.1
    const uint32_t g2 = k.addSlice(110, 5, gemm);            // hlo_op fusion.10
    const uint32_t g3 = k.addSlice(120, 5, gemm);            // tf_op dense/MatMul:MatMul
    k.addSlice(130, 5, taggedKernel);                        // tf_op through its kind
    k.setSide(g1, SideColumn::HloOp, b.intern("fusion.1"));
    k.setSide(g2, SideColumn::HloOp, b.intern("fusion.10"));
    k.setSide(g3, SideColumn::FrameworkOp, b.intern("dense/MatMul:MatMul"));
    const uint32_t thread = b.addTrack(host, "tf_Compute", 3);
    b.trackBuilder(thread).addSlice(50, 40, hostOp);
    b.trackBuilder(thread).addSlice(200, 40, otherOp);
    const TracePtr trace = b.build();

    SearchOptions options;
    options.mode = SearchMode::Op;
    auto starts = [&](const char *op) {
        auto r = searchSlices(*trace, op, options);
        std::vector<TimePs> out;
        for (SliceRef s : r.value().refs)
            out.push_back(trace->start(s));
        std::sort(out.begin(), out.end());
        return out;
    };
    QCOMPARE(starts("fusion.1"), (std::vector<TimePs>{0, 100}));
    QCOMPARE(starts("fusion.10"), (std::vector<TimePs>{20, 110}));
    QCOMPARE(starts("dense/MatMul"), (std::vector<TimePs>{50, 120, 130}));
    QCOMPARE(starts("dense/MatMul:MatMul"), (std::vector<TimePs>{50, 120, 130}));
    QCOMPARE(starts("volta_sgemm"), (std::vector<TimePs>{100, 110, 120}));
    QCOMPARE(starts("MatMul"), std::vector<TimePs>{});
    // Substring mode is unchanged: "fusion.1" finds both fusions by name only.
    auto sub = searchSlices(*trace, "fusion.1", SearchOptions{});
    QCOMPARE(sub.value().total, uint64_t(2));
}

QTEST_GUILESS_MAIN(TestSearch)
#include "tst_search.moc"
