// Op metrics databases: tiny synthetic traces pin nesting, merging and IDLE by hand; the real
// GPU and TPU fixtures are checked against sums computed here straight from the protobuf.

#include "core/analysis/opmetrics.h"
#include "core/generate/xspacewriter.h"
#include "core/io/traceloader.h"
#include "core/model/tracebuilder.h"

#include "xplane.pb.h"

#include <QtTest>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>

using namespace tracedesk::core;
using namespace tracedesk::core::analysis;

namespace {

std::string fixture(const char *relative)
{
    return std::string(TRACEDESK_SHARED_FIXTURES) + "/xspace/" + relative;
}
const char *const kGpu = "xprof_GPU-multi-worker/34.83.195.179_6003.xplane.pb";
const char *const kTpu = "xprof_tpu_inference_2/tpu_inference_2.xplane.pb";

bool readSpace(const std::string &path, tensorflow::profiler::XSpace *space)
{
    std::ifstream in(path, std::ios::binary);
    return in && space->ParseFromIstream(&in);
}

std::string statName(const tensorflow::profiler::XPlane &plane, int64_t id)
{
    auto it = plane.stat_metadata().find(id);
    return it == plane.stat_metadata().end() ? std::string() : it->second.name();
}

// String value of the event's stat `name` (str or ref), else empty.
std::string eventStat(const tensorflow::profiler::XPlane &plane,
                      const tensorflow::profiler::XEvent &e, const std::string &name)
{
    for (const auto &s : e.stats()) {
        if (statName(plane, s.metadata_id()) != name)
            continue;
        if (s.has_ref_value())
            return statName(plane, int64_t(s.ref_value()));
        return s.str_value();
    }
    return {};
}

struct Span
{
    int64_t start, end;
};

} // namespace

class TestOpMetrics : public QObject
{
    Q_OBJECT

private slots:
    void hostSelfTimeWithNesting();
    void hostIdlePerThreadXSpace();
    void deviceTypeByVendor_data();
    void deviceTypeByVendor();
    void gpuMergesByGroupAndAddsIdle();
    void tpuSelfTimeFromNesting();
    void timeRangeFilters();
    void realGpuDeviceOps();
    void realGpuHostOps();
    void realTpuDeviceOps();
    void perfEnvAndRunEnvironment();
    void cachedOpStats();
};

// Thread 1:  outer:Foo 0-100 > inner:Bar 10-40, python 50-90 > deep:Bar 60-70
// Thread 2:  Iterator::Prefetch 200-250 ; MemcpyHToD 260-270 ; plain 300-400 (not an op)
void TestOpMetrics::hostSelfTimeWithNesting()
{
    TraceBuilder b;
    const uint32_t plane = b.addPlane("/host:CPU", "h", 1, PlaneKind::Host);
    const uint32_t t1 = b.addTrack(plane, "main", 1);
    const uint32_t t2 = b.addTrack(plane, "data", 2);
    auto kind = [&](const char *name) {
        EventKind k;
        k.name = b.intern(name);
        k.plane = plane;
        return b.addKind(k);
    };
    TrackBuilder &m = b.trackBuilder(t1);
    m.addSlice(0, 100, kind("outer:Foo"));
    m.addSlice(10, 30, kind("inner:Bar#shape=(f32[2])#"));
    m.addSlice(50, 40, kind("python"));
    m.addSlice(60, 10, kind("deep:Bar"));
    TrackBuilder &d = b.trackBuilder(t2);
    d.addSlice(200, 50, kind("Iterator::Prefetch"));
    d.addSlice(260, 10, kind("MemcpyHToD"));
    d.addSlice(300, 100, kind("plain"));
    const auto trace = b.build();

    const OpMetricsDb db = hostOpMetrics(*trace);
    const OpMetrics *outer = db.find("outer");
    QVERIFY(outer);
    QCOMPARE(outer->category, std::string("Foo"));
    QCOMPARE(outer->timePs, TimePs(100));
    QCOMPARE(outer->selfTimePs, TimePs(100 - 30 - 10));   // python is transparent
    const OpMetrics *inner = db.find("inner");
    QVERIFY(inner);
    QCOMPARE(inner->category, std::string("Bar"));
    QCOMPARE(inner->selfTimePs, TimePs(30));
    const OpMetrics *data = db.find("Iterator::Prefetch");
    QVERIFY(data);
    QCOMPARE(data->category, std::string("Dataset"));
    QCOMPARE(data->selfTimePs, TimePs(50));
    const OpMetrics *memcpy = db.find("MemcpyHToD");
    QVERIFY(memcpy);
    QCOMPARE(memcpy->category, std::string("MemcpyHToD"));
    QVERIFY(!db.find("plain"));
    QVERIFY(!db.find("python"));
    // Per thread (XProf): main spans its ops 0-100 with self time 60 + 30 + 10 = 100, idle 0;
    // data spans 200-270 (`plain` is no op) with self time 50 + 10, idle 10.
    QCOMPARE(db.totalTimePs, TimePs(100 + 70));
    QCOMPARE(db.totalOpTimePs, TimePs(160));
    QCOMPARE(db.idleTimePs, TimePs(10));
    QVERIFY(db.idle());
    QCOMPARE(db.idle()->selfTimePs, TimePs(10));
    QCOMPARE(db.metrics.front().name, std::string("outer"));   // sorted by self time
}

