// Memory viewer: a hand-built buffer assignment with hand-computed heap figures, and every
// module of the real fixtures against a heap replay written again here from the raw fields.

#include "core/analysis/memoryviewer.h"
#include "core/hlo/hlomodules.h"
#include "core/io/traceloader.h"

#include "hlo.pb.h"

#include <QtTest>

#include <filesystem>
#include <map>
#include <set>

using namespace tracedesk::core;
using namespace tracedesk::core::analysis;
namespace fs = std::filesystem;

namespace {

void addInstruction(xla::HloComputationProto *c, int64_t id, const std::string &name,
                    xla::PrimitiveType type, std::vector<int64_t> dims)
{
    auto *i = c->add_instructions();
    i->set_id(id);
    i->set_name(name);
    i->set_opcode(name.substr(0, name.find('.')));
    i->mutable_shape()->set_element_type(type);
    for (int64_t d : dims)
        i->mutable_shape()->add_dimensions(d);
    for (int k = int(dims.size()) - 1; k >= 0; --k)
        i->mutable_shape()->mutable_layout()->add_minor_to_major(k);
    i->mutable_metadata()->set_op_name("jit(f)/" + name);
}

xla::HloProto handMade()
{
    xla::HloProto p;
    auto *m = p.mutable_hlo_module();
    m->set_name("tiny");
    m->set_entry_computation_name("main");
    auto *c = m->add_computations();
    c->set_name("main");
    addInstruction(c, 10, "parameter.0", xla::F32, {25});
    addInstruction(c, 11, "dot.1", xla::F32, {100, 100});
    addInstruction(c, 12, "add.2", xla::F32, {70, 70});
    addInstruction(c, 13, "copy.3", xla::U8, {1000});
    addInstruction(c, 14, "bitcast.4", xla::F32, {100, 100});
    auto *ba = p.mutable_buffer_assignment();
    const std::vector<std::pair<int64_t, int64_t>> buffers = {
        {0, 100}, {1, 40000}, {2, 20000}, {3, 1000}, {4, 40000}};
    for (auto [id, size] : buffers) {
        auto *lb = ba->add_logical_buffers();
        lb->set_id(id);
        lb->set_size(size);
        lb->mutable_defined_at()->set_instruction_id(10 + id);
    }
    auto *param = ba->add_buffer_allocations();
    param->set_index(0);
    param->set_size(100);
    param->set_is_entry_computation_parameter(true);
    param->add_assigned()->set_logical_buffer_id(0);
    auto *temp = ba->add_buffer_allocations();
    temp->set_index(1);
    temp->set_size(61000);
    for (int64_t id : {1, 2, 3, 4}) {
        auto *a = temp->add_assigned();
        a->set_logical_buffer_id(id);
        a->set_offset(id * 10);
        a->set_size(buffers[size_t(id)].second);
    }
    auto *trace = ba->add_heap_simulator_traces();
    using E = xla::HeapSimulatorTrace::Event;
    auto event = [&](E::Kind kind, int64_t id, int64_t canonical = 0) {
        auto *e = trace->add_events();
        e->set_kind(kind);
        e->set_buffer_id(id);
        e->set_share_with_canonical_id(canonical);
        e->set_instruction_name("inst" + std::to_string(trace->events_size()));
    };
    event(E::ALLOC, 1);
    event(E::ALLOC, 3);
    event(E::ALLOC, 2);
    event(E::FREE, 3);
    event(E::SHARE_WITH, 4, 1);
    event(E::FREE, 1);
    event(E::FREE, 2);
    event(E::FREE, 4);
    return p;
}

// The replay written again, as plainly as possible, for cross-checking.
struct Expected
{
    std::vector<int64_t> heap;
    int64_t peak = 0;
    int peakAt = -1;
    int64_t total = 0;
    std::vector<int64_t> liveAtPeak;
};

Expected replay(const xla::HloProto &p, int64_t color)
{
    const auto &ba = p.buffer_assignment();
    std::map<int64_t, int64_t> size, colorOf;
    for (const auto &b : ba.logical_buffers()) {
        colorOf[b.id()] = b.color();
        if (b.color() == color)
            size[b.id()] = b.size();
    }
    int chosen = -1;
    for (int i = 0; i < ba.heap_simulator_traces_size() && chosen < 0; ++i) {
        const auto &t = ba.heap_simulator_traces(i);
        if (t.events_size() > 0 && colorOf.count(t.events(0).buffer_id())
            && colorOf[t.events(0).buffer_id()] == color)
            chosen = i;
    }
    if (chosen < 0) {
        int most = 0;
        for (int i = 0; i < ba.heap_simulator_traces_size(); ++i) {
            int n = 0;
            for (const auto &e : ba.heap_simulator_traces(i).events())
                n += size.count(e.buffer_id()) ? 1 : 0;
            if (n > most) {
                most = n;
                chosen = i;
            }
        }
    }
    Expected x;
    std::set<int64_t> seenInTrace;
    if (chosen >= 0) {
        std::map<int64_t, int64_t> owner;     // buffer -> whose storage it uses
        std::map<int64_t, int> users;
        std::vector<int64_t> live;
        int64_t heap = 0;
        for (const auto &e : ba.heap_simulator_traces(chosen).events()) {
            const int64_t id = e.buffer_id();
            if (size.count(id)) {
                seenInTrace.insert(id);
                int64_t storage = id;
                if (e.kind() == xla::HeapSimulatorTrace::Event::ALLOC)
                    owner.erase(id);
                if (e.kind() == xla::HeapSimulatorTrace::Event::SHARE_WITH) {
                    storage = e.share_with_canonical_id();
                    owner[id] = storage;
                } else if (owner.count(id)) {
                    storage = owner[id];
                }
                if (e.kind() == xla::HeapSimulatorTrace::Event::FREE) {
                    if (users[storage] > 0 && --users[storage] == 0) {
                        heap -= size[storage];
                        live.erase(std::find(live.begin(), live.end(), storage));
                    }
                } else if (size.count(storage) && users[storage]++ == 0) {
                    heap += size[storage];
                    live.push_back(storage);
                }
            }
            x.heap.push_back(heap);
            if (x.peakAt < 0 || heap > x.peak) {
                x.peak = heap;
                x.peakAt = int(x.heap.size()) - 1;
                x.liveAtPeak = live;
            }
        }
    }
    std::map<int64_t, int64_t> allocationOf;
    for (const auto &a : ba.buffer_allocations())
        for (const auto &as : a.assigned())
            allocationOf[as.logical_buffer_id()] = a.index();
    std::set<int64_t> simulated;
    for (int64_t id : seenInTrace)
        if (allocationOf.count(id))
            simulated.insert(allocationOf[id]);
    int64_t constant = 0;
    for (const auto &a : ba.buffer_allocations()) {
        if (a.color() != color)
            continue;
        x.total += a.size();
        const bool indefinite = a.is_thread_local() || a.is_entry_computation_parameter()
                                || a.is_constant() || a.maybe_live_out();
        if (!indefinite || simulated.count(a.index()))
            continue;
        int64_t largest = -1, largestId = -1;
        for (const auto &as : a.assigned()) {
            if (size.count(as.logical_buffer_id()) && size[as.logical_buffer_id()] > largest) {
                largest = size[as.logical_buffer_id()];
                largestId = as.logical_buffer_id();
            }
        }
        if (largest >= 0) {
            constant += largest;
            if (color == 0)
                x.liveAtPeak.push_back(largestId);
        }
    }
    for (int64_t &h : x.heap)
        h += constant;
    x.peak = (x.peakAt < 0 ? 0 : x.peak) + constant;
    return x;
}

TracePtr load(const fs::path &path)
{
    LoadOptions o;
    o.useCache = false;
    auto t = loadTrace(path.string(), nullptr, o);
    return t.ok() ? t.value() : nullptr;
}

} // namespace

