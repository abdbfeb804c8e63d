// Nesting, row invariants, side columns and counters of TrackBuilder, checked against
// hand-computed layouts and a brute-force invariant check on random input.

#include "core/model/tracebuilder.h"

#include <QtTest>

#include <limits>
#include <random>

using namespace tracedesk::core;

namespace {

struct Fixture
{
    TraceBuilder builder;
    uint32_t track = 0;
    uint32_t kindA = 0;

    Fixture()
    {
        const uint32_t plane = builder.addPlane("/host:CPU", "host", 0, PlaneKind::Host);
        track = builder.addTrack(plane, "main", 1);
        EventKind k;
        k.name = builder.intern("op");
        kindA = builder.addKind(k);
    }
    TrackBuilder &tb() { return builder.trackBuilder(track); }
};

void checkRowInvariants(const Track &track)
{
    uint64_t total = 0;
    for (const Row &row : track.rows) {
        QVERIFY(row.size() > 0);
        QCOMPARE(row.duration.size(), row.size());
        QCOMPARE(row.kind.size(), row.size());
        QVERIFY(row.args.empty() || row.args.size() == row.size());
        for (size_t i = 1; i < row.size(); ++i)
            QVERIFY2(row.end(i - 1) <= row.start[i], "slices in a row overlap or are unsorted");
        total += row.size();
    }
    QCOMPARE(total, track.sliceCount);
}

} // namespace

class TestTrackBuilder : public QObject
{
    Q_OBJECT

private slots:
    // Times beyond +-kTimeLimitPs (from any reader) are clamped once here, so the span of any
    // two times of a trace fits in TimePs.
    void clampsTimesBeyondTheLimit()
    {
        Fixture f;
        constexpr TimePs kMax = std::numeric_limits<TimePs>::max();
        f.tb().addSlice(-kMax, kMax, f.kindA);         // starts below the limit, ends above
        f.tb().addSlice(kMax - 5, 100, f.kindA);       // starts (and ends) above it
        f.tb().addSlice(0, kMax, f.kindA);             // ends above it
        f.tb().addSlice(10, 5, f.kindA);               // in range: untouched
        f.tb().addCounterSample(std::numeric_limits<TimePs>::min(), 1.0);
        QCOMPARE(f.tb().clampedTimes(), uint64_t(2 + 2 + 1 + 0 + 1));
        auto trace = f.builder.build();
        const Track &t = trace->tracks[0];
        checkRowInvariants(t);
        for (const Row &row : t.rows) {
            for (size_t i = 0; i < row.size(); ++i) {
                QVERIFY(row.start[i] >= -kTimeLimitPs && row.start[i] <= kTimeLimitPs);
                QVERIFY(row.end(i) >= -kTimeLimitPs && row.end(i) <= kTimeLimitPs);
            }
        }
        QCOMPARE(t.begin, -kTimeLimitPs);
        QCOMPARE(t.end, kTimeLimitPs);
        TimePs span = 0;
        QVERIFY(!__builtin_sub_overflow(trace->end, trace->begin, &span));
        QCOMPARE(span, 2 * kTimeLimitPs);
        QVERIFY(trace->info.warningCount >= 1);
    }

    void nestsByDepth()
    {
        Fixture f;
        // parent [0,100) > child [10,20), child [30,60) > grandchild [40,50); sibling [100,120)
        f.tb().addSlice(0, 100, f.kindA);
        f.tb().addSlice(10, 10, f.kindA);
        f.tb().addSlice(30, 30, f.kindA);
        f.tb().addSlice(40, 10, f.kindA);
        f.tb().addSlice(100, 20, f.kindA);
        auto trace = f.builder.build();
        const Track &t = trace->tracks[0];
        QCOMPARE(t.rows.size(), size_t(3));
        QCOMPARE(t.rows[0].start, (std::vector<TimePs>{0, 100}));
        QCOMPARE(t.rows[1].start, (std::vector<TimePs>{10, 30}));
        QCOMPARE(t.rows[2].start, (std::vector<TimePs>{40}));
        QCOMPARE(t.begin, TimePs(0));
        QCOMPARE(t.end, TimePs(120));
        QCOMPARE(trace->begin, TimePs(0));
        QCOMPARE(trace->end, TimePs(120));
        checkRowInvariants(t);
    }

    void unsortedInputGivesSameLayout()
    {
        Fixture f;
        f.tb().addSlice(40, 10, f.kindA);
        f.tb().addSlice(100, 20, f.kindA);
        f.tb().addSlice(30, 30, f.kindA);
        f.tb().addSlice(0, 100, f.kindA);
        f.tb().addSlice(10, 10, f.kindA);
        auto trace = f.builder.build();
        const Track &t = trace->tracks[0];
        QCOMPARE(t.rows.size(), size_t(3));
        QCOMPARE(t.rows[0].start, (std::vector<TimePs>{0, 100}));
        QCOMPARE(t.rows[0].duration.values(), (std::vector<TimePs>{100, 20}));
        QCOMPARE(t.rows[1].start, (std::vector<TimePs>{10, 30}));
        QCOMPARE(t.rows[2].start, (std::vector<TimePs>{40}));
    }