// Two host threads whose op spans overlap in time, written as an XSpace. XProf builds one op
// db per thread (total = that thread's first op begin to last op end, op time = summed self
// time) and adds them up, so IDLE = sum over threads of (span - self time):
//   t1: step:Step 0-1000 > inner:Bar 100-400  -> span 1000, self 700 + 300 = 1000, idle 0
//   t2: x:Baz 500-600, y:Baz 1200-1500         -> span 1000, self 100 + 300 = 400,  idle 600
// One span over both threads (0-1500, self 1400) would give 100.
void TestOpMetrics::hostIdlePerThreadXSpace()
{
    QTemporaryDir dir;
    const std::string path = (dir.path() + "/host.xplane.pb").toStdString();
    XSpaceWriter w(path);
    QVERIFY(w.open().ok());
    const uint32_t plane = w.addPlane(1, "/host:CPU");
    const uint32_t t1 = w.addLine(plane, 1, "t1", 0);
    const uint32_t t2 = w.addLine(plane, 2, "t2", 0);
    w.addEvent(t1, w.eventMetadata(plane, "step:Step"), 0, 1000);
    w.addEvent(t1, w.eventMetadata(plane, "inner:Bar"), 100, 300);
    w.addEvent(t2, w.eventMetadata(plane, "x:Baz"), 500, 100);
    w.addEvent(t2, w.eventMetadata(plane, "y:Baz"), 1200, 300);
    QVERIFY(w.finish().ok());
    auto trace = loadTrace(path);
    QVERIFY2(trace, trace ? "" : trace.message().c_str());
    const OpMetricsDb db = hostOpMetrics(*trace.value());
    QCOMPARE(db.totalTimePs, TimePs(1000 + 1000));
    QCOMPARE(db.totalOpTimePs, TimePs(1000 + 400));
    QCOMPARE(db.idleTimePs, TimePs(600));
    QVERIFY(db.idle());
    QCOMPARE(db.idle()->timePs, TimePs(600));
}

namespace {

// One GPU plane with the given device stats and one kernel, as an XSpace file.
std::string writeGpuSpace(const QTemporaryDir &dir, const char *file, const char *vendor,
                          int ccMajor, int ccMinor)
{
    const std::string path = (dir.path() + "/" + file).toStdString();
    XSpaceWriter w(path);
    if (!w.open().ok())
        return {};
    const uint32_t plane = w.addPlane(1, "/device:GPU:0");
    XStatList stats;
    if (vendor)
        stats.addString(w.statMetadata(plane, "device_vendor"), vendor);
    if (ccMajor >= 0) {
        stats.addInt(w.statMetadata(plane, "compute_cap_major"), ccMajor);
        stats.addInt(w.statMetadata(plane, "compute_cap_minor"), ccMinor);
    }
    stats.addInt(w.statMetadata(plane, "core_count"), 10);
    w.setPlaneStats(plane, stats);
    const uint32_t line = w.addLine(plane, 1, "Stream #1(Kernel)", 0);
    w.addEvent(line, w.eventMetadata(plane, "kernel"), 0, 100);
    return w.finish().ok() ? path : std::string();
}

} // namespace

