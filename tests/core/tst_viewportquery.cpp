#include "core/model/tracebuilder.h"
#include "core/query/viewportquery.h"

#include <QtTest>

#include <cmath>
#include <map>
#include <optional>
#include <random>

using namespace tracedesk::core;

namespace {

struct Spec
{
    TimePs start;
    TimePs duration;
};

// One track whose slices never overlap, so they all land on row 0. Kinds cycle a, b, c.
std::shared_ptr<Trace> makeRow(const std::vector<Spec> &slices)
{
    TraceBuilder builder;
    const uint32_t plane = builder.addPlane("plane", "host", 1, PlaneKind::Host);
    const uint32_t track = builder.addTrack(plane, "track", 1);
    for (const char *name : {"a", "b", "c"}) {
        EventKind kind;
        kind.name = builder.intern(name);
        builder.addKind(kind);
    }
    for (size_t i = 0; i < slices.size(); ++i)
        builder.trackBuilder(track).addSlice(slices[i].start, slices[i].duration, uint32_t(i % 3));
    return builder.build();
}

const Row &rowOf(const Trace &trace)
{
    static const Row empty;
    return trace.tracks[0].rows.empty() ? empty : trace.tracks[0].rows[0];
}

std::vector<VisibleItem> query(const Row &row, const Viewport &view, int foldPx = kFoldPx)
{
    std::vector<VisibleItem> out;
    queryRow(row, view, out, foldPx);
    return out;
}

VisibleItem slice(const Row &row, uint32_t i)
{
    return VisibleItem{row.start[i], row.duration[i], i, 1, uint32_t(row.kind[i])};
}

VisibleItem folded(const Row &row, uint32_t first, uint32_t count)
{
    const uint32_t last = first + count - 1;
    return VisibleItem{row.start[first], row.end(last) - row.start[first], first, count,
                       uint32_t(row.kind[first])};
}

// The definition, walked slice by slice with exact rational comparisons instead of the
// precomputed fold width: "d is at least foldPx pixels" is d * pxDen >= foldPx * psNum.
std::vector<VisibleItem> naiveQuery(const Row &row, const Viewport &view, int foldPx)
{
    std::vector<VisibleItem> out;
    if (view.t1 <= view.t0)
        return out;
    const __int128 limit = __int128(foldPx) * view.psNum;
    auto atLeastFold = [&](TimePs d) { return __int128(d) * view.pxDen >= limit; };
    bool open = false;
    uint32_t first = 0, count = 0;
    TimePs runEnd = 0;
    auto close = [&] {
        if (open)
            out.push_back(count == 1 ? slice(row, first) : folded(row, first, count));
        open = false;
    };
    for (uint32_t i = 0; i < row.size(); ++i) {
        const bool overlaps = (row.end(i) > view.t0 || row.start[i] >= view.t0)
                              && row.start[i] < view.t1;
        if (!overlaps)
            continue;
        const bool narrow = !atLeastFold(row.duration[i]);
        if (open && narrow && !atLeastFold(row.start[i] - runEnd)) {
            ++count;
            runEnd = row.end(i);
            continue;
        }
        close();
        if (narrow) {
            open = true;
            first = i;
            count = 1;
            runEnd = row.end(i);
        } else {
            out.push_back(slice(row, i));
        }
    }
    close();
    return out;
}

QString describe(const std::vector<VisibleItem> &items)
{
    QStringList parts;
    for (const VisibleItem &it : items) {
        parts << QStringLiteral("[%1+%2 #%3 x%4]")
                     .arg(it.start).arg(it.duration).arg(it.first).arg(it.count);
    }
    return parts.join(QLatin1Char(' '));
}

#define COMPARE_ITEMS(actual, expected)                                                      \
    QVERIFY2((actual) == (expected),                                                          \
             qPrintable(QStringLiteral("got %1, expected %2")                                  \
                            .arg(describe(actual), describe(expected))))

std::vector<Spec> randomRow(std::mt19937_64 &rng, size_t n, TimePs base)
{
    // Mixed scales: many tiny slices, some large ones, zero gaps and instants, so every zoom
    // sees both folding and plain slices.
    std::uniform_int_distribution<int> exponent(0, 7);
    std::uniform_int_distribution<int> coin(0, 9);
    auto logUniform = [&] {
        const int e = exponent(rng);
        const TimePs scale = TimePs(std::pow(10.0, e));
        return std::uniform_int_distribution<TimePs>(0, scale)(rng);
    };
    std::vector<Spec> specs;
    TimePs t = base;
    for (size_t i = 0; i < n; ++i) {
        const int c = coin(rng);
        const TimePs gap = c < 3 ? 0 : logUniform();
        const TimePs duration = c == 9 ? 0 : logUniform();
        t += gap;
        specs.push_back({t, duration});
        t += duration;
        if (duration == 0)
            ++t;   // instants apart: two instants at one time would stack into two rows
    }
    return specs;
}

Viewport randomViewport(std::mt19937_64 &rng, TimePs begin, TimePs end)
{
    const TimePs span = std::max<TimePs>(1, end - begin);
    std::uniform_int_distribution<TimePs> at(begin - span / 4, end);
    const TimePs t0 = at(rng);
    const int e = std::uniform_int_distribution<int>(0, 62 - __builtin_clzll(uint64_t(span)) + 2)(rng);
    const TimePs width = std::max<TimePs>(1, TimePs(1) << std::min(e, 61));
    const TimePs t1 = t0 + std::uniform_int_distribution<TimePs>(1, width)(rng);
    switch (std::uniform_int_distribution<int>(0, 2)(rng)) {
    case 0:
        return Viewport::withWidth(t0, t1, std::uniform_int_distribution<int64_t>(1, 4000)(rng));
    case 1:
        return Viewport::withPsPerPx(t0, t1, std::max<int64_t>(1, (t1 - t0) >> std::uniform_int_distribution<int>(0, 12)(rng)));
    default:
        return Viewport::withPsPerPx(t0, t1, 1.0 + std::uniform_real_distribution<double>(0, 5000)(rng));
    }
}

} // namespace