    void sameStartLongerIsParent()
    {
        Fixture f;
        f.tb().addSlice(0, 5, f.kindA);
        f.tb().addSlice(0, 50, f.kindA);
        auto trace = f.builder.build();
        const Track &t = trace->tracks[0];
        QCOMPARE(t.rows.size(), size_t(2));
        QCOMPARE(t.rows[0].duration[0], TimePs(50));
        QCOMPARE(t.rows[1].duration[0], TimePs(5));
    }

    void overlapWithoutNestingMovesDown()
    {
        Fixture f;
        // A [0,10) and B [5,15) cross: B cannot share A's row nor be its child.
        f.tb().addSlice(0, 10, f.kindA);
        f.tb().addSlice(5, 10, f.kindA);
        f.tb().addSlice(12, 1, f.kindA);
        auto trace = f.builder.build();
        const Track &t = trace->tracks[0];
        checkRowInvariants(t);
        QCOMPARE(t.sliceCount, uint64_t(3));
        QCOMPARE(t.rows[0].start[0], TimePs(0));
        QCOMPARE(t.rows[1].start[0], TimePs(5));
    }

    void instantsAndEdges()
    {
        Fixture f;
        f.tb().addSlice(0, 10, f.kindA);
        f.tb().addSlice(0, 0, f.kindA);   // instant at the parent's start: inside it
        f.tb().addSlice(10, 0, f.kindA);  // instant at the parent's end: after it
        f.tb().addSlice(10, 0, f.kindA);  // a second instant at the same time
        auto trace = f.builder.build();
        const Track &t = trace->tracks[0];
        checkRowInvariants(t);
        QCOMPARE(t.rows[0].start, (std::vector<TimePs>{0, 10, 10}));
        QCOMPARE(t.rows[1].start, (std::vector<TimePs>{0}));
        QVERIFY(trace->sliceAt(0, 10).has_value());
        QCOMPARE(trace->sliceAt(0, 5)->row, 0u);
    }

    void negativeDurationIsClampedAndWarned()
    {
        Fixture f;
        f.tb().addSlice(10, -5, f.kindA);
        auto trace = f.builder.build();
        QCOMPARE(trace->tracks[0].rows[0].duration[0], TimePs(0));
        QCOMPARE(trace->info.warningCount, uint64_t(1));
    }

    void sideColumnsFollowTheirSlice()
    {
        Fixture f;
        const uint32_t late = f.tb().addSlice(50, 10, f.kindA);
        f.tb().addSlice(0, 10, f.kindA);
        f.tb().setSide(late, SideColumn::GroupId, 7);
        auto trace = f.builder.build();
        const Row &row = trace->tracks[0].rows[0];
        QCOMPARE(row.side[size_t(SideColumn::GroupId)].size(), size_t(2));
        QCOMPARE(trace->side(SliceRef{0, 0, 1}, SideColumn::GroupId), int64_t(7));
        QCOMPARE(trace->side(SliceRef{0, 0, 0}, SideColumn::GroupId), kNoValue);
        QVERIFY(row.side[size_t(SideColumn::Flops)].empty());
    }

    // A column no slice of a row fills costs nothing: not just empty, its buffer is gone.
    void droppedColumnsHoldNoMemory()
    {
        Fixture f;
        f.tb().addSlice(0, 100, f.kindA);
        const uint32_t child = f.tb().addSlice(10, 20, f.kindA);
        f.tb().setSide(child, SideColumn::CorrelationId, 3);
        auto trace = f.builder.build();
        const Track &t = trace->tracks[0];
        QCOMPARE(t.rows.size(), size_t(2));
        for (const Row &row : t.rows) {
            QVERIFY(row.args.empty());
            QCOMPARE(row.args.capacity(), size_t(0));
        }
        QCOMPARE(t.rows[0].side[size_t(SideColumn::CorrelationId)].memoryBytes(), size_t(0));
        QCOMPARE(t.rows[1].side[size_t(SideColumn::CorrelationId)].size(), size_t(1));
    }

    void kindSideValueIsTheFallback()
    {
        Fixture f;
        EventKind k;
        k.name = f.builder.intern("matmul");
        k.side[size_t(SideColumn::Flops)] = 1000;
        const uint32_t kind = f.builder.addKind(k);
        const uint32_t own = f.tb().addSlice(0, 10, kind);
        f.tb().addSlice(20, 10, kind);
        f.tb().setSide(own, SideColumn::Flops, 5);
        auto trace = f.builder.build();
        QCOMPARE(trace->side(SliceRef{0, 0, 0}, SideColumn::Flops), int64_t(5));
        QCOMPARE(trace->side(SliceRef{0, 0, 1}, SideColumn::Flops), int64_t(1000));
    }

