// Step detection and grouping: real GPU/TPU files against an independent reading of the same
// XSpace through the generated protobuf classes, and tiny hand-built traces for the CPU-only,
// no-marker and ungrouped cases.

#include "core/analysis/steps.h"
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

const QString kGpu = QStringLiteral(TRACEDESK_SHARED_FIXTURES)
                     + "/xspace/xprof_GPU-multi-worker/34.83.195.179_6003.xplane.pb";
const QString kTpu = QStringLiteral(TRACEDESK_SHARED_FIXTURES)
                     + "/xspace/xprof_tpu_inference_2/tpu_inference_2.xplane.pb";

bool readSpace(const QString &path, XSpace *space)
{
    std::ifstream in(path.toStdString(), std::ios::binary);
    return in && space->ParseFromIstream(&in);
}

// Stat of an event (event first, then its metadata), as int64 or string.
struct StatReader
{
    const XPlane &plane;
    std::map<int64_t, std::string> names;
    explicit StatReader(const XPlane &p) : plane(p)
    {
        for (const auto &[id, m] : p.stat_metadata())
            names[id] = m.name();
    }
    template<typename F>
    bool find(const tensorflow::profiler::XEvent &e, const std::string &name, F &&f) const
    {
        for (const auto &s : e.stats()) {
            auto it = names.find(s.metadata_id());
            if (it != names.end() && it->second == name) {
                f(s);
                return true;
            }
        }
        auto md = plane.event_metadata().find(e.metadata_id());
        if (md == plane.event_metadata().end())
            return false;
        for (const auto &s : md->second.stats()) {
            auto it = names.find(s.metadata_id());
            if (it != names.end() && it->second == name) {
                f(s);
                return true;
            }
        }
        return false;
    }
    int64_t intStat(const tensorflow::profiler::XEvent &e, const std::string &name) const
    {
        int64_t v = -1;
        find(e, name, [&](const tensorflow::profiler::XStat &s) {
            v = s.has_int64_value() ? s.int64_value() : int64_t(s.uint64_value());
        });
        return v;
    }
};

struct Span
{
    int64_t begin = 0, duration = -1;
    void offer(int64_t b, int64_t d)
    {
        if (d > duration) {
            begin = b;
            duration = d;
        }
    }
};

} // namespace

class TestSteps : public QObject
{
    Q_OBJECT

private slots:
    void gpuFixtureSteps();
    void tpuInferenceHasNoStepMarker();
    void cpuOnlyHostMarkers();
    void noStepMarkerDiagnostic();
    void ungroupedRootsAreGrouped();
    void memcpyNames();
};

void TestSteps::gpuFixtureSteps()
{
    if (!QFile::exists(kGpu))
        QSKIP("shared GPU fixture not found (shared/fixtures/real)");
    XSpace space;
    QVERIFY(readSpace(kGpu, &space));
    // Independent: longest device marker per group on the Steps line of each GPU plane, kept
    // when the plane also has a grouped kernel with a correlation id in that group; host markers
    // (train*/test*/TraceContext names, or events with a step_name stat) in device groups.
    std::map<int64_t, Span> device, host;
    for (const XPlane &p : space.planes()) {
        if (p.name().rfind("/device:GPU:", 0) != 0)
            continue;
        StatReader stats(p);
        std::map<int64_t, Span> markers;
        std::set<int64_t> withKernels;
        for (const auto &line : p.lines()) {
            const bool steps = line.name() == "Steps";
            const bool derived = line.id() >= int32_t(0xdeadbeef) && line.id() <= int32_t(0xdeadbeef) + 289;
            for (const auto &e : line.events()) {
                const int64_t g = stats.intStat(e, "group_id");
                if (g < 0)
                    continue;
                const int64_t begin = line.timestamp_ns() * 1000 + e.offset_ps();
                if (steps)
                    markers[g].offer(begin, e.duration_ps());
                else if (!derived && stats.intStat(e, "correlation_id") >= 0)
                    withKernels.insert(g);
            }
        }
        for (const auto &[g, m] : markers) {
            if (withKernels.count(g))
                device[g].offer(m.begin, m.duration);
        }
    }
    for (const XPlane &p : space.planes()) {
        if (p.name() != "/host:CPU")
            continue;
        StatReader stats(p);
        for (const auto &line : p.lines()) {
            for (const auto &e : line.events()) {
                const int64_t g = stats.intStat(e, "group_id");
                if (g < 0 || !device.count(g))
                    continue;
                const std::string &name = p.event_metadata().at(e.metadata_id()).name();
                const bool named = (name.rfind("train", 0) == 0 || name.rfind("test", 0) == 0
                                    || name.rfind("TraceContext", 0) == 0)
                                   && name.find('/') == std::string::npos;
                const bool implicit = stats.find(e, "step_name", [](const auto &) {});
                if (named || implicit)
                    host[g].offer(line.timestamp_ns() * 1000 + e.offset_ps(), e.duration_ps());
            }
        }
    }
    std::map<int64_t, int64_t> expected;
    for (const auto &[g, d] : device) {
        const Span &h = host.count(g) ? host[g] : Span{};
        const bool hostContains = h.duration >= 0 && h.begin <= d.begin
                                  && d.begin + d.duration <= h.begin + h.duration;
        expected[g] = hostContains ? h.duration : d.duration;
    }
    QVERIFY(!expected.empty());

    auto trace = loadTrace(kGpu.toStdString());
    QVERIFY2(trace, trace ? "" : trace.message().c_str());
    AnalysisCache cache(trace.value());
    auto db = stepDb(cache);
    QCOMPARE(db->hardware, StepHardware::Gpu);
    QVERIFY(db->groupedInFile);
    QCOMPARE(db->steps.size(), expected.size());
    for (const StepInfo &s : db->steps) {
        QVERIFY(expected.count(s.groupId));
        QCOMPARE(s.duration, expected[s.groupId]);
        TimePs sum = 0;
        for (TimePs t : s.typePs.toArray())
            sum += t;
        QCOMPARE(sum, s.duration);
        QVERIFY(s.type(EventType::DeviceCompute32) + s.type(EventType::DeviceCompute16) > 0);
    }
    QVERIFY(db->diagnostics.warnings.empty() || db->diagnostics.warnings.front() != kNoStepMarkerMessage);
}