class TestViewportQuery : public QObject
{
    Q_OBJECT

private slots:
    void viewportPixelMaths();
    void viewportFromDouble();
    void sliceExactlyTwoPixelsIsShown();
    void sliceJustUnderTwoPixelsFolds();
    void loneNarrowSliceStaysASlice();
    void extremeZoomIn();
    void wholeTraceInOnePixel();
    void emptyRowsAndEmptyWindows();
    void hugeSliceSpanningEverything();
    void adjacentWideSlices();
    void windowEdgesCutSlices();
    void timesNearTwoToFifty();
    void outputVectorIsReused();
    void matchesNaiveFoldOnRandomRows_data();
    void matchesNaiveFoldOnRandomRows();
    void itemCountBoundedByPixels();
    void rowIndexFindsFirstBreak();
    void counterColumnsAndEdges();
    void counterIndexMatchesBruteForce();
    void counterMatchesNaiveOnRandomSeries();
};

void TestViewportQuery::viewportPixelMaths()
{
    // 1000 ps over 3 px: ps/px = 333.33..., boundaries at 334 and 667.
    const Viewport v = Viewport::withWidth(0, 1000, 3);
    QCOMPARE(v.pixelOf(0), 0);
    QCOMPARE(v.pixelOf(333), 0);
    QCOMPARE(v.pixelOf(334), 1);
    QCOMPARE(v.pixelOf(666), 1);
    QCOMPARE(v.pixelOf(667), 2);
    QCOMPARE(v.pixelOf(999), 2);
    QCOMPARE(v.pixelStart(1), 334);
    QCOMPARE(v.pixelStart(2), 667);
    QCOMPARE(v.pixelStart(3), 1000);
    QCOMPARE(v.widthPx(), 3);
    QCOMPARE(v.spanOfPixels(2), 667);

    // Before t0 pixels are negative and rounded down.
    const Viewport w = Viewport::withPsPerPx(100, 200, int64_t(10));
    QCOMPARE(w.pixelOf(99), -1);
    QCOMPARE(w.pixelOf(90), -1);
    QCOMPARE(w.pixelOf(89), -2);
    QCOMPARE(w.pixelStart(-1), 90);
    QCOMPARE(w.widthPx(), 10);

    // A window of 2^62 ps over 1920 px stays exact at its right edge.
    const TimePs huge = TimePs(1) << 62;
    const Viewport h = Viewport::withWidth(0, huge, 1920);
    QCOMPARE(h.pixelStart(1920), huge);
    QCOMPARE(h.pixelOf(huge - 1), 1919);
    QCOMPARE(h.widthPx(), 1920);
}