    void countersAreSortedAndBounded()
    {
        TraceBuilder builder;
        const uint32_t plane = builder.addPlane("p", "", 0, PlaneKind::Host);
        const uint32_t track = builder.addTrack(plane, "mem", 0, TrackType::Counter);
        builder.trackBuilder(track).addCounterSample(30, 3.0);
        builder.trackBuilder(track).addCounterSample(10, 1.0);
        builder.trackBuilder(track).addCounterSample(20, 2.0);
        auto trace = builder.build();
        const Track &t = trace->tracks[0];
        QCOMPARE(t.counter.time, (std::vector<TimePs>{10, 20, 30}));
        QCOMPARE(t.counter.value, (std::vector<double>{1.0, 2.0, 3.0}));
        QCOMPARE(t.begin, TimePs(10));
        QCOMPARE(t.end, TimePs(30));
        QCOMPARE(trace->eventCount(), uint64_t(3));
    }

    // Sorted slices on one row (a GPU stream) are laid out in staging order: every column,
    // args and placement of each slice is the one it was staged with, and the row keeps no
    // spare capacity whether the staging was reserved exactly, too large or not at all.
    void oneSortedRowKeepsEverySlicesColumns()
    {
        for (const size_t slack : {size_t(0), size_t(5000), size_t(SIZE_MAX)}) {
            Fixture f;
            const StringId key = f.builder.intern("k");
            std::mt19937_64 rng(7 + slack);
            const size_t n = 3000;
            if (slack != SIZE_MAX)
                f.tb().reserve(n + slack);
            std::vector<TimePs> starts, durations;
            std::vector<int64_t> argValue(n, -1), correlation(n, kNoValue);
            ArgsArena::Writer writer(f.tb().args());
            TimePs t = 0;
            for (size_t i = 0; i < n; ++i) {
                t += TimePs(rng() % 50);
                const TimePs d = 1 + TimePs(rng() % 30);
                ArgsRef args = kNoArgs;
                if (rng() % 3 == 0) {
                    argValue[i] = int64_t(rng() % 1000);
                    writer.addInt(key, argValue[i]);
                    args = writer.finish();
                }
                const uint32_t staged = f.tb().addSlice(t, d, f.kindA, args);
                QCOMPARE(staged, uint32_t(i));
                if (rng() % 4 == 0) {
                    correlation[i] = int64_t(rng() % 100000);
                    f.tb().setSide(staged, SideColumn::CorrelationId, correlation[i]);
                }
                starts.push_back(t);
                durations.push_back(d);
                t += d;
            }
            std::vector<TrackBuilder::Placement> where;
            f.builder.finishTrack(f.track, &where);
            auto trace = f.builder.build();
            const Track &track = trace->tracks[0];
            QCOMPARE(track.rows.size(), size_t(1));
            const Row &row = track.rows[0];
            QCOMPARE(row.size(), n);
            QCOMPARE(row.start.capacity(), n);
            QCOMPARE(row.args.capacity(), n);
            QCOMPARE(where.size(), n);
            for (size_t i = 0; i < n; ++i) {
                QCOMPARE(where[i].row, 0u);
                QCOMPARE(where[i].index, uint32_t(i));
                QCOMPARE(row.start[i], starts[i]);
                QCOMPARE(row.duration[i], durations[i]);
                QCOMPARE(uint32_t(row.kind[i]), f.kindA);
                QCOMPARE(trace->side(SliceRef{0, 0, uint32_t(i)}, SideColumn::CorrelationId),
                         correlation[i]);
                int64_t seen = -1;
                track.args.forEach(row.argsAt(i), [&](const ArgValue &v) { seen = v.i; });
                QCOMPARE(seen, argValue[i]);
            }
        }
    }

    void randomInputKeepsInvariants()
    {
        std::mt19937_64 rng(42);
        for (int round = 0; round < 20; ++round) {
            Fixture f;
            const int n = 1 + int(rng() % 2000);
            for (int i = 0; i < n; ++i) {
                const TimePs start = TimePs(rng() % 10000);
                const TimePs dur = (rng() % 4 == 0) ? 0 : TimePs(rng() % 500);
                f.tb().addSlice(start, dur, f.kindA);
            }
            auto trace = f.builder.build();
            checkRowInvariants(trace->tracks[0]);
            QCOMPARE(trace->tracks[0].sliceCount, uint64_t(n));
        }
    }
};

QTEST_GUILESS_MAIN(TestTrackBuilder)
#include "tst_trackbuilder.moc"