// XProf's SetRunEnvironment: device_type = GpuModelName(caps of the first GPU plane), "GPU" when
// that is empty. GpuModelName (hardware_type_utils.cc): vendor "Nvidia" -> "Nvidia GPU (<arch by
// CC>)", or "Nvidia GPU" for a CC it does not name; "AMD" -> "AMD GPU - <gfx>" (CC 9.4 gfx942,
// 9.5 gfx950), else the family by CC major, else "AMD GPU"; any other vendor -> "".
void TestOpMetrics::deviceTypeByVendor_data()
{
    QTest::addColumn<QString>("vendor");   // null: no device_vendor stat
    QTest::addColumn<int>("major");        // -1: no compute capability stats
    QTest::addColumn<int>("minor");
    QTest::addColumn<QString>("deviceType");
    QTest::newRow("nvidia, unknown cc") << "Nvidia" << 12 << 0 << "Nvidia GPU";
    QTest::newRow("nvidia, no cc") << "Nvidia" << -1 << 0 << "Nvidia GPU";
    QTest::newRow("nvidia 8.9") << "Nvidia" << 8 << 9 << "Nvidia GPU (Ada Lovelace)";
    QTest::newRow("nvidia 7.5") << "Nvidia" << 7 << 5 << "Nvidia GPU (Turing)";
    QTest::newRow("amd 9.4") << "AMD" << 9 << 4 << "AMD GPU - gfx942";
    QTest::newRow("amd 11.0") << "AMD" << 11 << 0 << "AMD GPU - gfx-11XX series";
    QTest::newRow("amd, no cc") << "AMD" << -1 << 0 << "AMD GPU";
    QTest::newRow("other vendor") << "Intel" << -1 << 0 << "GPU";
    QTest::newRow("nothing known") << QString() << -1 << 0 << "GPU";
}

void TestOpMetrics::deviceTypeByVendor()
{
    QFETCH(QString, vendor);
    QFETCH(int, major);
    QFETCH(int, minor);
    QFETCH(QString, deviceType);
    QTemporaryDir dir;
    const QByteArray v = vendor.toUtf8();
    const std::string path =
        writeGpuSpace(dir, "gpu.xplane.pb", vendor.isNull() ? nullptr : v.constData(), major, minor);
    QVERIFY(!path.empty());
    auto trace = loadTrace(path);
    QVERIFY2(trace, trace ? "" : trace.message().c_str());
    const RunEnvironment env = runEnvironment(*trace.value());
    QCOMPARE(QString::fromStdString(env.deviceType), deviceType);
    QCOMPARE(env.hardwareType, HardwareType::Gpu);
}

namespace {

std::shared_ptr<Trace> gpuTrace()
{
    TraceBuilder b;
    const uint32_t plane = b.addPlane("/device:GPU:0", "h", 1, PlaneKind::Device);
    const uint32_t stream = b.addTrack(plane, "Stream #1(Kernel)", 1);
    const uint32_t derived = b.addTrack(plane, "XLA Ops", int64_t(int32_t(0xdeadbeefu)) + 5);
    auto kind = [&](const char *name) {
        EventKind k;
        k.name = b.intern(name);
        k.plane = plane;
        return b.addKind(k);
    };
    const uint32_t fusionKernel = kind("fusion_kernel"), gemm = kind("gemm"),
                   memcpy = kind("MemcpyH2D"), derivedKind = kind("fusion.1");
    const StringId fusion = b.intern("fusion.1"), tfOp = b.intern("a/MatMul:MatMul");
    TrackBuilder &s = b.trackBuilder(stream);
    auto hloKernel = [&](TimePs start, TimePs dur, int64_t group) {
        const uint32_t i = s.addSlice(start, dur, fusionKernel);
        s.setSide(i, SideColumn::HloOp, fusion);
        s.setSide(i, SideColumn::ProgramId, 7);
        s.setSide(i, SideColumn::GroupId, group);
        s.setSide(i, SideColumn::Flops, 1000);
    };
    hloKernel(0, 10, 1);
    hloKernel(12, 8, 1);    // same op, same group: the same occurrence
    hloKernel(25, 5, 2);    // next group: a new occurrence
    const uint32_t g = s.addSlice(40, 10, gemm);
    s.setSide(g, SideColumn::FrameworkOp, tfOp);
    s.addSlice(60, 10, memcpy);   // no op: idle
    b.trackBuilder(derived).addSlice(0, 1000, derivedKind);   // derived lines are ignored
    return b.build();
}

} // namespace