class TestMemoryViewer : public QObject
{
    Q_OBJECT

private slots:
    void handMadeModule();
    void shapes();
    void realFixtures();
};

void TestMemoryViewer::handMadeModule()
{
    const xla::HloProto p = handMade();
    auto r = computeMemoryViewer(p, "tiny(1)");
    QVERIFY(r.ok());
    const MemoryViewerResult &v = r.value();
    QCOMPARE(v.heapSizes, (std::vector<int64_t>{40100, 41100, 61100, 60100, 60100, 60100, 40100, 100}));
    QCOMPARE(v.instructionNames.size(), size_t(8));
    QCOMPARE(v.peakPosition, 2);
    QCOMPARE(v.peakHeapBytes, int64_t(61100));
    // 40000 (f32[100,100]) + 19600 (f32[70,70]) + 1000 (u8[1000]) + 100 (f32[25])
    QCOMPARE(v.peakUnpaddedHeapBytes, int64_t(60700));
    QCOMPARE(v.paddingOverheadBytes(), int64_t(400));
    QCOMPARE(v.totalAllocationBytes, int64_t(61100));
    QCOMPARE(v.indefiniteAllocationBytes, int64_t(100));
    QCOMPARE(v.entryParametersBytes, int64_t(100));
    QCOMPARE(v.maybeLiveOutBytes, int64_t(0));
    QCOMPARE(v.temporaryBytes(), int64_t(61000));
    QCOMPARE(v.fragmentationPercent(), 0.0);
    QCOMPARE(v.maxHeap.size(), size_t(3));
    QCOMPARE(v.maxHeap[0].bufferId, int64_t(1));
    QCOMPARE(v.maxHeap[1].bufferId, int64_t(2));
    QCOMPARE(v.maxHeap[2].bufferId, int64_t(-1));
    QCOMPARE(v.maxHeap[2].size, int64_t(1100));
    QCOMPARE(v.maxHeap[2].label, std::string("small (<16384 bytes)"));
    QCOMPARE(v.maxHeapBySize[0].bufferId, int64_t(1));
    QCOMPARE(v.maxHeapBySize[2].bufferId, int64_t(-1));
    QCOMPARE(v.maxHeapToBySize, (std::vector<int32_t>{0, 1, 2}));
    const ViewerBuffer *b1 = v.buffer(1), *b2 = v.buffer(2), *b3 = v.buffer(3);
    QVERIFY(b1 && b2 && b3);
    QCOMPARE(b1->spanStart, 0);
    QCOMPARE(b1->spanLimit, 7);
    QCOMPARE(b3->spanStart, 1);
    QCOMPARE(b3->spanLimit, 3);
    QCOMPARE(b2->spanStart, 2);
    QCOMPARE(b2->spanLimit, 6);
    QCOMPARE(b2->unpaddedSize, int64_t(19600));
    QCOMPARE(b2->shape, std::string("f32[70,70]{1,0}"));
    QCOMPARE(b2->frameworkOp, std::string("jit(f)/add.2"));
    QCOMPARE(b2->offset, int64_t(20));
    QCOMPARE(v.buffer(0)->category, BufferCategory::Parameter);
    QCOMPARE(b2->category, BufferCategory::Temporary);
    QCOMPARE(v.indefiniteBufferIds, (std::vector<int64_t>{0}));

    // Another memory space has nothing to simulate.
    auto other = computeMemoryViewer(p, "tiny(1)", {1, kDefaultSmallBufferSize});
    QVERIFY(other.ok());
    QCOMPARE(other.value().peakPosition, -1);
    QCOMPARE(other.value().peakHeapBytes, int64_t(0));
    QCOMPARE(memorySpaces(p), (std::vector<int64_t>{0}));

    // A module without buffer assignment is an error naming the module, not a crash.
    xla::HloProto bare;
    bare.mutable_hlo_module()->set_name("bare");
    auto bad = computeMemoryViewer(bare, "bare(3)");
    QVERIFY(!bad.ok());
    QVERIFY(bad.message().starts_with("bare(3): "));
}

