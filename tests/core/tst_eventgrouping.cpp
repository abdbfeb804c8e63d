// Event grouping of ungrouped XSpaces (XProf's GroupTfEvents, FORMATS.md 2.1) on small hand-made
// files: a TensorFlow graph-mode step whose root and device work sit on different threads, tied
// by producer/consumer stats. Every expectation is worked out below from XProf's rules, not
// read from the code under test.

#include "core/analysis/steps.h"
#include "core/generate/xspacewriter.h"
#include "core/io/traceloader.h"

#include <QTemporaryDir>
#include <QtTest>

using namespace tracedesk::core;
using namespace tracedesk::core::analysis;

namespace {

TracePtr load(const std::string &path)
{
    LoadOptions o;
    o.useCache = false;
    auto t = loadTrace(path, nullptr, o);
    if (!t.ok())
        qWarning("%s", t.message().c_str());
    return t.ok() ? t.value() : nullptr;
}

// The slice starting at `start` on the line with this id (XLine id = Track::sourceId).
SliceRef find(const Trace &trace, int64_t lineId, TimePs start)
{
    for (uint32_t t = 0; t < trace.tracks.size(); ++t) {
        const Track &track = trace.tracks[t];
        if (track.sourceId != lineId)
            continue;
        for (uint32_t r = 0; r < track.rows.size(); ++r) {
            for (uint32_t i = 0; i < track.rows[r].size(); ++i) {
                if (track.rows[r].start[i] - trace.begin == start)
                    return {t, r, i};
            }
        }
    }
    qFatal("no slice at %lld on line %lld", (long long)start, (long long)lineId);
    return {};
}

} // namespace

class TestEventGrouping : public QObject
{
    Q_OBJECT

private slots:
    void graphModeAcrossThreads();
    void crowdedContextIsNotLinked();
};

