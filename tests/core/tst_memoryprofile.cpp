// Memory profile: a tiny XSpace of allocator events with hand-computed peak, fragmentation,
// breakdown and special rows; the real fixtures against a plain walk of the raw events.

#include "core/analysis/memoryprofile.h"
#include "core/generate/xspacewriter.h"
#include "core/io/traceloader.h"

#include "xplane.pb.h"

#include <QTemporaryDir>
#include <QtTest>

#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>

using namespace tracedesk::core;
using namespace tracedesk::core::analysis;
namespace fs = std::filesystem;

namespace {

struct Ev
{
    bool alloc;
    int64_t offsetPs;
    uint64_t addr;
    int64_t bytes, requested, reserved, allocated, available;
    double fragmentation;
    int64_t peak;
    const char *op;       // nullptr: none
    int64_t dataType;     // -1: none
    const char *shape;
    int64_t group;        // -1: none
};

TracePtr load(const std::string &path)
{
    LoadOptions o;
    o.useCache = false;
    auto t = loadTrace(path, nullptr, o);
    if (!t.ok())
        qWarning("%s", t.message().c_str());
    return t.ok() ? t.value() : nullptr;
}

} // namespace

class TestMemoryProfile : public QObject
{
    Q_OBJECT

private slots:
    void tinyProfile();
    void xprofPeakDefinitions();
    void timelineSampling();
    void dataTypes();
    void realFixtures();
};