void TestMemoryViewer::shapes()
{
    xla::ShapeProto s;
    s.set_element_type(xla::BF16);
    s.add_dimensions(3);
    s.add_dimensions(5);
    QCOMPARE(unpaddedShapeBytes(s), int64_t(30));
    QCOMPARE(shapeToString(s), std::string("bf16[3,5]"));
    xla::ShapeProto t;
    t.set_element_type(xla::TUPLE);
    *t.add_tuple_shapes() = s;
    *t.add_tuple_shapes() = s;
    QCOMPARE(unpaddedShapeBytes(t), int64_t(16));
    QCOMPARE(shapeToString(t), std::string("(bf16[3,5], bf16[3,5])"));
}

void TestMemoryViewer::realFixtures()
{
    const fs::path root = fs::path(TRACEDESK_SHARED_FIXTURES) / "xspace";
    if (!fs::exists(root))
        QSKIP("shared fixtures not present (TRACEDESK_SHARED_FIXTURES)");
    int modules = 0, withPeak = 0, tpuModules = 0;
    for (const auto &run : fs::directory_iterator(root)) {
        for (const auto &file : fs::directory_iterator(run.path())) {
            TracePtr trace = load(file.path());
            QVERIFY2(trace, file.path().string().c_str());
            hlo::HloModuleIndex index(hlo::hloModulesForTrace(*trace));
            QVERIFY(index.errors().empty());
            for (const auto &m : index.modules()) {
                for (int64_t color : memorySpaces(m->proto)) {
                    const std::string what = m->entry.displayName() + " color "
                                             + std::to_string(color);
                    auto r = computeMemoryViewer(m->proto, m->entry.displayName(),
                                                 {color, kDefaultSmallBufferSize});
                    QVERIFY2(r.ok(), what.c_str());
                    const MemoryViewerResult &v = r.value();
                    const Expected x = replay(m->proto, color);
                    QVERIFY2(v.heapSizes == x.heap, what.c_str());
                    QVERIFY2(v.peakHeapBytes == x.peak, what.c_str());
                    QVERIFY2(v.peakPosition == x.peakAt, what.c_str());
                    QVERIFY2(v.totalAllocationBytes == x.total, what.c_str());
                    // The objects at the peak (small ones grouped) add up to the peak itself.
                    int64_t objects = 0, expectedObjects = 0;
                    for (const HeapObject &o : v.maxHeap)
                        objects += o.size;
                    for (int64_t id : x.liveAtPeak)
                        expectedObjects += v.buffer(id)->size;
                    QVERIFY2(objects == expectedObjects, what.c_str());
                    if (color == 0)
                        QVERIFY2(objects == v.peakHeapBytes, what.c_str());
                    QCOMPARE(v.maxHeapBySize.size(), v.maxHeap.size());
                    for (size_t k = 0; k < v.maxHeap.size(); ++k)
                        QCOMPARE(v.bySizeToMaxHeap[size_t(v.maxHeapToBySize[k])], int32_t(k));
                    withPeak += v.peakPosition >= 0 ? 1 : 0;
                }
                ++modules;
                if (run.path().filename() == "xprof_tpu_inference_2")
                    ++tpuModules;
            }
        }
    }
    QCOMPARE(tpuModules, 4);
    QVERIFY(modules >= 4 + 8);
    QVERIFY(withPeak > 0);
    qInfo("checked %d modules, %d module/colour pairs with a heap simulation", modules, withPeak);
}

QTEST_GUILESS_MAIN(TestMemoryViewer)
#include "tst_memoryviewer.moc"