// Host plane (times in ps; the earliest event is at 0):
//   line 1 "python":      SessionRun A [0, 10000)  _r=1 id=101 _pt=1 _p=101
//                         SessionRun B [20000, 32000) _r=1 id=102 _pt=1 _p=102
//   line 2 "tf_Compute":  launch corr=5 [50, 80)  (outside every step)
//                         ExecutorState::Process [1000, 9000) id=101 iter_num=0 _ct=1 _c=101
//                           MatMul:MatMul [2000, 5000) > launch corr=11 [2500, 3000)
//                           launch corr=12 [6000, 6500)
//                         ExecutorState::Process [21000, 29000) id=102 iter_num=0 _ct=1 _c=102
//                           launch corr=21 [22000, 22500)
//   line 3 "tf_Compute":  ExecutorState::Process [3000, 8000) id=101 iter_num=0 _ct=1 _c=101
//                           launch corr=13 [3500, 4000)
// GPU plane:
//   line 7 stream:        kernel corr=5 [100, 900), kernel corr=11 [4000, 7000),
//                         kernel corr=13 [7500, 8500), kernel corr=12 [9000, 11000),
//                         kernel corr=21 [23000, 27000)
//   line 8 stream:        MemcpyD2H without correlation id [11500, 12000)
//
// XProf: the roots are the two SessionRuns (level 1, by time) -> groups 0 and 1. Each reaches
// the executor slices of its step id through context (1, id), on both tf_Compute threads, their
// nested slices, and through correlation ids the kernels. Launch 5 and its kernel have no root.
// On the GPU plane, ungrouped slices take the latest earlier group: the memcpy gets 0, kernel 5
// has none before it. Derived Steps: group 0 [4000, 12000), group 1 [23000, 27000).
// SessionRun is an implicit root (no step_name), so there is no host step marker: step spans
// are the device markers. Step 0 breakdown over [4000, 12000): kernels 3000 + 1000 + 2000 =
// 6000 of 32-bit compute; [7000, 7500) and [8500, 9000) lie under ExecutorState::Process (kernel
// launch, HOST_PREPARE, outranks SessionRun's HOST_COMPUTE): 1000; [11000, 12000) nothing
// counted (the memcpy has no correlation id): 1000 unknown. Step 1: 4000 of compute.
void TestEventGrouping::graphModeAcrossThreads()
{
    QTemporaryDir dir;
    const std::string path = (dir.path() + "/host.xplane.pb").toStdString();
    XSpaceWriter w(path);
    QVERIFY(w.open().ok());
    const uint32_t host = w.addPlane(1, "/host:CPU");
    const uint32_t gpu = w.addPlane(2, "/device:GPU:0");
    auto hstat = [&](const char *name) { return w.statMetadata(host, name); };
    const int64_t sessionRun = w.eventMetadata(host, "SessionRun");
    const int64_t process = w.eventMetadata(host, "ExecutorState::Process");
    const int64_t matmul = w.eventMetadata(host, "MatMul:MatMul");
    const int64_t launch = w.eventMetadata(host, "cudaLaunchKernel");
    const uint32_t python = w.addLine(host, 1, "python", 0);
    const uint32_t compute2 = w.addLine(host, 2, "tf_Compute", 0);
    const uint32_t compute3 = w.addLine(host, 3, "tf_Compute", 0);
    auto root = [&](int64_t t, int64_t d, int64_t id) {
        XStatList s;
        s.addInt(hstat("_r"), 1);
        s.addInt(hstat("id"), id);
        s.addInt(hstat("_pt"), 1);
        s.addUInt(hstat("_p"), uint64_t(id));
        w.addEvent(python, sessionRun, t, d, &s);
    };
    auto executor = [&](uint32_t line, int64_t t, int64_t d, int64_t id) {
        XStatList s;
        s.addInt(hstat("id"), id);
        s.addInt(hstat("iter_num"), 0);
        s.addInt(hstat("_ct"), 1);
        s.addUInt(hstat("_c"), uint64_t(id));
        w.addEvent(line, process, t, d, &s);
    };
    auto hostLaunch = [&](uint32_t line, int64_t t, int64_t corr) {
        XStatList s;
        s.addInt(hstat("correlation_id"), corr);
        w.addEvent(line, launch, t, 500 > t ? 30 : 500, &s);
    };
    root(0, 10000, 101);
    root(20000, 12000, 102);
    hostLaunch(compute2, 50, 5);
    executor(compute2, 1000, 8000, 101);
    w.addEvent(compute2, matmul, 2000, 3000);
    hostLaunch(compute2, 2500, 11);
    hostLaunch(compute2, 6000, 12);
    executor(compute2, 21000, 8000, 102);
    hostLaunch(compute2, 22000, 21);
    executor(compute3, 3000, 5000, 101);
    hostLaunch(compute3, 3500, 13);

    const uint32_t stream7 = w.addLine(gpu, 7, "Stream #7(Compute)", 0);
    const uint32_t stream8 = w.addLine(gpu, 8, "Stream #8(MemcpyD2H)", 0);
    auto kernel = [&](const char *name, int64_t t, int64_t d, int64_t corr) {
        XStatList s;
        s.addInt(w.statMetadata(gpu, "correlation_id"), corr);
        w.addEvent(stream7, w.eventMetadata(gpu, name), t, d, &s);
    };
    kernel("warmup_kernel", 100, 800, 5);
    kernel("volta_sgemm_128x64_nn", 4000, 3000, 11);
    kernel("relu_kernel", 7500, 1000, 13);
    kernel("add_kernel", 9000, 2000, 12);
    kernel("volta_sgemm_128x64_nn", 23000, 4000, 21);
    w.addEvent(stream8, w.eventMetadata(gpu, "MemcpyD2H"), 11500, 500);
    w.addHostname("tfhost");
    QVERIFY(w.finish().ok());

    TracePtr trace = load(path);
    QVERIFY(trace);
    AnalysisCache cache(trace);
    auto groups = stepGroups(cache);
    QVERIFY(!groups->fromFile);
    QCOMPARE(groups->groupCount, int64_t(2));
    QCOMPARE(groups->names, (std::vector<std::string>{"0", "1"}));
    auto groupOf = [&](int64_t line, TimePs t) {
        const SliceRef s = find(*trace, line, t);
        return groups->computed[s.track][s.row][s.index];
    };
    const std::vector<std::pair<int64_t, TimePs>> step0 = {
        {1, 0},    {2, 1000}, {2, 2000}, {2, 2500}, {2, 6000}, {3, 3000}, {3, 3500},
        {7, 4000}, {7, 7500}, {7, 9000}, {8, 11500}};
    for (const auto &[line, t] : step0)
        QVERIFY2(groupOf(line, t) == 0, qPrintable(QString("line %1 at %2").arg(line).arg(t)));
    for (const auto &[line, t] : std::vector<std::pair<int64_t, TimePs>>{
             {1, 20000}, {2, 21000}, {2, 22000}, {7, 23000}})
        QVERIFY2(groupOf(line, t) == 1, qPrintable(QString("line %1 at %2").arg(line).arg(t)));
    QCOMPARE(groupOf(2, 50), -1);
    QCOMPARE(groupOf(7, 100), -1);

    auto db = stepDb(cache);
    QCOMPARE(db->hardware, StepHardware::Gpu);
    QVERIFY(!db->groupedInFile);
    QCOMPARE(db->steps.size(), size_t(2));
    const StepInfo &a = db->steps[0];
    QCOMPARE(a.groupId, int64_t(0));
    QCOMPARE(a.name, std::string("0"));
    QCOMPARE(a.begin - trace->begin, TimePs(4000));
    QCOMPARE(a.duration, TimePs(8000));
    QCOMPARE(a.type(EventType::DeviceCompute32), TimePs(6000));
    QCOMPARE(a.type(EventType::HostPrepare), TimePs(1000));
    QCOMPARE(a.type(EventType::UnknownTime), TimePs(1000));
    const StepInfo &b = db->steps[1];
    QCOMPARE(b.groupId, int64_t(1));
    QCOMPARE(b.begin - trace->begin, TimePs(23000));
    QCOMPARE(b.duration, TimePs(4000));
    QCOMPARE(b.type(EventType::DeviceCompute32), TimePs(4000));
    QCOMPARE(db->compute32Ps, TimePs(10000));
    QCOMPARE(db->compute16Ps, TimePs(0));
}