void TestMemoryProfile::tinyProfile()
{
    QTemporaryDir dir;
    const std::string path = (dir.path() + "/host.xplane.pb").toStdString();
    XSpaceWriter w(path);
    QVERIFY(w.open().ok());
    const uint32_t plane = w.addPlane(1, "/host:CPU");
    const int64_t allocId = w.eventMetadata(plane, "MemoryAllocation");
    const int64_t freeId = w.eventMetadata(plane, "MemoryDeallocation");
    auto stat = [&](const char *name) { return w.statMetadata(plane, name); };
    const uint32_t line = w.addLine(plane, 1, "tf_Compute", 1000);
    const std::vector<Ev> events = {
        {true, 0, 0x100, 1024, 1000, 0, 1024, 9000, 0.0, 1024, "a", 1, "[250]", 1},
        {true, 10, 0x200, 2048, 2048, 256, 3072, 6000, 0.25, 3072, "b", 3, "[512]", 1},
        {false, 20, 0x100, 1024, 1000, 256, 2048, 7000, 0.1, 3072, nullptr, -1, nullptr, 1},
        {true, 30, 0x300, 2048, 2048, 256, 5096, 5000, 0.5, 5096, "b", 3, "[512]", 1},
        {false, 40, 0x999, 512, 512, 0, 3584, 5000, 0.2, 5096, nullptr, -1, nullptr, 1},
        {true, 50, 0x400, 100, 100, 0, 3684, 5000, 0.2, 4096, "c", 19, "[50]", -1},
    };
    for (const Ev &e : events) {
        XStatList s;
        s.addString(stat("allocator_name"), "GPU_0_bfc");
        s.addUInt(stat("addr"), e.addr);
        s.addInt(stat("allocation_bytes"), e.bytes);
        s.addInt(stat("requested_bytes"), e.requested);
        s.addInt(stat("bytes_reserved"), e.reserved);
        s.addInt(stat("bytes_allocated"), e.allocated);
        s.addInt(stat("bytes_available"), e.available);
        s.addDouble(stat("fragmentation"), e.fragmentation);
        s.addInt(stat("peak_bytes_in_use"), e.peak);
        if (e.op)
            s.addString(stat("tf_op"), e.op);
        if (e.dataType >= 0)
            s.addInt(stat("data_type"), e.dataType);
        if (e.shape)
            s.addString(stat("shape"), e.shape);
        if (e.op)
            s.addString(stat("region_type"), "output");
        if (e.group >= 0)
            s.addInt(stat("group_id"), e.group);
        w.addEvent(line, e.alloc ? allocId : freeId, e.offsetPs, 0, &s);
    }
    {   // A second allocator named by its device ordinal.
        XStatList s;
        s.addInt(stat("device_ordinal"), 3);
        s.addInt(stat("bytes_allocated"), 64);
        s.addUInt(stat("addr"), 0x1);
        s.addInt(stat("allocation_bytes"), 64);
        w.addEvent(line, allocId, 60, 0, &s);
    }
    {   // Not an allocator event.
        XStatList s;
        w.addEvent(line, w.eventMetadata(plane, "Other"), 70, 5, &s);
    }
    w.addHostname("tinyhost");
    QVERIFY(w.finish().ok());

    TracePtr trace = load(path);
    QVERIFY(trace);
    const MemoryProfileSet set = computeMemoryProfiles(*trace);
    QCOMPARE(set.profiles.size(), size_t(2));
    QCOMPARE(set.hosts(), std::vector<std::string>{"tinyhost"});
    QCOMPARE(set.memoryIds("tinyhost"), (std::vector<std::string>{"3", "GPU_0_bfc"}));
    const AllocatorProfile *p = set.find("tinyhost", "GPU_0_bfc");
    QVERIFY(p);
    QCOMPARE(p->snapshots.size(), size_t(6));
    const MemoryProfileSummary &s = p->summary;
    QCOMPARE(s.allocations, int64_t(4));
    QCOMPARE(s.deallocations, int64_t(2));
    QCOMPARE(s.peakBytesInWindow, int64_t(256 + 5096));
    QCOMPARE(s.peakSnapshot, int64_t(3));
    QCOMPARE(s.peakTime - p->snapshots[0].time, TimePs(30));
    QCOMPARE(s.peakStats.fragmentation, 0.5);
    QCOMPARE(s.peakStats.stackReservedBytes, int64_t(256));
    QCOMPARE(s.peakStats.heapAllocatedBytes, int64_t(5096));
    QCOMPARE(s.peakStats.freeMemoryBytes, int64_t(5000));
    QCOMPARE(s.peakStats.peakBytesInUse, int64_t(5352));
    QCOMPARE(s.capacity, int64_t(10352));
    QCOMPARE(s.peakBytesLifetime, int64_t(4096));   // the last one reported
    QCOMPARE(p->peakStepId, int64_t(1));
    // Deallocations inherit the allocation's metadata; a missing step id continues the last.
    QCOMPARE(p->snapshots[2].opName, std::string("a"));
    QCOMPARE(p->snapshots[2].dataType, std::string("float"));
    QCOMPARE(p->snapshots[5].stepId, int64_t(2));
    QCOMPARE(p->snapshots[5].dataType, std::string("half"));
    QCOMPARE(p->timeline.size(), size_t(6));

    // Live at the peak in step 1: two identical "b" rows (merged); unmapped heap
    // 5096 - (1024 + 2048 + 2048) + 1024 - 0 = 1000; stack 256.
    QCOMPARE(p->breakdown.size(), size_t(3));
    const MemoryBreakdownRow &b = p->breakdown[0];
    QCOMPARE(b.opName, std::string("b"));
    QCOMPARE(b.allocationBytes, int64_t(2048));
    QCOMPARE(b.requestedBytes, int64_t(2048));
    QCOMPARE(b.occurrences, int64_t(2));
    QCOMPARE(b.regionType, std::string("output"));
    QCOMPARE(b.dataType, std::string("int32"));
    QCOMPARE(b.shape, std::string("[512]"));
    QVERIFY(!b.special);
    const MemoryBreakdownRow &u = p->breakdown[1];
    QCOMPARE(u.opName, std::string(kUnusedPreallocatedOp));
    QCOMPARE(u.allocationBytes, int64_t(1000));
    QCOMPARE(u.regionType, std::string("persist/dynamic"));
    QCOMPARE(u.shape, std::string("unknown"));
    QVERIFY(u.special);
    const MemoryBreakdownRow &st = p->breakdown[2];
    QCOMPARE(st.opName, std::string(kStackOp));
    QCOMPARE(st.allocationBytes, int64_t(256));
    QCOMPARE(st.regionType, std::string("stack"));

    const AllocatorProfile *ordinal = set.find("tinyhost", "3");
    QVERIFY(ordinal);
    QCOMPARE(ordinal->summary.allocations, int64_t(1));
    QCOMPARE(ordinal->snapshots[0].stepId, int64_t(0));
}