void TestOpMetrics::gpuMergesByGroupAndAddsIdle()
{
    const auto trace = gpuTrace();
    const OpMetricsDb db = deviceOpMetrics(*trace);
    const OpMetrics *fusion = db.find("fusion.1");
    QVERIFY(fusion);
    QCOMPARE(fusion->occurrences, int64_t(2));
    QCOMPARE(fusion->timePs, TimePs(23));
    QCOMPARE(fusion->selfTimePs, TimePs(23));
    QCOMPARE(fusion->minTimePs, TimePs(5));
    QCOMPARE(fusion->hloModuleId, int64_t(7));
    QCOMPARE(fusion->category, std::string("fusion"));   // no HLO: the name stem
    QCOMPARE(fusion->flops, 2000.0);                       // per occurrence
    const OpMetrics *gemm = db.find("a/MatMul/gemm");
    QVERIFY(gemm);
    QCOMPARE(gemm->category, std::string("MatMul"));
    QCOMPARE(gemm->provenance, std::string("a/MatMul:MatMul"));
    QCOMPARE(gemm->occurrences, int64_t(1));
    QCOMPARE(db.totalTimePs, TimePs(70));
    QCOMPARE(db.totalOpTimePs, TimePs(33));
    QCOMPARE(db.idleTimePs, TimePs(37));
    QVERIFY(db.idle());
    QCOMPARE(db.idle()->timePs, TimePs(37));
    QCOMPARE(db.metrics.size(), size_t(3));
}

// XLA Ops: a 0-100 > b 10-30, c 40-50 > d 42-44 ; a again 200-210.
void TestOpMetrics::tpuSelfTimeFromNesting()
{
    TraceBuilder b;
    const uint32_t plane = b.addPlane("/device:TPU:0", "h", 1, PlaneKind::Device);
    const uint32_t ops = b.addTrack(plane, "XLA Ops", 2);
    auto kind = [&](const char *expr, const char *name) {
        EventKind k;
        k.name = b.intern(expr);
        k.displayName = b.intern(name);
        k.plane = plane;
        k.side[size_t(SideColumn::Flops)] = 50;
        return b.addKind(k);
    };
    const uint32_t a = kind("%a = f32[2] fusion()", "a"), bb = kind("%b = bf16[2] add()", "b"),
                   c = kind("%c = f32[4] copy()", "c"), d = kind("%d = f32[4] neg()", "d");
    TrackBuilder &t = b.trackBuilder(ops);
    t.addSlice(0, 100, a);
    t.addSlice(10, 20, bb);
    t.addSlice(40, 10, c);
    t.addSlice(42, 2, d);
    t.addSlice(200, 10, a);
    const auto trace = b.build();
    const OpMetricsDb db = deviceOpMetrics(*trace);
    const OpMetrics *opA = db.find("a");
    QVERIFY(opA);
    QCOMPARE(opA->occurrences, int64_t(2));
    QCOMPARE(opA->timePs, TimePs(110));
    QCOMPARE(opA->selfTimePs, TimePs(100 - 20 - 10 + 10));
    QCOMPARE(opA->flops, 100.0);   // per-occurrence flops x occurrences
    QCOMPARE(opA->longName, std::string("%a = f32[2] fusion()"));
    QCOMPARE(db.find("c")->selfTimePs, TimePs(8));
    QCOMPARE(db.find("d")->selfTimePs, TimePs(2));
    QCOMPARE(db.totalTimePs, TimePs(210));
    QCOMPARE(db.totalOpTimePs, TimePs(110));   // the top-level time
    QCOMPARE(db.idleTimePs, TimePs(100));
    // Precision: b is bf16 (self 20), a, c, d are f32 (80 + 8 + 2).
    QCOMPARE(db.compute16bitPs, TimePs(20));
    QCOMPARE(db.compute32bitPs, TimePs(90));
}

