#include "core/model/tracebuilder.h"
#include "core/query/densityquery.h"
#include "core/query/lodindex.h"
#include "core/query/viewportquery.h"

#include <QtTest>

#include <map>
#include <random>

using namespace tracedesk::core;

namespace {

struct Spec
{
    TimePs start;
    TimePs duration;
    uint32_t kind;   // 0 = a/matmul, 1 = b/relu, 2 = c
};

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
    for (const Spec &s : slices)
        builder.trackBuilder(track).addSlice(s.start, s.duration, s.kind);
    return builder.build();
}

std::vector<DensityColumn> columns(const Row &row, const Viewport &view,
                                   const DensityBins *bins = nullptr)
{
    std::vector<VisibleItem> items;
    queryRow(row, view, items);
    std::vector<DensityColumn> out;
    densityColumns(row, view, items, out, bins);
    return out;
}

// The big row of binnedRowKeepsGapsAndDominance: 150 columns of 8192 ps, each 64 cells of
// 128 ps. A cell is [0, 80) of the column's main kind and [96, 112) of the other: 75 % busy.
// Main kind a (0) in columns 0-99, b (1) in 100-149. Idle: column 40 (one column, inside a
// run) and columns 70-79 (ten columns, between runs).
constexpr TimePs kColumn = 8192;
constexpr TimePs kCell = 128;
constexpr int kColumns = 150;

bool idleColumn(int c)
{
    return c == 40 || (c >= 70 && c < 80);
}

std::vector<Spec> bigRow()
{
    std::vector<Spec> specs;
    for (int c = 0; c < kColumns; ++c) {
        if (idleColumn(c))
            continue;
        const uint32_t main = c < 100 ? 0 : 1;
        for (TimePs cell = 0; cell < kColumn / kCell; ++cell) {
            const TimePs t = c * kColumn + cell * kCell;
            specs.push_back({t, 80, main});
            specs.push_back({t + 96, 16, 1 - main});
        }
    }
    return specs;
}

} // namespace

class TstDensityQuery : public QObject
{
    Q_OBJECT

private slots:
    void exactColumnsByHand();
    void wideSlicesHaveNoColumns();
    void binnedRowKeepsGapsAndDominance();
    void binnedMatchesExact();
    void smallRowsHaveNoBins();
    void budgetCountsStartsOfLongerRuns();
    void exactMatchesBruteForce();
};

// 100 ps per pixel, 10 columns; every slice is under 2 px, so they fold into two runs split by
// the idle columns 3-5 (a 310 ps gap). Column 7 is idle too, but its 120 ps gap does not end
// the second run: the run covers it and still shows nothing there.
void TstDensityQuery::exactColumnsByHand()
{
    const auto trace = makeRow({
        {0, 40, 0}, {50, 10, 1},     // column 0: a 40 + b 10 -> 50 %, a
        {100, 30, 0}, {150, 40, 2},  // column 1: a 30 + c 40 -> 70 %, c
        {210, 80, 0},                // column 2: a 80 -> 80 %, a
        {600, 90, 1},                // column 6: b 90 -> 90 %, b
        {810, 40, 1}, {860, 10, 0}, {880, 70, 1},   // column 8: b 40 + a 10 + b 20 -> 70 %, b
                                                    // column 9: b 50 (no start) -> 50 %, b
    });
    const Row &row = trace->tracks[0].rows[0];
    const Viewport view = Viewport::withWidth(0, 1000, 10);
    std::vector<VisibleItem> items;
    queryRow(row, view, items);
    QCOMPARE(items.size(), size_t(2));
    QCOMPARE(items[0].count, 5u);
    QCOMPARE(items[1].count, 4u);

    const std::vector<DensityColumn> got = columns(row, view);
    const std::vector<DensityColumn> want = {
        {0, 0.5f, 0, 2, 0}, {1, 0.7f, 2, 2, 0}, {2, 0.8f, 0, 1, 0},
        {6, 0.9f, 1, 1, 1}, {8, 0.7f, 1, 3, 1}, {9, 0.5f, 1, 0, 1},
    };
    QCOMPARE(got.size(), want.size());
    for (size_t i = 0; i < want.size(); ++i) {
        QCOMPARE(got[i].px, want[i].px);
        QVERIFY2(qAbs(got[i].coverage - want[i].coverage) < 1e-6f,
                 qPrintable(QStringLiteral("column %1: %2").arg(got[i].px).arg(got[i].coverage)));
        QCOMPARE(got[i].kind, want[i].kind);
        QCOMPARE(got[i].count, want[i].count);
        QCOMPARE(got[i].item, want[i].item);
    }
}

void TstDensityQuery::wideSlicesHaveNoColumns()
{
    // 1000 ps slices at 100 ps/px are drawn as themselves: no density columns.
    const auto trace = makeRow({{0, 1000, 0}, {1500, 1000, 1}});
    const Row &row = trace->tracks[0].rows[0];
    QVERIFY(columns(row, Viewport::withWidth(0, 3000, 30)).empty());
}