void TestMemoryProfile::xprofPeakDefinitions()
{
    // XProf reads a plane's lines in file order and each line's events in order, updating the
    // summary as it goes: lifetime peak = `peak_bytes_in_use` of the last event read; window
    // peak = stack + heap of the last event read that reaches the running maximum.
    // Line A: A1 t=100 (0 + 1000), A2 t=400 (2000 + 1500 = 3500), A3 t=500 (2000 + 500).
    // Line B: B1 t=200 (2000 + 1500 = 3500, ties A2), B2 t=300 (0 + 0).
    // Read order A1 A2 A3 B1 B2: lifetime = B2's 1200 (the time-last event A3 says 1500);
    // window peak 3500 at B1, read after A2 although earlier in time; capacity = 3500 + 6500.
    QTemporaryDir dir;
    const std::string path = (dir.path() + "/host.xplane.pb").toStdString();
    XSpaceWriter w(path);
    QVERIFY(w.open().ok());
    const uint32_t plane = w.addPlane(1, "/host:CPU");
    const int64_t allocId = w.eventMetadata(plane, "MemoryAllocation");
    const int64_t freeId = w.eventMetadata(plane, "MemoryDeallocation");
    auto stat = [&](const char *name) { return w.statMetadata(plane, name); };
    const uint32_t lineA = w.addLine(plane, 1, "tf_Compute", 1000);
    const uint32_t lineB = w.addLine(plane, 2, "tf_data", 1000);
    struct Record
    {
        uint32_t line;
        bool alloc;
        int64_t t;
        uint64_t addr;
        int64_t bytes, reserved, allocated, available, peak;
    };
    const std::vector<Record> records = {
        {lineA, true, 100, 0x1, 1000, 0, 1000, 9000, 1000},
        {lineA, true, 400, 0x2, 500, 2000, 1500, 6500, 1500},
        {lineA, false, 500, 0x1, 1000, 2000, 500, 7500, 1500},
        {lineB, true, 200, 0x3, 1500, 2000, 1500, 6500, 1200},
        {lineB, false, 300, 0x3, 1500, 0, 0, 10000, 1200},
    };
    for (const Record &e : records) {
        XStatList s;
        s.addString(stat("allocator_name"), "GPU_0_bfc");
        s.addUInt(stat("addr"), e.addr);
        s.addInt(stat("allocation_bytes"), e.bytes);
        s.addInt(stat("requested_bytes"), e.bytes);
        s.addInt(stat("bytes_reserved"), e.reserved);
        s.addInt(stat("bytes_allocated"), e.allocated);
        s.addInt(stat("bytes_available"), e.available);
        s.addInt(stat("peak_bytes_in_use"), e.peak);
        s.addInt(stat("group_id"), 7);
        w.addEvent(e.line, e.alloc ? allocId : freeId, e.t, 0, &s);
    }
    QVERIFY(w.finish().ok());

    TracePtr trace = load(path);
    QVERIFY(trace);
    const MemoryProfileSet set = computeMemoryProfiles(*trace);
    QCOMPARE(set.profiles.size(), size_t(1));
    const AllocatorProfile &p = set.profiles.front();
    QCOMPARE(p.snapshots.size(), size_t(5));
    const MemoryProfileSummary &s = p.summary;
    QCOMPARE(s.peakBytesLifetime, int64_t(1200));
    QCOMPARE(s.peakBytesInWindow, int64_t(3500));
    QVERIFY(s.peakBytesLifetime < s.peakBytesInWindow);
    // Time-sorted: A1 B1 B2 A2 A3; the peak is B1.
    QCOMPARE(s.peakSnapshot, int64_t(1));
    QCOMPARE(s.peakTime - p.snapshots[0].time, TimePs(100));
    QCOMPARE(s.peakStats.stackReservedBytes, int64_t(2000));
    QCOMPARE(s.peakStats.heapAllocatedBytes, int64_t(1500));
    QCOMPARE(s.peakStats.peakBytesInUse, int64_t(3500));
    QCOMPARE(s.capacity, int64_t(10000));
    QCOMPARE(p.peakStepId, int64_t(7));
    // Live at t=200 in step 7: 0x3 (1500) and 0x1 (1000); heap 1500 - 2500 < 0 leaves no
    // unmapped row; the stack row holds 2000.
    QCOMPARE(p.breakdown.size(), size_t(3));
    QCOMPARE(p.breakdown[0].opName, std::string(kStackOp));
    QCOMPARE(p.breakdown[0].allocationBytes, int64_t(2000));
    QCOMPARE(p.breakdown[1].allocationBytes, int64_t(1500));
    QCOMPARE(p.breakdown[2].allocationBytes, int64_t(1000));
}

void TestMemoryProfile::timelineSampling()
{
    std::vector<MemorySnapshot> s(2500);
    for (size_t i = 0; i < s.size(); ++i)
        s[i].stats.heapAllocatedBytes = int64_t(i % 7);
    s[1234].stats.heapAllocatedBytes = 100;
    const auto idx = sampleTimeline(s, 1000);
    QCOMPARE(idx.size(), size_t(1000));
    QVERIFY(std::is_sorted(idx.begin(), idx.end()));
    QVERIFY(std::find(idx.begin(), idx.end(), 1234u) != idx.end());
    QCOMPARE(sampleTimeline(std::vector<MemorySnapshot>(10), 1000).size(), size_t(10));
}

