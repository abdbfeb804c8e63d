// Cancellation and the work-sharing loop: parallelFor joins every thread before an exception
// (from the caller's share or a worker's) reaches the caller; a cancel token reaches the
// workers, the level-of-detail build, the selection summaries and the analyses, and a cancelled
// analysis leaves nothing in the cache.

#include "core/analysis/analysiscache.h"
#include "core/analysis/opmetrics.h"
#include "core/base/cancel.h"
#include "core/base/parallel.h"
#include "core/model/tracebuilder.h"
#include "core/query/lodindex.h"
#include "core/query/selectionsummary.h"

#include <QtTest>

#include <stdexcept>

using namespace tracedesk::core;

namespace {

// One host thread: "outer:Conv2D" 0-100 ps holding "inner:MatMul" 10-30 ps, then "late:Relu"
// 200-240 ps. Host op time (XProf: self times of the framework ops) = 80 + 20 + 40 = 140 ps.
std::shared_ptr<Trace> hostTrace()
{
    TraceBuilder builder;
    const uint32_t plane = builder.addPlane("/host:CPU", "/host:CPU", 1, PlaneKind::Host);
    const uint32_t track = builder.addTrack(plane, "python", 1);
    auto kind = [&](const char *name) {
        EventKind k;
        k.name = builder.intern(name);
        return builder.addKind(k);
    };
    TrackBuilder &t = builder.trackBuilder(track);
    t.addSlice(0, 100, kind("outer:Conv2D"));
    t.addSlice(10, 20, kind("inner:MatMul"));
    t.addSlice(200, 40, kind("late:Relu"));
    return builder.build();
}

// Jobs started and jobs finished.
struct Census
{
    std::atomic<int> entered{0};
    std::atomic<int> left{0};
};

} // namespace

class TestCancellation : public QObject
{
    Q_OBJECT

private slots:
    void callerShareThrowsAfterWorkersJoined();
    void workerShareThrowsAfterWorkersJoined();
    void tokenReachesWorkers();
    void lodBuildCancelled();
    void summariesCancelled();
    void cancelledAnalysisIsNotCached();
};

void TestCancellation::callerShareThrowsAfterWorkersJoined()
{
    Census census;
    std::atomic<bool> callerIn{false};
    bool caught = false;
    try {
        parallelFor(100, 3, [&](unsigned worker, size_t) {
            ++census.entered;
            if (worker == 0) {
                callerIn = true;
                ++census.left;
                throw std::runtime_error("caller");
            }
            // Other workers hold their first item until the caller has one, so the caller's
            // share is sure to run and throw while they are still busy.
            while (!callerIn)
                std::this_thread::yield();
            ++census.left;
            return true;
        });
    } catch (const std::runtime_error &e) {
        caught = QByteArray(e.what()) == "caller";
        // Every job that started has ended: the workers were joined before the rethrow.
        QCOMPARE(census.left.load(), census.entered.load());
    }
    QVERIFY(caught);
}

void TestCancellation::workerShareThrowsAfterWorkersJoined()
{
    Census census;
    std::atomic<bool> thrown{false};
    bool caught = false;
    try {
        parallelFor(100, 3, [&](unsigned worker, size_t) {
            ++census.entered;
            if (worker == 1) {
                thrown = true;
                ++census.left;
                throw std::logic_error("worker");
            }
            // The others (the caller included) wait for the throw, then finish their item.
            while (!thrown)
                std::this_thread::yield();
            ++census.left;
            return true;
        });
    } catch (const std::logic_error &e) {
        caught = QByteArray(e.what()) == "worker";
        QCOMPARE(census.left.load(), census.entered.load());
    }
    QVERIFY(caught);
}

void TestCancellation::tokenReachesWorkers()
{
    std::atomic<bool> cancel{false};
    std::atomic<int> sawToken{0};
    std::atomic<int> ran{0};
    const auto result = runCancellable(&cancel, [&] {
        parallelFor(1000, 3, [&](unsigned, size_t i) {
            if (currentCancelToken() == &cancel)
                ++sawToken;
            ++ran;
            if (i == 10)
                cancel = true;
            checkCancelled();
            return true;
        });
        return 1;
    });
    QVERIFY(!result.has_value());
    QCOMPARE(sawToken.load(), ran.load());
    QVERIFY(ran.load() < 1000);
    QCOMPARE(currentCancelToken(), nullptr); // the scope ended with the call
    // Without a scope nothing is ever cancelled.
    QCOMPARE(runCancellable(nullptr, [] { return 7; }).value_or(0), 7);
}

void TestCancellation::lodBuildCancelled()
{
    const auto trace = hostTrace();
    std::atomic<bool> cancel{true};
    QVERIFY(!TraceLodIndex::build(*trace, &cancel));
    cancel = false;
    const auto index = TraceLodIndex::build(*trace, &cancel);
    QVERIFY(index);
    // The fixture has one track with two rows (nesting depths 0 and 1).
    QVERIFY(index->row(0, 0));
    QVERIFY(index->row(0, 1));
    QVERIFY(!index->row(0, 2));
}

void TestCancellation::summariesCancelled()
{
    const auto trace = hostTrace();
    std::atomic<bool> cancel{true};
    QVERIFY(summarizeArea(*trace, {{0}, 0, 1000}, &cancel).empty());
    const std::vector<SliceRef> refs{{0, 0, 0}, {0, 1, 0}};
    QVERIFY(summarizeSlices(*trace, refs, &cancel).empty());
    cancel = false;
    // Three slices of three names in the area; the two refs name two slices.
    QCOMPARE(summarizeArea(*trace, {{0}, 0, 1000}, &cancel).size(), size_t(3));
    QCOMPARE(summarizeSlices(*trace, refs, &cancel).size(), size_t(2));
}

void TestCancellation::cancelledAnalysisIsNotCached()
{
    using namespace tracedesk::core::analysis;
    AnalysisCache cache(hostTrace());
    std::atomic<bool> cancel{true};
    QVERIFY(!runCancellable(&cancel, [&] { return opStats(cache); }).has_value());
    QVERIFY(!cache.has<OpStats>());

    std::atomic<bool> fresh{false};
    const auto stats = runCancellable(&fresh, [&] { return opStats(cache); });
    QVERIFY(stats.has_value() && *stats);
    QVERIFY(cache.has<OpStats>());
    QCOMPARE((*stats)->host.totalOpTimePs, TimePs(80 + 20 + 40));
}

QTEST_GUILESS_MAIN(TestCancellation)
#include "tst_cancellation.moc"