// A context with 64 producers and 64 consumers is skipped by XProf: the consumer thread's work
// stays ungrouped, and with no device step there is no step at all. One producer fewer (63)
// links all of them to the root.
void TestEventGrouping::crowdedContextIsNotLinked()
{
    for (const int producers : {64, 63}) {
        QTemporaryDir dir;
        const std::string path = (dir.path() + "/host.xplane.pb").toStdString();
        XSpaceWriter w(path);
        QVERIFY(w.open().ok());
        const uint32_t host = w.addPlane(1, "/host:CPU");
        auto stat = [&](const char *name) { return w.statMetadata(host, name); };
        const uint32_t main = w.addLine(host, 1, "main", 0);
        const uint32_t worker = w.addLine(host, 2, "worker", 0);
        {
            XStatList s;
            s.addInt(stat("_r"), 1);
            w.addEvent(main, w.eventMetadata(host, "train"), 0, 1000000, &s);
        }
        for (int i = 0; i < producers; ++i) {
            XStatList s;
            s.addInt(stat("_pt"), 3);
            s.addInt(stat("_p"), 9);
            w.addEvent(main, w.eventMetadata(host, "produce"), 10 + 100 * i, 50, &s);
        }
        for (int i = 0; i < 64; ++i) {
            XStatList s;
            s.addInt(stat("_ct"), 3);
            s.addInt(stat("_c"), 9);
            w.addEvent(worker, w.eventMetadata(host, "consume"), 2000000 + 100 * i, 50, &s);
        }
        QVERIFY(w.finish().ok());
        TracePtr trace = load(path);
        QVERIFY(trace);
        const StepGroups groups = computeStepGroups(*trace);
        QCOMPARE(groups.groupCount, int64_t(1));
        const SliceRef consumer = find(*trace, 2, 2000000);
        QCOMPARE(groups.computed[consumer.track][consumer.row][consumer.index],
                 producers == 64 ? -1 : 0);
    }
}

QTEST_GUILESS_MAIN(TestEventGrouping)
#include "tst_eventgrouping.moc"