void TestSteps::tpuInferenceHasNoStepMarker()
{
    if (!QFile::exists(kTpu))
        QSKIP("shared TPU fixture not found (shared/fixtures/real)");
    XSpace space;
    QVERIFY(readSpace(kTpu, &space));
    int stepLines = 0, tensorCores = 0;
    for (const XPlane &p : space.planes()) {
        const std::string prefix = "/device:TPU:";
        if (p.name().rfind(prefix, 0) == 0
            && p.name().find_first_not_of("0123456789", prefix.size()) == std::string::npos) {
            ++tensorCores;
            for (const auto &l : p.lines())
                stepLines += l.name() == "Steps" && l.events_size() > 0;
        }
    }
    QCOMPARE(tensorCores, 4);
    QCOMPARE(stepLines, 0);

    auto trace = loadTrace(kTpu.toStdString());
    QVERIFY(trace);
    AnalysisCache cache(trace.value());
    auto db = stepDb(cache);
    QCOMPARE(db->hardware, StepHardware::Tpu);
    QCOMPARE(int(db->steps.size()), stepLines);
    QVERIFY(std::find(db->diagnostics.warnings.begin(), db->diagnostics.warnings.end(),
                      std::string(kNoStepMarkerMessage))
            != db->diagnostics.warnings.end());
}

void TestSteps::cpuOnlyHostMarkers()
{
    TraceBuilder b;
    const uint32_t plane = b.addPlane("/host:CPU", "h", 0, PlaneKind::Host);
    const uint32_t t = b.addTrack(plane, "python", 1);
    EventKind k;
    k.name = b.intern("train_step");
    const uint32_t train = b.addKind(k);
    k.name = b.intern("model/dense/MatMul:MatMul");
    const uint32_t op = b.addKind(k);
    k.name = b.intern("IteratorGetNext");
    const uint32_t next = b.addKind(k);
    auto &tb = b.trackBuilder(t);
    for (int s = 0; s < 3; ++s) {
        const TimePs base = s * 1000;
        tb.setSide(tb.addSlice(base, 800, train), SideColumn::GroupId, s);
        tb.setSide(tb.addSlice(base + 100, 400, op), SideColumn::GroupId, s);
        tb.setSide(tb.addSlice(base + 600, 100, next), SideColumn::GroupId, s);
    }
    auto trace = b.build();
    AnalysisCache cache(trace);
    auto db = stepDb(cache);
    QCOMPARE(db->hardware, StepHardware::CpuOnly);
    QVERIFY(!db->hasDevice);
    QCOMPARE(db->steps.size(), size_t(3));
    for (int s = 0; s < 3; ++s) {
        const StepInfo &st = db->steps[size_t(s)];
        QCOMPARE(st.groupId, int64_t(s));
        QCOMPARE(st.begin, TimePs(s * 1000));
        QCOMPARE(st.duration, TimePs(800));
        QCOMPARE(st.type(EventType::HostCompute), TimePs(400));
        QCOMPARE(st.type(EventType::HostWaitInput), TimePs(100));
        QCOMPARE(st.type(EventType::UnknownTime), TimePs(300));
    }
    QVERIFY(db->diagnostics.warnings.empty());
}

