// BackgroundJob never makes the GUI thread wait: replacing or stopping work that is still
// running returns at once (the event loop keeps turning while the old work is blocked), a stale
// result is never delivered, cancelled work ends at its next look at the token, and the
// receiver may be destroyed while work runs.

#include "core/base/cancel.h"
#include "views/common/jobreaper.h"
#include "views/timeline/backgroundjob.h"

#include <QtTest>

#include <chrono>
#include <future>

using namespace tracedesk;
using namespace tracedesk::views;

namespace {

// Work that ignores its cancel token until the test releases it: the worst case for a job that
// would join old work (a regression makes wait_for time out and the test fail, not hang).
struct Latch
{
    std::promise<void> promise;
    std::shared_future<void> future = promise.get_future().share();
    std::atomic<bool> started{false};
    std::atomic<bool> finished{false};

    void release() { promise.set_value(); }
};

// Sets a flag when destroyed, also while an exception unwinds.
struct EndMarker
{
    std::atomic<bool> *ended;
    ~EndMarker() { ended->store(true); }
};

// Every adopted thread joined, then everything they posted handled.
void drainWorkers()
{
    QTRY_COMPARE_WITH_TIMEOUT(JobReaper::pending(), 0, 30000);
    QCoreApplication::sendPostedEvents();
    QCoreApplication::processEvents();
}

} // namespace

class TestBackgroundJob : public QObject
{
    Q_OBJECT

private slots:
    void replacingDoesNotWaitForOldWork();
    void stoppedWorkReadingTokenEnds();
    void stoppedAnalysisEndsAtCheckpoint();
    void receiverDestroyedWhileRunning();
    void jobOutlivesReceiver();
};

void TestBackgroundJob::replacingDoesNotWaitForOldWork()
{
    QObject receiver;
    BackgroundJob job;
    auto latch = std::make_shared<Latch>();
    bool oldDelivered = false;
    int newValue = 0;
    job.run<int>(
        &receiver,
        [latch] {
            latch->started = true;
            latch->future.wait_for(std::chrono::seconds(60));
            latch->finished = true;
            return 1;
        },
        [&](int) { oldDelivered = true; });
    QTRY_VERIFY(latch->started.load());

    // The event loop's heartbeat: counts only while the GUI thread is free.
    int ticks = 0;
    QTimer heartbeat;
    heartbeat.setInterval(1);
    connect(&heartbeat, &QTimer::timeout, this, [&] { ++ticks; });
    heartbeat.start();

    job.run<int>(&receiver, [] { return 2; }, [&](int v) { newValue = v; });
    QVERIFY(!latch->finished.load()); // run() returned without joining the blocked work
    QTRY_COMPARE(newValue, 2);
    QTRY_VERIFY(ticks >= 5);
    QVERIFY(!latch->finished.load()); // ... and the loop turned while it was still blocked

    latch->release();
    QTRY_VERIFY(latch->finished.load());
    drainWorkers();
    QVERIFY(!oldDelivered); // the stale generation's result was dropped
    QCOMPARE(newValue, 2);
}

void TestBackgroundJob::stoppedWorkReadingTokenEnds()
{
    QObject receiver;
    BackgroundJob job;
    auto started = std::make_shared<std::atomic<bool>>(false);
    auto ended = std::make_shared<std::atomic<bool>>(false);
    bool delivered = false;
    job.run<int>(
        &receiver,
        [started, ended](core::CancelToken cancel) {
            EndMarker marker{ended.get()};
            started->store(true);
            while (!core::isCancelled(cancel))
                std::this_thread::yield();
            return 1;
        },
        [&](int) { delivered = true; });
    QTRY_VERIFY(started->load());
    QVERIFY(job.active());
    job.stop();
    QVERIFY(!job.active());
    QTRY_VERIFY(ended->load());
    drainWorkers();
    QVERIFY(!delivered);
}

void TestBackgroundJob::stoppedAnalysisEndsAtCheckpoint()
{
    // Analyses take no token; they call checkCancelled(), which throws inside the worker's
    // cancel scope and is caught before anything is delivered.
    QObject receiver;
    BackgroundJob job;
    auto started = std::make_shared<std::atomic<bool>>(false);
    auto ended = std::make_shared<std::atomic<bool>>(false);
    bool delivered = false;
    job.run<int>(
        &receiver,
        [started, ended] {
            EndMarker marker{ended.get()};
            started->store(true);
            for (;;) {
                core::checkCancelled();
                std::this_thread::yield();
            }
            return 1;
        },
        [&](int) { delivered = true; });
    QTRY_VERIFY(started->load());
    job.stop();
    QTRY_VERIFY(ended->load());
    drainWorkers();
    QVERIFY(!delivered);
}

void TestBackgroundJob::receiverDestroyedWhileRunning()
{
    // A panel's layout: the job is a member of the receiver and dies with it.
    struct Panel : QObject
    {
        BackgroundJob job;
    };
    auto latch = std::make_shared<Latch>();
    auto delivered = std::make_shared<bool>(false);
    auto *panel = new Panel;
    panel->job.run<int>(
        panel,
        [latch] {
            latch->started = true;
            latch->future.wait_for(std::chrono::seconds(60));
            latch->finished = true;
            return 1;
        },
        [delivered](int) { *delivered = true; });
    QTRY_VERIFY(latch->started.load());
    delete panel; // returns at once although the work is blocked
    QVERIFY(!latch->finished.load());
    latch->release();
    drainWorkers();
    QVERIFY(!*delivered);
}

void TestBackgroundJob::jobOutlivesReceiver()
{
    // The work finishes and posts after the receiver is gone; the job itself is still alive.
    BackgroundJob job;
    auto latch = std::make_shared<Latch>();
    auto delivered = std::make_shared<bool>(false);
    auto *receiver = new QObject;
    job.run<int>(
        receiver,
        [latch] {
            latch->started = true;
            latch->future.wait_for(std::chrono::seconds(60));
            return 1;
        },
        [delivered](int) { *delivered = true; });
    QTRY_VERIFY(latch->started.load());
    delete receiver;
    latch->release();
    drainWorkers();
    QVERIFY(!*delivered);
}

QTEST_MAIN(TestBackgroundJob)
#include "tst_backgroundjob.moc"