void TestViewportQuery::viewportFromDouble()
{
    const Viewport v = Viewport::withPsPerPx(0, 100, 1.5);
    QCOMPARE(v.psPerPx(), 1.5);
    QCOMPARE(v.spanOfPixels(2), 3);
    QCOMPARE(v.pixelOf(2), 1);
    QCOMPARE(v.pixelStart(1), 2);   // ceil(1.5)
    // Below 1 ps/px is clamped to 1.
    QCOMPARE(Viewport::withPsPerPx(0, 100, 0.25).psPerPx(), 1.0);
    // Coarse scales keep an exact integer numerator.
    const Viewport c = Viewport::withPsPerPx(0, TimePs(1) << 60, 0x1p50);
    QCOMPARE(c.spanOfPixels(1), TimePs(1) << 50);
}

void TestViewportQuery::sliceExactlyTwoPixelsIsShown()
{
    // 10 ps/px: the fold width is 20 ps.
    auto trace = makeRow({{0, 20}, {20, 20}, {100, 21}});
    const Row &row = rowOf(*trace);
    const auto items = query(row, Viewport::withPsPerPx(0, 1000, int64_t(10)));
    const std::vector<VisibleItem> expected{slice(row, 0), slice(row, 1), slice(row, 2)};
    COMPARE_ITEMS(items, expected);
}

void TestViewportQuery::sliceJustUnderTwoPixelsFolds()
{
    auto trace = makeRow({{0, 20}, {20, 19}, {39, 19}, {100, 20}});
    const Row &row = rowOf(*trace);
    const auto items = query(row, Viewport::withPsPerPx(0, 1000, int64_t(10)));
    const std::vector<VisibleItem> expected{slice(row, 0), folded(row, 1, 2), slice(row, 3)};
    COMPARE_ITEMS(items, expected);
    QCOMPARE(items[1].start, 20);
    QCOMPARE(items[1].end(), 58);

    // With a rational scale (2000 ps over 6 px) two pixels are ceil(666.67) = 667 ps.
    auto rational = makeRow({{0, 667}, {667, 666}, {1333, 666}});
    const Row &r = rowOf(*rational);
    const auto got = query(r, Viewport::withWidth(0, 2000, 6));
    const std::vector<VisibleItem> want{slice(r, 0), folded(r, 1, 2)};
    COMPARE_ITEMS(got, want);
}

void TestViewportQuery::loneNarrowSliceStaysASlice()
{
    // Gaps of exactly the fold width split runs; a run of one is the slice itself.
    auto trace = makeRow({{0, 5}, {25, 5}, {49, 5}});
    const Row &row = rowOf(*trace);
    const auto items = query(row, Viewport::withPsPerPx(0, 1000, int64_t(10)));
    // 0..5 then gap 20 (not < 20): separate. 25..30 then gap 19: folds with 49..54.
    const std::vector<VisibleItem> expected{slice(row, 0), folded(row, 1, 2)};
    COMPARE_ITEMS(items, expected);
    QVERIFY(!items[0].folded());
    QVERIFY(items[1].folded());
}

void TestViewportQuery::extremeZoomIn()
{
    auto trace = makeRow({{0, 1}, {1, 1}, {2, 2}, {4, 1}, {7, 1}});
    const Row &row = rowOf(*trace);
    const auto items = query(row, Viewport::withPsPerPx(0, 1920, int64_t(1)));
    const std::vector<VisibleItem> expected{folded(row, 0, 2), slice(row, 2), slice(row, 3),
                                            slice(row, 4)};
    COMPARE_ITEMS(items, expected);

    // An hour-long trace at 1 ps/px: a window of 1920 ps deep inside.
    const TimePs hour = TimePs(3600) * 1000 * 1000 * 1000 * 1000;
    auto deep = makeRow({{0, hour / 2}, {hour / 2, 3}, {hour / 2 + 3, 1}, {hour / 2 + 5, hour / 2}});
    const Row &d = rowOf(*deep);
    const auto got = query(d, Viewport::withPsPerPx(hour / 2 - 10, hour / 2 + 1910, int64_t(1)));
    const std::vector<VisibleItem> want{slice(d, 0), slice(d, 1), slice(d, 2), slice(d, 3)};
    COMPARE_ITEMS(got, want);
}