void TestOpMetrics::timeRangeFilters()
{
    const auto trace = gpuTrace();
    const OpMetricsDb db = deviceOpMetrics(*trace, TimeRange{20, 55});
    QVERIFY(db.find("fusion.1"));
    QCOMPARE(db.find("fusion.1")->occurrences, int64_t(1));
    QCOMPARE(db.find("fusion.1")->timePs, TimePs(5));
    QCOMPARE(db.find("a/MatMul/gemm")->timePs, TimePs(10));
    QCOMPARE(db.totalTimePs, TimePs(50 - 25));

    // A slice starting at the range's begin is in it, one starting at its end is not.
    const OpMetricsDb edges = deviceOpMetrics(*trace, TimeRange{25, 60});
    QCOMPARE(edges.find("fusion.1")->occurrences, int64_t(1));
    QCOMPARE(edges.find("fusion.1")->timePs, TimePs(5));
    QCOMPARE(edges.find("a/MatMul/gemm")->timePs, TimePs(10));
    QCOMPARE(edges.totalTimePs, TimePs(50 - 25));
    const OpMetricsDb second = deviceOpMetrics(*trace, TimeRange{12, 25});
    QCOMPARE(second.find("fusion.1")->timePs, TimePs(8));
    QVERIFY(!second.find("a/MatMul/gemm"));
    QCOMPARE(second.totalTimePs, TimePs(20 - 12));
    const OpMetricsDb after = deviceOpMetrics(*trace, TimeRange{61, 100});
    QVERIFY(!after.find("fusion.1"));
    QCOMPARE(after.totalTimePs, TimePs(0));
}

void TestOpMetrics::realGpuDeviceOps()
{
    const std::string path = fixture(kGpu);
    if (!std::filesystem::exists(path))
        QSKIP("shared GPU fixture not present");
    tensorflow::profiler::XSpace space;
    QVERIFY(readSpace(path, &space));
    // Independent: kernels on stream lines with a framework op (`level 0`), named
    // `<op name>/<kernel>`; per-plane span of all stream activity.
    std::map<std::string, std::pair<int64_t, int64_t>> expected;   // name -> (count, time)
    int64_t spans = 0, opTime = 0;
    for (const auto &plane : space.planes()) {
        if (plane.name().rfind("/device:GPU:", 0) != 0)
            continue;
        int64_t first = INT64_MAX, last = INT64_MIN;
        for (const auto &line : plane.lines()) {
            if (line.name().rfind("Stream #", 0) != 0)
                continue;
            for (const auto &e : line.events()) {
                const int64_t start = line.timestamp_ns() * 1000 + e.offset_ps();
                first = std::min(first, start);
                last = std::max(last, start + e.duration_ps());
                std::string op = eventStat(plane, e, "level 0");
                if (op.empty())
                    continue;
                op = op.substr(0, op.find('#'));
                const std::string kernel = plane.event_metadata().at(e.metadata_id()).name();
                auto &slot = expected[op.substr(0, op.rfind(':')) + "/" + kernel];
                ++slot.first;
                slot.second += e.duration_ps();
                opTime += e.duration_ps();
            }
        }
        if (first <= last)
            spans += last - first;
    }
    QVERIFY(expected.size() > 100);

    auto trace = loadTrace(path);
    QVERIFY2(trace, trace ? "" : trace.message().c_str());
    const OpMetricsDb db = deviceOpMetrics(*trace.value());
    for (const OpMetrics &m : db.metrics) {
        if (!m.isIdle() && !expected.count(m.name))
            qWarning() << "unexpected" << m.name.c_str() << m.category.c_str() << m.occurrences;
    }
    QCOMPARE(db.metrics.size(), expected.size() + 1);   // + IDLE
    for (const auto &[name, v] : expected) {
        const OpMetrics *m = db.find(name);
        QVERIFY2(m, name.c_str());
        QCOMPARE(m->occurrences, v.first);
        QCOMPARE(m->timePs, v.second);
        QCOMPARE(m->selfTimePs, v.second);
    }
    // The top op by self time is the independent maximum.
    auto top = std::max_element(expected.begin(), expected.end(), [](auto &a, auto &b) {
        return a.second.second < b.second.second;
    });
    const OpMetrics *first = db.metrics[0].isIdle() ? &db.metrics[1] : &db.metrics[0];
    QCOMPARE(first->name, top->first);
    QCOMPARE(db.totalTimePs, spans);
    QCOMPARE(db.totalOpTimePs, opTime);
    QCOMPARE(db.idleTimePs, std::max<int64_t>(0, spans - opTime));
    // Eigen::half kernels are 16-bit, float kernels 32-bit: both kinds are present.
    QVERIFY(db.compute16bitPs > 0);
    QVERIFY(db.compute32bitPs > 0);
    QVERIFY(db.compute16bitPs + db.compute32bitPs <= db.totalOpTimePs);
}