void TestSteps::noStepMarkerDiagnostic()
{
    TraceBuilder b;
    const uint32_t plane = b.addPlane("/host:CPU", "h", 0, PlaneKind::Host);
    const uint32_t t = b.addTrack(plane, "python", 1);
    EventKind k;
    k.name = b.intern("work");
    const uint32_t work = b.addKind(k);
    b.trackBuilder(t).addSlice(0, 100, work);
    AnalysisCache cache(b.build());
    auto db = stepDb(cache);
    QVERIFY(db->steps.empty());
    QCOMPARE(db->diagnostics.warnings.size(), size_t(1));
    QCOMPARE(db->diagnostics.warnings.front(), std::string(kNoStepMarkerMessage));
}

void TestSteps::ungroupedRootsAreGrouped()
{
    // A JAX-like capture: host `_r=1` StepTraceAnnotation roots with step_num, a launch inside
    // each, and the kernel it launched on a GPU stream linked by correlation_id.
    TraceBuilder b;
    const uint32_t host = b.addPlane("/host:CPU", "h", 0, PlaneKind::Host);
    const uint32_t gpu = b.addPlane("/device:GPU:0", "h", 1, PlaneKind::Device);
    const uint32_t py = b.addTrack(host, "python", 1);
    const uint32_t stream = b.addTrack(gpu, "Stream #7(Kernel)", 7);
    EventKind k;
    k.name = b.intern("train");
    {
        ArgsArena::Writer w(b.trace().metaArgs);
        w.addInt(b.intern("_r"), 1);
        k.stats = w.finish();
    }
    const uint32_t root = b.addKind(k);
    k = EventKind();
    k.name = b.intern("cudaLaunchKernel");
    const uint32_t launch = b.addKind(k);
    k.name = b.intern("fusion_kernel");
    const uint32_t kernel = b.addKind(k);
    for (int s = 0; s < 2; ++s) {
        const TimePs base = 10000 * s;
        auto &h = b.trackBuilder(py);
        h.setSide(h.addSlice(base, 5000, root), SideColumn::StepNum, 40 + s);
        h.setSide(h.addSlice(base + 100, 100, launch), SideColumn::CorrelationId, 7 + s);
        auto &d = b.trackBuilder(stream);
        d.setSide(d.addSlice(base + 300, 2000, kernel), SideColumn::CorrelationId, 7 + s);
    }
    AnalysisCache cache(b.build());
    auto groups = stepGroups(cache);
    QVERIFY(!groups->fromFile);
    QCOMPARE(groups->groupCount, int64_t(2));
    QCOMPARE(groups->names[0], std::string("train 40"));
    QCOMPARE(groups->computed[stream][0][0], 0);
    QCOMPARE(groups->computed[stream][0][1], 1);
    // XProf derives a device Steps line from the groups (kernel s: [base + 300, base + 2300)).
    // `train` is not an implicit root, so it gets step_name and is the host marker; it contains
    // the device marker, so the step is the root's span: 5000 = 2000 kernel + 100 launch
    // (HOST_PREPARE) + 2900 unknown.
    auto db = stepDb(cache);
    QCOMPARE(db->steps.size(), size_t(2));
    for (int s = 0; s < 2; ++s) {
        const StepInfo &st = db->steps[size_t(s)];
        QCOMPARE(st.name, "train " + std::to_string(40 + s));
        QCOMPARE(st.begin, TimePs(10000 * s));
        QCOMPARE(st.duration, TimePs(5000));
        QCOMPARE(st.type(EventType::DeviceCompute32), TimePs(2000));
        QCOMPARE(st.type(EventType::HostPrepare), TimePs(100));
        QCOMPARE(st.type(EventType::UnknownTime), TimePs(2900));
    }
}

void TestSteps::memcpyNames()
{
    QCOMPARE(detail::memcpyKind("MEMCPYHToD"), 1);
    QCOMPARE(detail::memcpyKind("MemcpyD2H"), 2);
    QCOMPARE(detail::memcpyKind("memcpyDToD_async"), 3);
    QCOMPARE(detail::memcpyKind("a/Memcpy:MemcpyH2D"), 0);
    QVERIFY(detail::isTensorCorePlaneName("/device:TPU:3"));
    QVERIFY(!detail::isTensorCorePlaneName("/device:TPU:3 SparseCore 0"));
}

QTEST_GUILESS_MAIN(TestSteps)
#include "tst_steps.moc"