void TestViewportQuery::wholeTraceInOnePixel()
{
    std::vector<Spec> specs;
    for (int i = 0; i < 10000; ++i)
        specs.push_back({TimePs(i) * 1000 + 17, 500 + i % 300});
    auto trace = makeRow(specs);
    const Row &row = rowOf(*trace);
    const auto items = query(row, Viewport::withWidth(trace->begin, trace->end, 1));
    const std::vector<VisibleItem> expected{folded(row, 0, 10000)};
    COMPARE_ITEMS(items, expected);
    QCOMPARE(items[0].start, trace->begin);
    QCOMPARE(items[0].end(), trace->end);
}

void TestViewportQuery::emptyRowsAndEmptyWindows()
{
    auto empty = makeRow({});
    QVERIFY(query(rowOf(*empty), Viewport::withPsPerPx(0, 1000, int64_t(1))).empty());
    QVERIFY(query(Row{}, Viewport::withWidth(0, 1000, 100)).empty());

    auto trace = makeRow({{0, 100}, {1000, 100}});
    const Row &row = rowOf(*trace);
    // Between the slices, before them, after them, and a window of no width.
    QVERIFY(query(row, Viewport::withPsPerPx(100, 1000, int64_t(1))).empty());
    QVERIFY(query(row, Viewport::withPsPerPx(-500, 0, int64_t(1))).empty());
    QVERIFY(query(row, Viewport::withPsPerPx(1100, 5000, int64_t(1))).empty());
    QVERIFY(query(row, Viewport{50, 50, 1, 1}).empty());
    QVERIFY(query(row, Viewport{60, 50, 1, 1}).empty());
}

void TestViewportQuery::hugeSliceSpanningEverything()
{
    const TimePs huge = TimePs(1) << 60;
    auto trace = makeRow({{0, huge}});
    const Row &row = rowOf(*trace);
    const std::vector<VisibleItem> expected{slice(row, 0)};
    COMPARE_ITEMS(query(row, Viewport::withPsPerPx(huge / 2, huge / 2 + 1920, int64_t(1))),
                  expected);
    COMPARE_ITEMS(query(row, Viewport::withWidth(0, huge, 1920)), expected);
    // Zoomed far out (the slice is under one pixel): still itself, a run of one.
    COMPARE_ITEMS(query(row, Viewport::withWidth(-huge, huge * 7, 1)), expected);
}

void TestViewportQuery::adjacentWideSlices()
{
    std::vector<Spec> specs;
    for (int i = 0; i < 100; ++i)
        specs.push_back({TimePs(i) * 50, 50});
    auto trace = makeRow(specs);
    const Row &row = rowOf(*trace);
    QCOMPARE(row.size(), size_t(100));
    const auto items = query(row, Viewport::withPsPerPx(0, 5000, int64_t(10)));
    QCOMPARE(items.size(), size_t(100));
    for (uint32_t i = 0; i < 100; ++i)
        QVERIFY(items[i] == slice(row, i));
    // Zoomed out 3x they are narrow and touch: one run.
    const auto far = query(row, Viewport::withPsPerPx(0, 5000, int64_t(30)));
    const std::vector<VisibleItem> expected{folded(row, 0, 100)};
    COMPARE_ITEMS(far, expected);
}

void TestViewportQuery::windowEdgesCutSlices()
{
    auto trace = makeRow({{0, 100}, {100, 100}, {250, 0}, {300, 100}});
    const Row &row = rowOf(*trace);
    auto at1 = [&](TimePs t0, TimePs t1) { return query(row, Viewport::withPsPerPx(t0, t1, int64_t(1))); };

    // A slice starting before t0 but overlapping it comes back whole.
    COMPARE_ITEMS(at1(150, 260), (std::vector<VisibleItem>{slice(row, 1), slice(row, 2)}));
    // A slice ending exactly at t0 is out; one starting at t0 is in.
    COMPARE_ITEMS(at1(100, 200), (std::vector<VisibleItem>{slice(row, 1)}));
    // A slice starting exactly at t1 is out.
    COMPARE_ITEMS(at1(0, 100), (std::vector<VisibleItem>{slice(row, 0)}));
    // An instant at t0 is in, at t1 is out.
    COMPARE_ITEMS(at1(250, 300), (std::vector<VisibleItem>{slice(row, 2)}));
    COMPARE_ITEMS(at1(200, 250), (std::vector<VisibleItem>{}));
    // One picosecond inside a slice.
    COMPARE_ITEMS(at1(399, 400), (std::vector<VisibleItem>{slice(row, 3)}));
    QCOMPARE(at1(399, 400)[0].start, 300);
}