void TstDensityQuery::binnedRowKeepsGapsAndDominance()
{
    const auto trace = makeRow(bigRow());
    const Row &row = trace->tracks[0].rows[0];
    QVERIFY(row.size() >= kDensityMinSlices);
    const DensityBins bins(row);
    QVERIFY(!bins.empty());
    const Viewport view = Viewport::withWidth(0, kColumns * kColumn, kColumns);
    QCOMPARE(view.psPerPx(), double(kColumn));
    QVERIFY(bins.levelFor(view.psPerPx()) >= 0);   // the binned path, not the slice walk

    const std::vector<DensityColumn> got = columns(row, view, &bins);
    std::map<int64_t, DensityColumn> byPx;
    for (const DensityColumn &c : got)
        byPx[c.px] = c;
    for (int c = 0; c < kColumns; ++c) {
        const auto it = byPx.find(c);
        if (idleColumn(c)) {
            QVERIFY2(it == byPx.end(), qPrintable(QStringLiteral("idle column %1 drawn").arg(c)));
            continue;
        }
        QVERIFY2(it != byPx.end(), qPrintable(QStringLiteral("busy column %1 missing").arg(c)));
        // 96 of every 128 ps busy, by hand; bins store it in 16-bit fixed point.
        QVERIFY2(qAbs(it->second.coverage - 0.75f) < 1e-3f,
                 qPrintable(QStringLiteral("column %1: %2").arg(c).arg(it->second.coverage)));
        QCOMPARE(it->second.kind, c < 100 ? 0u : 1u);
        QCOMPARE(it->second.count, uint32_t(2 * kColumn / kCell));
    }
    QCOMPARE(got.size(), size_t(kColumns - 11));
}