namespace {

// Independent host computation: framework ops (`name:Type`, `Iterator::`) per thread, self time
// = duration minus the durations of directly nested framework ops.
struct HostExpect
{
    int64_t count = 0, time = 0, self = 0;
};

bool isHostOp(const std::string &full, std::string *name)
{
    const std::string n = full.substr(0, full.find('#'));
    if (n.rfind("Iterator::", 0) == 0) {
        *name = n;
        return true;
    }
    const size_t colon = n.rfind(':');
    if (colon == std::string::npos || colon + 1 >= n.size() || (colon > 0 && n[colon - 1] == ':'))
        return false;
    const std::string type = n.substr(colon + 1);
    const bool tf = (std::isupper(uint8_t(type[0])) || type[0] == '_')
                    && std::all_of(type.begin(), type.end(),
                                   [](char c) { return std::isalnum(uint8_t(c)) || c == '_'; });
    const bool jax = (std::islower(uint8_t(type[0])) || type[0] == '_')
                     && std::all_of(type.begin(), type.end(), [](char c) {
                            return std::islower(uint8_t(c)) || std::isdigit(uint8_t(c)) || c == '_';
                        });
    if (!tf && !jax)
        return false;
    *name = n.substr(0, colon);
    return true;
}

} // namespace

void TestOpMetrics::realGpuHostOps()
{
    const std::string path = fixture(kGpu);
    if (!std::filesystem::exists(path))
        QSKIP("shared GPU fixture not present");
    tensorflow::profiler::XSpace space;
    QVERIFY(readSpace(path, &space));
    std::map<std::string, HostExpect> expected;
    int64_t lineSpans = 0, lineIdle = 0;   // XProf: per thread, span of its ops minus self time
    for (const auto &plane : space.planes()) {
        if (plane.name() != "/host:CPU")
            continue;
        for (const auto &line : plane.lines()) {
            struct Ev { int64_t start, dur; std::string name; };
            std::vector<Ev> evs;
            for (const auto &e : line.events()) {
                std::string name;
                if (isHostOp(plane.event_metadata().at(e.metadata_id()).name(), &name))
                    evs.push_back({e.offset_ps(), e.duration_ps(), name});
            }
            std::stable_sort(evs.begin(), evs.end(), [](const Ev &a, const Ev &b) {
                return a.start != b.start ? a.start < b.start : a.dur > b.dur;
            });
            struct Open { int64_t end, dur, child; std::string name; };
            std::vector<Open> stack;
            int64_t lineSelf = 0;
            auto close = [&] {
                HostExpect &h = expected[stack.back().name];
                const int64_t self = std::max<int64_t>(0, stack.back().dur - stack.back().child);
                h.self += self;
                lineSelf += self;
                stack.pop_back();
            };
            for (const Ev &e : evs) {
                while (!stack.empty() && stack.back().end <= e.start)
                    close();
                if (!stack.empty())
                    stack.back().child += e.dur;
                HostExpect &h = expected[e.name];
                ++h.count;
                h.time += e.dur;
                stack.push_back({e.start + e.dur, e.dur, 0, e.name});
            }
            while (!stack.empty())
                close();
            if (!evs.empty()) {
                int64_t last = evs.front().start;
                for (const Ev &e : evs)
                    last = std::max(last, e.start + e.dur);
                lineSpans += last - evs.front().start;
                lineIdle += std::max<int64_t>(0, last - evs.front().start - lineSelf);
            }
        }
    }
    QVERIFY(expected.size() > 10);
    auto trace = loadTrace(path);
    QVERIFY(trace);
    const OpMetricsDb db = hostOpMetrics(*trace.value());
    int64_t totalSelf = 0;
    for (const auto &[name, h] : expected) {
        // One name may carry several types (categories): compare the sums.
        int64_t count = 0, time = 0, self = 0;
        for (const OpMetrics &m : db.metrics) {
            if (m.name == name) {
                count += m.occurrences;
                time += m.timePs;
                self += m.selfTimePs;
            }
        }
        QVERIFY2(count > 0, name.c_str());
        QCOMPARE(count, h.count);
        QCOMPARE(time, h.time);
        QCOMPARE(self, h.self);
        totalSelf += h.self;
    }
    QCOMPARE(db.totalOpTimePs, totalSelf);
    QCOMPARE(db.totalTimePs, lineSpans);
    QCOMPARE(db.idleTimePs, lineIdle);
    QVERIFY(db.idle());
    QCOMPARE(db.idle()->selfTimePs, lineIdle);
}