void TestViewportQuery::timesNearTwoToFifty()
{
    const TimePs base = (TimePs(1) << 50) - 1000;
    std::vector<Spec> specs;
    for (int i = 0; i < 2000; ++i)
        specs.push_back({base + TimePs(i) * 3, 1});
    auto trace = makeRow(specs);
    const Row &row = rowOf(*trace);
    // 1 ps/px: each 1 ps slice is narrow, gaps of 2 ps are not < 2: all single slices.
    const TimePs t0 = base + 600;
    const auto fine = query(row, Viewport::withPsPerPx(t0, t0 + 1920, int64_t(1)));
    QCOMPARE(fine.size(), size_t(640));
    for (size_t k = 0; k < fine.size(); ++k)
        QVERIFY(fine[k] == slice(row, uint32_t(200 + k)));
    QCOMPARE(fine.front().start, base + 600);
    // 2 ps/px: fold width 4, everything in the window folds into one run.
    const auto coarse = query(row, Viewport::withPsPerPx(t0, t0 + 3840, int64_t(2)));
    const std::vector<VisibleItem> expected{folded(row, 200, 1280)};
    COMPARE_ITEMS(coarse, expected);
    QCOMPARE(coarse[0].end(), base + 3 * 1479 + 1);
}

void TestViewportQuery::outputVectorIsReused()
{
    auto trace = makeRow({{0, 100}, {200, 100}});
    const Row &row = rowOf(*trace);
    std::vector<VisibleItem> out(50);
    queryRow(row, Viewport::withPsPerPx(0, 1000, int64_t(1)), out);
    QCOMPARE(out.size(), size_t(2));
    const size_t capacity = out.capacity();
    queryRow(row, Viewport::withPsPerPx(5000, 6000, int64_t(1)), out);
    QVERIFY(out.empty());
    QCOMPARE(out.capacity(), capacity);
}

void TestViewportQuery::matchesNaiveFoldOnRandomRows_data()
{
    QTest::addColumn<quint64>("seed");
    QTest::addColumn<qint64>("base");
    for (quint64 seed : {1u, 2u, 3u, 42u, 1234u, 99991u}) {
        QTest::addRow("seed %llu", seed) << seed << qint64(0);
        QTest::addRow("seed %llu at 2^50", seed) << seed << qint64(TimePs(1) << 50);
    }
}

void TestViewportQuery::matchesNaiveFoldOnRandomRows()
{
    QFETCH(quint64, seed);
    QFETCH(qint64, base);
    std::mt19937_64 rng(seed);
    uint64_t foldedSeen = 0, slicesSeen = 0;
    for (int rowCase = 0; rowCase < 8; ++rowCase) {
        const size_t n = std::uniform_int_distribution<size_t>(0, 3000)(rng);
        auto trace = makeRow(randomRow(rng, n, base));
        const Row &row = rowOf(*trace);
        QCOMPARE(row.size(), n);
        const RowIndex index(row);
        for (int q = 0; q < 150; ++q) {
            const Viewport view = randomViewport(rng, trace->begin, trace->end);
            const int foldPx = std::uniform_int_distribution<int>(1, 3)(rng);
            const auto got = query(row, view, foldPx);
            const auto want = naiveQuery(row, view, foldPx);
            std::vector<VisibleItem> indexed;
            queryRow(row, view, indexed, foldPx, &index);
            QVERIFY(indexed == want);
            if (got != want) {
                QFAIL(qPrintable(QStringLiteral("row %1 query %2 window [%3, %4) %5/%6 ps/px "
                                                "fold %7: got %8 items, expected %9")
                                     .arg(rowCase).arg(q).arg(view.t0).arg(view.t1)
                                     .arg(view.psNum).arg(view.pxDen).arg(foldPx)
                                     .arg(got.size()).arg(want.size())));
            }
            uint64_t covered = 0;
            for (const VisibleItem &it : got) {
                covered += it.count;
                (it.folded() ? foldedSeen : slicesSeen) += 1;
            }
            const IndexRange range = overlappingRange(row, view.t0, view.t1);
            QCOMPARE(covered, uint64_t(range.last - range.first));
        }
    }
    // The random cases must exercise both outcomes, or the comparison proves little.
    QVERIFY(foldedSeen > 100);
    QVERIFY(slicesSeen > 100);
}