void TestMemoryProfile::dataTypes()
{
    QCOMPARE(tfDataTypeName(1), std::string("float"));
    QCOMPARE(tfDataTypeName(14), std::string("bfloat16"));
    QCOMPARE(tfDataTypeName(19), std::string("half"));
    QCOMPARE(tfDataTypeName(0), std::string("INVALID"));
    QCOMPARE(tfDataTypeName(999), std::string("INVALID"));
}

void TestMemoryProfile::realFixtures()
{
    const fs::path root = fs::path(TRACEDESK_SHARED_FIXTURES) / "xspace";
    if (!fs::exists(root))
        QSKIP("shared fixtures not present (TRACEDESK_SHARED_FIXTURES)");
    int withEvents = 0;
    for (const auto &run : fs::directory_iterator(root)) {
        for (const auto &file : fs::directory_iterator(run.path())) {
            // The plain walk: per allocator, counts and the max of reserved + allocated.
            std::ifstream in(file.path(), std::ios::binary);
            tensorflow::profiler::XSpace space;
            QVERIFY(space.ParseFromIstream(&in));
            struct Walk { int64_t allocs = 0, frees = 0, peak = -1, heapAtPeak = 0, lifetime = 0; };
            std::map<std::string, Walk> expected;
            for (const auto &plane : space.planes()) {
                if (plane.name() != "/host:CPU")
                    continue;
                for (const auto &line : plane.lines()) {
                    for (const auto &ev : line.events()) {
                        const auto &md = plane.event_metadata().at(ev.metadata_id());
                        const bool alloc = md.name() == "MemoryAllocation";
                        if (!alloc && md.name() != "MemoryDeallocation")
                            continue;
                        std::string id, index;
                        int64_t reserved = 0, allocated = 0, lifetime = 0;
                        for (const auto &st : ev.stats()) {
                            const std::string &n = plane.stat_metadata().at(st.metadata_id()).name();
                            const int64_t v = st.has_int64_value() ? st.int64_value()
                                                                   : int64_t(st.uint64_value());
                            if (n == "allocator_name")
                                id = st.has_ref_value()
                                         ? plane.stat_metadata().at(st.ref_value()).name()
                                         : st.str_value();
                            else if ((n == "index_on_host" || n == "device_ordinal")
                                     && index.empty())
                                index = std::to_string(v);
                            else if (n == "bytes_reserved")
                                reserved = v;
                            else if (n == "bytes_allocated")
                                allocated = v;
                            else if (n == "peak_bytes_in_use")
                                lifetime = v;
                        }
                        Walk &w = expected[id.empty() ? index : id];
                        (alloc ? w.allocs : w.frees) += 1;
                        w.lifetime = lifetime;   // the last event read
                        if (reserved + allocated >= w.peak) {
                            w.peak = reserved + allocated;
                            w.heapAtPeak = allocated;
                        }
                    }
                }
            }
            TracePtr trace = load(file.path().string());
            QVERIFY(trace);
            const MemoryProfileSet set = computeMemoryProfiles(*trace);
            QCOMPARE(set.profiles.size(), expected.size());
            for (const AllocatorProfile &p : set.profiles) {
                QVERIFY2(expected.count(p.memoryId), p.memoryId.c_str());
                const Walk &w = expected[p.memoryId];
                QCOMPARE(p.summary.allocations, w.allocs);
                QCOMPARE(p.summary.deallocations, w.frees);
                QCOMPARE(p.summary.peakBytesInWindow, w.peak);
                QCOMPARE(p.summary.peakStats.heapAllocatedBytes, w.heapAtPeak);
                QCOMPARE(p.summary.peakBytesLifetime, w.lifetime);
                if (file.path().filename() == "tpu_inference_2.xplane.pb" && p.memoryId == "0") {
                    // The TPU capture's stack reservation puts the window peak above the
                    // allocator's own lifetime peak, in XProf too.
                    QVERIFY(p.summary.peakBytesLifetime < p.summary.peakBytesInWindow);
                }
                QVERIFY(p.timeline.size() <= kMaxTimelinePoints);
                // The breakdown accounts for the whole peak: rows (times occurrences) add up to
                // heap + stack whenever the unmapped remainder is not negative.
                int64_t rows = 0;
                for (const auto &r : p.breakdown)
                    rows += r.allocationBytes * r.occurrences;
                QVERIFY(rows >= p.summary.peakStats.stackReservedBytes);
                ++withEvents;
            }
        }
    }
    qInfo("checked %d allocators", withEvents);
    QVERIFY(withEvents >= 10);   // every fixture has at least one allocator
}

QTEST_GUILESS_MAIN(TestMemoryProfile)
#include "tst_memoryprofile.moc"