void TestOpMetrics::realTpuDeviceOps()
{
    const std::string path = fixture(kTpu);
    if (!std::filesystem::exists(path))
        QSKIP("shared TPU fixture not present");
    tensorflow::profiler::XSpace space;
    QVERIFY(readSpace(path, &space));
    std::map<std::string, HostExpect> expected;   // by display name
    int64_t spans = 0, prec16 = 0, prec32 = 0;
    std::map<std::string, int> bits;
    for (const auto &plane : space.planes()) {
        if (plane.name().rfind("/device:TPU:", 0) != 0)
            continue;
        for (const auto &line : plane.lines()) {
            if (line.name() != "XLA Ops")
                continue;
            struct Ev { int64_t start, dur; std::string name; };
            std::vector<Ev> evs;
            int64_t first = INT64_MAX, last = INT64_MIN;
            for (const auto &e : line.events()) {
                const auto &md = plane.event_metadata().at(e.metadata_id());
                const std::string name = md.display_name().empty() ? md.name() : md.display_name();
                evs.push_back({e.offset_ps(), e.duration_ps(), name});
                first = std::min(first, e.offset_ps());
                last = std::max(last, e.offset_ps() + e.duration_ps());
                for (const auto &s : md.stats()) {
                    if (statName(plane, s.metadata_id()) != "shape_with_layout")
                        continue;
                    const std::string &shape = s.str_value();
                    const size_t f32 = shape.find("f32["), b16 = std::min(shape.find("bf16["),
                                                                           shape.find("f16["));
                    bits[name] = f32 == std::string::npos && b16 == std::string::npos ? 0
                                 : f32 < b16                                        ? 32
                                                                                    : 16;
                }
            }
            if (first <= last)
                spans += last - first;
            std::stable_sort(evs.begin(), evs.end(), [](const Ev &a, const Ev &b) {
                return a.start != b.start ? a.start < b.start : a.dur > b.dur;
            });
            struct Open { int64_t end, dur, child; std::string name; };
            std::vector<Open> stack;
            auto close = [&] {
                expected[stack.back().name].self
                    += std::max<int64_t>(0, stack.back().dur - stack.back().child);
                stack.pop_back();
            };
            for (const Ev &e : evs) {
                while (!stack.empty() && stack.back().end <= e.start)
                    close();
                if (!stack.empty())
                    stack.back().child += e.dur;
                ++expected[e.name].count;
                expected[e.name].time += e.dur;
                stack.push_back({e.start + e.dur, e.dur, 0, e.name});
            }
            while (!stack.empty())
                close();
        }
    }
    QVERIFY(!expected.empty());
    auto trace = loadTrace(path);
    QVERIFY(trace);
    const OpMetricsDb db = deviceOpMetrics(*trace.value());
    int64_t selfSum = 0;
    for (const auto &[name, h] : expected) {
        int64_t count = 0, time = 0, self = 0;
        for (const OpMetrics &m : db.metrics) {   // one name may sit in several categories
            if (m.name == name) {
                count += m.occurrences;
                time += m.timePs;
                self += m.selfTimePs;
            }
        }
        QCOMPARE(count, h.count);
        QCOMPARE(time, h.time);
        QCOMPARE(self, h.self);
        selfSum += h.self;
        if (bits[name] == 16)
            prec16 += h.self;
        else if (bits[name] == 32)
            prec32 += h.self;
    }
    QCOMPARE(db.totalTimePs, spans);
    QCOMPARE(db.totalOpTimePs, selfSum);
    QCOMPARE(db.idleTimePs, std::max<int64_t>(0, spans - selfSum));
    QCOMPARE(db.compute16bitPs, prec16);
    QCOMPARE(db.compute32bitPs, prec32);
}