void TestViewportQuery::itemCountBoundedByPixels()
{
    // A dense row: 1M slices over 1920 px never gives more items than about one per pixel.
    std::mt19937_64 rng(7);
    auto trace = makeRow(randomRow(rng, 1'000'000, 0));
    const Row &row = rowOf(*trace);
    std::vector<VisibleItem> out;
    for (int q = 0; q < 200; ++q) {
        const Viewport view = randomViewport(rng, trace->begin, trace->end);
        const Viewport frame = Viewport::withWidth(view.t0, view.t1, 1920);
        queryRow(row, frame, out);
        QVERIFY2(int64_t(out.size()) <= frame.widthPx() + 4,
                 qPrintable(QStringLiteral("%1 items for %2 px").arg(out.size()).arg(frame.widthPx())));
    }
}

void TestViewportQuery::rowIndexFindsFirstBreak()
{
    std::mt19937_64 rng(21);
    for (size_t n : {0u, 1u, 2u, 16u, 17u, 255u, 256u, 257u, 5000u}) {
        auto trace = makeRow(randomRow(rng, n, 0));
        const Row &row = rowOf(*trace);
        const RowIndex index(row);
        for (int q = 0; q < 400 && n > 1; ++q) {
            const size_t from = std::uniform_int_distribution<size_t>(1, n - 1)(rng);
            const size_t last = std::uniform_int_distribution<size_t>(from, n)(rng);
            const TimePs width = TimePs(1) << std::uniform_int_distribution<int>(0, 24)(rng);
            size_t want = from;
            while (want < last && row.duration[want] < width
                   && row.start[want] - row.end(want - 1) < width)
                ++want;
            QCOMPARE(index.firstBreak(row, from, last, width), want);
        }
    }
}

namespace {

CounterSeries makeSeries(const std::vector<std::pair<TimePs, double>> &samples)
{
    CounterSeries s;
    for (const auto &[t, v] : samples) {
        s.time.push_back(t);
        s.value.push_back(v);
    }
    return s;
}

// Per pixel column: the earliest smallest and the earliest largest sample, in time order;
// plus the sample before the window and the one at or after its end.
std::vector<CounterPoint> naiveCounter(const CounterSeries &s, const Viewport &view)
{
    std::vector<CounterPoint> out;
    auto point = [&](size_t i) { return CounterPoint{s.time[i], s.value[i], uint32_t(i)}; };
    std::optional<size_t> before, after;
    std::map<int64_t, std::pair<size_t, size_t>> columns;
    for (size_t i = 0; i < s.size(); ++i) {
        if (s.time[i] < view.t0) {
            before = i;
        } else if (s.time[i] >= view.t1) {
            if (!after)
                after = i;
        } else {
            auto [it, inserted] = columns.try_emplace(view.pixelOf(s.time[i]), i, i);
            if (s.value[i] < s.value[it->second.first])
                it->second.first = i;
            if (s.value[i] > s.value[it->second.second])
                it->second.second = i;
        }
    }
    if (before)
        out.push_back(point(*before));
    for (const auto &[px, mm] : columns) {
        out.push_back(point(std::min(mm.first, mm.second)));
        if (mm.first != mm.second)
            out.push_back(point(std::max(mm.first, mm.second)));
    }
    if (after)
        out.push_back(point(*after));
    return out;
}

} // namespace

