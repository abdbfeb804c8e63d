// Flow resolution and trace-level bounds of TraceBuilder.

#include "core/model/tracebuilder.h"

#include <QtTest>

using namespace tracedesk::core;

class TestTraceBuilder : public QObject
{
    Q_OBJECT

private slots:
    void flowsOnStagedSlicesFollowPlacement()
    {
        TraceBuilder b;
        const uint32_t host = b.addPlane("/host:CPU", "h", 0, PlaneKind::Host);
        const uint32_t dev = b.addPlane("/device:GPU:0", "h", 0, PlaneKind::Device);
        const uint32_t launchTrack = b.addTrack(host, "launcher", 1);
        const uint32_t streamTrack = b.addTrack(dev, "Stream #7", 7);
        EventKind k;
        k.name = b.intern("k");
        const uint32_t kind = b.addKind(k);
        // Staged out of order, so placement differs from staging order.
        b.trackBuilder(launchTrack).addSlice(100, 10, kind);
        const uint32_t launch = b.trackBuilder(launchTrack).addSlice(0, 10, kind);
        const uint32_t kernel = b.trackBuilder(streamTrack).addSlice(50, 5, kind);
        const StringId cat = b.intern("launch");
        b.addFlowOnSlice(launchTrack, launch, 0, 9, cat, FlowPhase::Start);
        b.addFlowOnSlice(streamTrack, kernel, 50, 9, cat, FlowPhase::End);
        auto trace = b.build();
        QCOMPARE(trace->flows.size(), size_t(1));
        const Flow &f = trace->flows[0];
        QCOMPARE(f.from, (SliceRef{launchTrack, 0, 0}));
        QCOMPARE(f.to, (SliceRef{streamTrack, 0, 0}));
        QCOMPARE(trace->start(f.from), TimePs(0));
        QCOMPARE(f.id, uint64_t(9));
    }

    void flowsAtTimesBindToEnclosingOrNext()
    {
        TraceBuilder b;
        const uint32_t p = b.addPlane("p", "", 0, PlaneKind::Host);
        const uint32_t t1 = b.addTrack(p, "t1", 1);
        const uint32_t t2 = b.addTrack(p, "t2", 2);
        EventKind k;
        k.name = b.intern("k");
        const uint32_t kind = b.addKind(k);
        b.trackBuilder(t1).addSlice(0, 100, kind);
        b.trackBuilder(t1).addSlice(10, 20, kind);  // deeper: the flow binds here
        b.trackBuilder(t2).addSlice(200, 10, kind);
        b.trackBuilder(t2).addSlice(300, 10, kind);
        const StringId cat = b.intern("c");
        b.addFlowAt(t1, 15, 1, cat, FlowPhase::Start, false);
        b.addFlowAt(t2, 250, 1, cat, FlowPhase::End, true);      // next slice: 300
        b.addFlowAt(t2, 205, 2, cat, FlowPhase::Start, false);
        b.addFlowAt(t1, 9999, 2, cat, FlowPhase::End, false);    // nothing there: unbound
        auto trace = b.build();
        QCOMPARE(trace->flows.size(), size_t(1));
        QCOMPARE(trace->flows[0].from, (SliceRef{t1, 1, 0}));
        QCOMPARE(trace->flows[0].to, (SliceRef{t2, 0, 1}));
        QCOMPARE(trace->info.warningCount, uint64_t(1));
    }

    void flowChainsStepThroughAndRestartAfterEnd()
    {
        TraceBuilder b;
        const uint32_t p = b.addPlane("p", "", 0, PlaneKind::Host);
        const uint32_t t = b.addTrack(p, "t", 1);
        EventKind k;
        k.name = b.intern("k");
        const uint32_t kind = b.addKind(k);
        for (int i = 0; i < 5; ++i)
            b.trackBuilder(t).addSlice(i * 100, 10, kind);
        const StringId cat = b.intern("c");
        b.addFlowAt(t, 5, 3, cat, FlowPhase::Start, false);
        b.addFlowAt(t, 105, 3, cat, FlowPhase::Step, false);
        b.addFlowAt(t, 205, 3, cat, FlowPhase::End, false);
        b.addFlowAt(t, 305, 3, cat, FlowPhase::Start, false);   // id reused: a new chain
        b.addFlowAt(t, 405, 3, cat, FlowPhase::End, false);
        auto trace = b.build();
        QCOMPARE(trace->flows.size(), size_t(3));
        QCOMPARE(trace->flows[0].from.index, 0u);
        QCOMPARE(trace->flows[0].to.index, 1u);
        QCOMPARE(trace->flows[1].to.index, 2u);
        QCOMPARE(trace->flows[2].from.index, 3u);
        QCOMPARE(trace->flows[2].to.index, 4u);
    }

    void emptyTraceHasZeroSpan()
    {
        TraceBuilder b;
        b.addPlane("p", "", 0, PlaneKind::Other);
        auto trace = b.build();
        QCOMPARE(trace->eventCount(), uint64_t(0));
        QCOMPARE(trace->begin, TimePs(0));
        QCOMPARE(trace->end, TimePs(0));
    }
};

QTEST_GUILESS_MAIN(TestTraceBuilder)
#include "tst_tracebuilder.moc"
