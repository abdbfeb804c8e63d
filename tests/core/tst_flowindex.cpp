// FlowIndex: for every slice, the flows leaving and entering it are exactly those a walk over
// the raw flow list finds, in flow order; a cancelled build yields nothing.

#include "core/model/tracebuilder.h"
#include "core/query/flowindex.h"
#include "core/query/packedindices.h"

#include <QtTest>

#include <random>

using namespace tracedesk::core;

namespace {

// One track, one row of `slices` slices 10 ps apart, and flows added straight to the store:
// the index reads only Trace::flows, so how a reader resolves flows does not matter here.
std::shared_ptr<Trace> traceWithSlices(uint32_t slices)
{
    TraceBuilder builder;
    const uint32_t plane = builder.addPlane("host", "host", 1, PlaneKind::Host);
    const uint32_t track = builder.addTrack(plane, "main", 1);
    EventKind k;
    k.name = builder.intern("op");
    const uint32_t kind = builder.addKind(k);
    for (uint32_t i = 0; i < slices; ++i)
        builder.trackBuilder(track).addSlice(TimePs(i) * 10, 5, kind);
    return builder.build();
}

Flow flow(uint32_t from, uint32_t to, uint64_t id)
{
    Flow f;
    f.from = {0, 0, from};
    f.to = {0, 0, to};
    f.id = id;
    return f;
}

std::vector<uint64_t> ids(const std::vector<Flow> &flows)
{
    std::vector<uint64_t> out;
    for (const Flow &f : flows)
        out.push_back(f.id);
    return out;
}

} // namespace

class TestFlowIndex : public QObject
{
    Q_OBJECT

private slots:
    void handMadeFlows();
    void matchesWalkOnRandomFlows();
    void cancelledBuild();
    void packedIndicesAtEveryWidth();
};

void TestFlowIndex::handMadeFlows()
{
    auto trace = traceWithSlices(4);
    // 0 -> 1 (id 1), 0 -> 2 (id 2), 2 -> 0 (id 3), 3 -> 3 (id 4: a slice to itself).
    trace->flows = {flow(0, 1, 1), flow(0, 2, 2), flow(2, 0, 3), flow(3, 3, 4)};
    const FlowIndex index(*trace);
    const SliceRef s0{0, 0, 0}, s1{0, 0, 1}, s2{0, 0, 2}, s3{0, 0, 3};
    QCOMPARE(index.outgoing(*trace, s0).size(), size_t(2));
    QCOMPARE(index.incoming(*trace, s0).size(), size_t(1));
    QCOMPARE(ids(index.flowsOf(*trace, s0)), (std::vector<uint64_t>{1, 2, 3}));
    QCOMPARE(ids(index.flowsOf(*trace, s1)), (std::vector<uint64_t>{1}));
    QCOMPARE(ids(index.flowsOf(*trace, s2)), (std::vector<uint64_t>{3, 2}));
    QCOMPARE(ids(index.flowsOf(*trace, s3)), (std::vector<uint64_t>{4}));
    QVERIFY(index.flowsOf(*trace, SliceRef{0, 1, 0}).empty()); // no such row
}

void TestFlowIndex::matchesWalkOnRandomFlows()
{
    constexpr uint32_t kSlices = 50;
    auto trace = traceWithSlices(kSlices);
    std::mt19937 random(7);
    std::uniform_int_distribution<uint32_t> pick(0, kSlices - 1);
    std::vector<Flow> flows;
    for (uint64_t id = 0; id < 400; ++id)
        flows.push_back(flow(pick(random), pick(random), id));
    trace->flows = flows;
    const FlowIndex index(*trace);
    for (uint32_t i = 0; i < kSlices; ++i) {
        const SliceRef s{0, 0, i};
        std::vector<uint64_t> out, in;
        for (const Flow &f : trace->flows) {
            if (f.from == s)
                out.push_back(f.id);
            if (f.to == s)
                in.push_back(f.id);
        }
        std::vector<uint64_t> gotOut, gotIn;
        for (uint32_t f : index.outgoing(*trace, s))
            gotOut.push_back(trace->flows[f].id);
        for (uint32_t f : index.incoming(*trace, s))
            gotIn.push_back(trace->flows[f].id);
        QCOMPARE(gotOut, out);
        QCOMPARE(gotIn, in);
    }
}

void TestFlowIndex::cancelledBuild()
{
    auto trace = traceWithSlices(2);
    trace->flows = {flow(0, 1, 1)};
    std::atomic<bool> cancel{true};
    QVERIFY(!FlowIndex::build(*trace, &cancel));
    cancel = false;
    const auto index = FlowIndex::build(*trace, &cancel);
    QVERIFY(index);
    QCOMPARE(ids(index->flowsOf(*trace, SliceRef{0, 0, 1})), (std::vector<uint64_t>{1}));
}

QTEST_GUILESS_MAIN(TestFlowIndex)
// Every width from 1 to 32 bits: random values below the bound, and the bound's largest value,
// read back as written (widths that cross a byte, and the last value of the array).
void TestFlowIndex::packedIndicesAtEveryWidth()
{
    std::mt19937_64 random(7);
    for (int bits = 1; bits <= 32; ++bits) {
        const uint64_t bound = uint64_t(1) << bits;
        std::uniform_int_distribution<uint64_t> pick(0, bound - 1);
        std::vector<uint32_t> values(1000);
        for (uint32_t &v : values)
            v = uint32_t(pick(random));
        values.back() = uint32_t(bound - 1);
        values.front() = 0;
        const PackedIndices packed(values, bound);
        QCOMPARE(packed.size(), values.size());
        for (size_t i = 0; i < values.size(); ++i)
            QCOMPARE(packed[i], values[i]);
        QVERIFY(packed.memoryBytes() <= (values.size() * size_t(bits) + 7) / 8 + 8 + 64);
    }
    QCOMPARE(PackedIndices({}, 0).size(), size_t(0));
}

#include "tst_flowindex.moc"