void TstDensityQuery::binnedMatchesExact()
{
    const auto trace = makeRow(bigRow());
    const Row &row = trace->tracks[0].rows[0];
    const RowIndex index(row);
    // Views where both paths apply: the bins' answer stays close to the slice walk's.
    for (const auto &[t0, t1, width] : {std::tuple<TimePs, TimePs, int64_t>{0, 1228800, 150},
                                        {100'000, 1'100'000, 97},
                                        {0, 1228800, 300}}) {
        const Viewport view = Viewport::withWidth(t0, t1, width);
        if (index.density().levelFor(view.psPerPx()) < 0)
            continue;
        const auto exact = columns(row, view);
        const auto binned = columns(row, view, &index.density());
        std::map<int64_t, DensityColumn> exactByPx;
        for (const DensityColumn &c : exact)
            exactByPx[c.px] = c;
        for (const DensityColumn &c : binned) {
            const auto it = exactByPx.find(c.px);
            if (it == exactByPx.end()) {
                // Smear from a bin cut by the column edge: small.
                QVERIFY2(c.coverage < 0.35f, qPrintable(QString::number(c.px)));
                continue;
            }
            QVERIFY2(qAbs(c.coverage - it->second.coverage) < 0.35f,
                     qPrintable(QString::number(c.px)));
        }
    }
}

void TstDensityQuery::smallRowsHaveNoBins()
{
    const auto trace = makeRow({{0, 10, 0}, {20, 10, 1}});
    QVERIFY(DensityBins(trace->tracks[0].rows[0]).empty());
    QCOMPARE(DensityBins(trace->tracks[0].rows[0]).levelFor(1e6), -1);
}

void TstDensityQuery::budgetCountsStartsOfLongerRuns()
{
    const auto trace = makeRow(bigRow());
    const Row &row = trace->tracks[0].rows[0];
    const Viewport view = Viewport::withWidth(0, kColumns * kColumn, kColumns);
    std::vector<VisibleItem> items;
    queryRow(row, view, items);
    // The ten idle columns split the row into two runs; the one idle column does not.
    QCOMPARE(items.size(), size_t(2));
    const size_t firstRun = size_t(69 * 2 * kColumn / kCell);
    const size_t secondRun = size_t(70 * 2 * kColumn / kCell);
    QCOMPARE(size_t(items[0].count), firstRun);
    QCOMPARE(size_t(items[1].count), secondRun);

    // Room for the first run only: it is walked, the second is counted.
    size_t budget = firstRun + secondRun - 1;
    std::vector<DensityColumn> got;
    densityColumns(row, view, items, got, nullptr, &budget);
    QCOMPARE(budget, secondRun - 1);
    const std::vector<DensityColumn> exact = columns(row, view);
    std::vector<DensityColumn> walked, counted;
    for (const DensityColumn &c : got)
        (c.item == 0 ? walked : counted).push_back(c);
    std::vector<DensityColumn> exactFirst;
    for (const DensityColumn &c : exact) {
        if (c.item == 0)
            exactFirst.push_back(c);
    }
    QCOMPARE(walked, exactFirst);
    QCOMPARE(counted.size(), size_t(70));   // columns 80-149, each drawn
    for (size_t i = 0; i < counted.size(); ++i) {
        QCOMPARE(counted[i].px, int64_t(80 + i));
        QCOMPARE(counted[i].coverage, kNotMeasured);
        QCOMPARE(counted[i].count, uint32_t(2 * kColumn / kCell));
        QCOMPARE(counted[i].kind, 0u);   // the run's first slice: column 80's main kind
    }

    // A budget of zero walks nothing and still counts every start in view.
    budget = 0;
    densityColumns(row, view, items, got, nullptr, &budget);
    size_t starts = 0;
    for (const DensityColumn &c : got)
        starts += c.count;
    QCOMPARE(starts, row.size());
}

QTEST_GUILESS_MAIN(TstDensityQuery)
#include "tst_densityquery.moc"

// The walk of a folded run against a column-by-column count over every slice: random rows of
// slices inside one column, across column edges, over several columns, instants, before and
// after the view, of five kinds, at a few scales.
void TstDensityQuery::exactMatchesBruteForce()
{
    std::mt19937_64 random(42);
    for (int trial = 0; trial < 60; ++trial) {
        TraceBuilder builder;
        const uint32_t plane = builder.addPlane("plane", "host", 1, PlaneKind::Host);
        const uint32_t track = builder.addTrack(plane, "track", 1);
        // The kinds a row holds decide how its kind column is stored: 5 kinds in one byte;
        // the last 100 of 300 in one byte above a base of 200; 1,000 kinds in two bytes; and
        // kinds spread over 70,000 in four bytes, many of them new in each column.
        struct Pool
        {
            uint32_t kinds;
            uint32_t used;   // the row's kinds are the last `used` ones
        };
        const Pool pool = std::array<Pool, 4>{Pool{5, 5}, Pool{300, 100}, Pool{1000, 1000},
                                              Pool{70000, 70000}}[size_t(trial % 4)];
        for (uint32_t k = 0; k < pool.kinds; ++k) {
            EventKind kind;
            kind.name = builder.intern("k" + std::to_string(k));
            builder.addKind(kind);
        }
        auto randomKind = [&] { return pool.kinds - 1 - uint32_t(random() % pool.used); };
        std::vector<Spec> specs;
        TimePs t = TimePs(random() % 50);
        const int n = 200 + int(random() % 2000);
        for (int i = 0; i < n; ++i) {
            const int shape = int(random() % 10);
            const TimePs duration = shape == 0   ? 0
                                    : shape == 1 ? TimePs(200 + random() % 900)
                                                 : TimePs(1 + random() % 40);
            specs.push_back({t, duration, randomKind()});
            t += duration + 1 + TimePs(random() % 30);
            builder.trackBuilder(track).addSlice(specs.back().start, duration, specs.back().kind);
        }
        const auto trace = builder.build();
        const Row &row = trace->tracks[0].rows[0];
        QCOMPARE(row.size(), specs.size());
        const int width = 50 + int(random() % 300);
        const TimePs t0 = TimePs(random() % 500);
        const TimePs t1 = t0 + std::max<TimePs>(width, (t - t0) * TimePs(1 + random() % 4) / 4);
        const Viewport view = Viewport::withWidth(t0, t1, width);
        const VisibleItem all{specs.front().start, specs.back().start + specs.back().duration
                                                       - specs.front().start,
                              0, uint32_t(specs.size()), 0};
        std::vector<DensityColumn> walked;
        densityColumns(row, view, {all}, walked);

        std::vector<DensityColumn> expected;
        for (int64_t px = 0; px < view.widthPx(); ++px) {
            const TimePs a = view.pixelStart(px), b = view.pixelStart(px + 1);
            TimePs busy = 0;
            uint32_t count = 0;
            std::vector<std::pair<uint32_t, TimePs>> byKind; // in the order first seen
            for (const Spec &sl : specs) {
                const TimePs e = sl.start + sl.duration;
                const bool starts = sl.start >= a && sl.start < b;
                const TimePs overlap = std::max<TimePs>(0, std::min(e, b) - std::max(sl.start, a));
                if (!starts && overlap == 0)
                    continue;
                busy += overlap;
                count += starts;
                auto it = std::find_if(byKind.begin(), byKind.end(),
                                       [&](const auto &k) { return k.first == sl.kind; });
                if (it == byKind.end())
                    byKind.push_back({sl.kind, overlap});
                else
                    it->second += overlap;
            }
            if (busy == 0 && count == 0)
                continue;
            std::pair<uint32_t, TimePs> best{0, -1};
            for (const auto &k : byKind)
                if (k.second > best.second)
                    best = k;
            expected.push_back({px, float(std::min(1.0, double(busy) / double(b - a))),
                                best.first, count, 0});
        }
        QCOMPARE(walked.size(), expected.size());
        for (size_t i = 0; i < walked.size(); ++i) {
            QCOMPARE(walked[i].px, expected[i].px);
            QCOMPARE(walked[i].count, expected[i].count);
            QCOMPARE(walked[i].kind, expected[i].kind);
            QVERIFY(std::abs(walked[i].coverage - expected[i].coverage) < 1e-6);
        }
    }
}