void TestOpMetrics::perfEnvAndRunEnvironment()
{
    const std::string gpu = fixture(kGpu), tpu = fixture(kTpu);
    if (!std::filesystem::exists(gpu) || !std::filesystem::exists(tpu))
        QSKIP("shared fixtures not present");
    auto g = loadTrace(gpu);
    QVERIFY(g);
    const PerfEnv ge = perfEnv(*g.value());
    // V100: 80 SMs x 1.53 GHz x 1024 FLOP/cycle; 898048000000 B/s.
    QVERIFY(std::abs(ge.peakTeraFlopsPerSecond - 80 * 1.53 * 1024 / 1000) < 1e-6);
    QVERIFY(std::abs(ge.peakHbmBwGigaBytesPerSecond - 898.048) < 1e-6);
    QVERIFY(std::abs(ge.ridgePoint - ge.peakTeraFlopsPerSecond * 1000 / 898.048) < 1e-9);
    const RunEnvironment gr = runEnvironment(*g.value());
    QCOMPARE(gr.deviceType, std::string("Nvidia GPU (Volta)"));
    QCOMPARE(gr.deviceCoreCount, 8);
    QCOMPARE(gr.hardwareType, HardwareType::Gpu);
    QCOMPARE(gr.hostCount, 1);
    QCOMPARE(gr.capabilities.numCores, 80u);

    auto t = loadTrace(tpu);
    QVERIFY(t);
    const PerfEnv te = perfEnv(*t.value());
    QCOMPARE(te.peakTeraFlopsPerSecond, 918.0);
    QVERIFY(std::abs(te.peakHbmBwGigaBytesPerSecond - 1637.99) < 0.01);
    QCOMPARE(te.peakBwsGigaBytesPerSecond.size(), size_t(7));
    const RunEnvironment tr = runEnvironment(*t.value());
    QCOMPARE(tr.deviceType, std::string("TPU v6 Lite"));
    QCOMPARE(tr.deviceCoreCount, 4);
    QCOMPARE(tr.hardwareType, HardwareType::Tpu);
}

void TestOpMetrics::cachedOpStats()
{
    auto cache = std::make_shared<AnalysisCache>(gpuTrace());
    const auto a = opStats(*cache);
    const auto b = opStats(*cache);
    QCOMPARE(a.get(), b.get());
    QCOMPARE(a->device.totalOpTimePs, TimePs(33));
    QCOMPARE(a->runEnvironment.deviceCoreCount, 1);
}

QTEST_GUILESS_MAIN(TestOpMetrics)
#include "tst_opmetrics.moc"