void TestViewportQuery::counterColumnsAndEdges()
{
    // 10 samples per 10 ps/px column; values rise then fall inside each column.
    std::vector<std::pair<TimePs, double>> samples;
    for (int i = 0; i < 100; ++i)
        samples.push_back({i, double((i % 10) < 5 ? i % 10 : 10 - i % 10)});
    const CounterSeries s = makeSeries(samples);
    std::vector<CounterPoint> out;
    queryCounter(s, Viewport::withPsPerPx(0, 100, int64_t(10)), out);
    // Each column: min at its first sample (value 0), max at its sixth (value 5).
    QCOMPARE(out.size(), size_t(20));
    for (int c = 0; c < 10; ++c) {
        QCOMPARE(out[2 * c].index, uint32_t(c * 10));
        QCOMPARE(out[2 * c].value, 0.0);
        QCOMPARE(out[2 * c + 1].index, uint32_t(c * 10 + 5));
        QCOMPARE(out[2 * c + 1].value, 5.0);
    }
    // Edges: the sample before t0 and the first one at t1 come along.
    queryCounter(s, Viewport::withPsPerPx(50, 60, int64_t(10)), out);
    QCOMPARE(out.size(), size_t(4));
    QCOMPARE(out.front().index, uint32_t(49));
    QCOMPARE(out[1].index, uint32_t(50));
    QCOMPARE(out[2].index, uint32_t(55));
    QCOMPARE(out.back().index, uint32_t(60));
    // A window between two samples still draws the line through it.
    const CounterSeries sparse = makeSeries({{0, 1.0}, {1000, 2.0}});
    queryCounter(sparse, Viewport::withPsPerPx(100, 200, int64_t(1)), out);
    QCOMPARE(out.size(), size_t(2));
    QCOMPARE(out[0].time, 0);
    QCOMPARE(out[1].time, 1000);
    // Nothing for an empty series.
    queryCounter(CounterSeries{}, Viewport::withPsPerPx(0, 10, int64_t(1)), out);
    QVERIFY(out.empty());
}

void TestViewportQuery::counterIndexMatchesBruteForce()
{
    std::mt19937_64 rng(11);
    for (size_t n : {1u, 15u, 16u, 17u, 300u, 5000u, 70000u}) {
        CounterSeries s;
        for (size_t i = 0; i < n; ++i) {
            s.time.push_back(TimePs(i));
            const int r = std::uniform_int_distribution<int>(0, 40)(rng);
            s.value.push_back(r == 0 ? std::nan("") : double(r % 13));   // ties and NaNs
        }
        const CounterIndex index(s);
        for (int q = 0; q < 300; ++q) {
            size_t a = std::uniform_int_distribution<size_t>(0, n - 1)(rng);
            size_t b = std::uniform_int_distribution<size_t>(0, n - 1)(rng);
            if (a > b)
                std::swap(a, b);
            ++b;
            size_t mn = a, mx = a;
            for (size_t i = a; i < b; ++i) {
                const double v = s.value[i];
                if (std::isnan(v))
                    continue;
                if (std::isnan(s.value[mn]) || v < s.value[mn])
                    mn = i;
                if (std::isnan(s.value[mx]) || v > s.value[mx])
                    mx = i;
            }
            uint32_t gotMin = 0, gotMax = 0;
            index.minMax(s, a, b, &gotMin, &gotMax);
            QCOMPARE(size_t(gotMin), mn);
            QCOMPARE(size_t(gotMax), mx);
        }
    }
}

void TestViewportQuery::counterMatchesNaiveOnRandomSeries()
{
    for (quint64 seed : {5u, 6u, 77u}) {
        std::mt19937_64 rng(seed);
        CounterSeries s;
        TimePs t = TimePs(1) << 50;
        for (int i = 0; i < 50000; ++i) {
            t += std::uniform_int_distribution<TimePs>(0, 3) (rng) == 0
                     ? 0 : std::uniform_int_distribution<TimePs>(1, 5000)(rng);
            s.time.push_back(t);
            s.value.push_back(double(std::uniform_int_distribution<int>(-1000, 1000)(rng)));
        }
        const CounterIndex index(s);
        std::vector<CounterPoint> plain, indexed;
        for (int q = 0; q < 60; ++q) {
            const Viewport view = randomViewport(rng, s.time.front(), s.time.back());
            queryCounter(s, view, plain);
            queryCounter(s, view, indexed, &index);
            const auto want = naiveCounter(s, view);
            QVERIFY(plain == want);
            QVERIFY(indexed == want);
            QVERIFY(int64_t(plain.size()) <= 2 * std::max<int64_t>(1, view.widthPx()) + 2);
        }
    }
}

QTEST_GUILESS_MAIN(TestViewportQuery)
#include "tst_viewportquery.moc"
