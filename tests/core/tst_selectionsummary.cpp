#include "core/model/tracebuilder.h"
#include "core/query/selectionsummary.h"

#include <QtTest>

using namespace tracedesk::core;

namespace {

// Track 0:  row 0  step 0-100                      step 200-250
//           row 1    a 10-20   b 30-60               a 210-215
//           row 2                c 35-40
// Track 1:  row 0  a' 0-50   p 300-400        (a' is another kind also named "a")
//           row 1                q 350-450    (overlaps p without nesting: 50 ps inside it)
struct Fixture
{
    std::shared_ptr<Trace> trace;
    StringId step, a, b, c, p, q;
};

Fixture makeFixture()
{
    TraceBuilder builder;
    const uint32_t plane = builder.addPlane("host", "host", 1, PlaneKind::Host);
    const uint32_t t0 = builder.addTrack(plane, "main", 1);
    const uint32_t t1 = builder.addTrack(plane, "worker", 2);
    auto kind = [&](const char *name) {
        EventKind k;
        k.name = builder.intern(name);
        return builder.addKind(k);
    };
    const uint32_t step = kind("step"), a = kind("a"), b = kind("b"), c = kind("c");
    const uint32_t a2 = kind("a"), p = kind("p"), q = kind("q");
    TrackBuilder &m = builder.trackBuilder(t0);
    m.addSlice(0, 100, step);
    m.addSlice(10, 10, a);
    m.addSlice(30, 30, b);
    m.addSlice(35, 5, c);
    m.addSlice(200, 50, step);
    m.addSlice(210, 5, a);
    TrackBuilder &w = builder.trackBuilder(t1);
    w.addSlice(0, 50, a2);
    w.addSlice(300, 100, p);
    w.addSlice(350, 100, q);
    Fixture f;
    f.trace = builder.build();
    const Trace &tr = *f.trace;
    f.step = tr.kinds[step].name;
    f.a = tr.kinds[a].name;
    f.b = tr.kinds[b].name;
    f.c = tr.kinds[c].name;
    f.p = tr.kinds[p].name;
    f.q = tr.kinds[q].name;
    return f;
}

const NameSummary *lineFor(const std::vector<NameSummary> &lines, StringId name)
{
    for (const NameSummary &line : lines) {
        if (line.name == name)
            return &line;
    }
    return nullptr;
}

void checkLine(const std::vector<NameSummary> &lines, StringId name, uint64_t occurrences,
               TimePs wall, TimePs self, TimePs min, TimePs max)
{
    const NameSummary *line = lineFor(lines, name);
    QVERIFY(line);
    QCOMPARE(line->occurrences, occurrences);
    QCOMPARE(line->wallTotal, wall);
    QCOMPARE(line->selfTotal, self);
    QCOMPARE(line->minDuration, min);
    QCOMPARE(line->maxDuration, max);
    QCOMPARE(line->averageDuration(), double(wall) / double(occurrences));
}

} // namespace

class TestSelectionSummary : public QObject
{
    Q_OBJECT

private slots:
    void fixtureRows();
    void selfTimeOfNest();
    void areaSummary();
    void areaWindowEdges();
    void sharedNamesMergeAcrossKinds();
    void sliceListSummary();
    void neighbours();
};

void TestSelectionSummary::fixtureRows()
{
    const Fixture f = makeFixture();
    QCOMPARE(f.trace->tracks[0].rows.size(), size_t(3));
    QCOMPARE(f.trace->tracks[0].rows[1].size(), size_t(3));
    QCOMPARE(f.trace->tracks[1].rows.size(), size_t(2));
}

void TestSelectionSummary::selfTimeOfNest()
{
    const Fixture f = makeFixture();
    const Trace &t = *f.trace;
    QCOMPARE(selfTime(t, {0, 0, 0}), 60);   // 100 - (20 - 10) - (60 - 30)
    QCOMPARE(selfTime(t, {0, 1, 0}), 10);   // a: no children
    QCOMPARE(selfTime(t, {0, 1, 1}), 25);   // b: 30 - c's 5
    QCOMPARE(selfTime(t, {0, 2, 0}), 5);    // c: last row
    QCOMPARE(selfTime(t, {0, 0, 1}), 45);   // step 200-250 minus a 210-215
    QCOMPARE(selfTime(t, {1, 0, 1}), 50);   // p: only q's 350-400 is inside
    QCOMPARE(selfTime(t, {1, 1, 0}), 100);
    QCOMPARE(selfTime(t, {1, 0, 0}), 50);
    QCOMPARE(selfTime(t, {9, 0, 0}), 0);    // invalid
    QCOMPARE(selfTime(t, {0, 0, 7}), 0);
}

void TestSelectionSummary::areaSummary()
{
    const Fixture f = makeFixture();
    const auto lines = summarizeArea(*f.trace, {{0}, 0, 300});
    QCOMPARE(lines.size(), size_t(4));
    checkLine(lines, f.step, 2, 150, 105, 50, 100);
    checkLine(lines, f.a, 2, 15, 15, 5, 10);
    checkLine(lines, f.b, 1, 30, 25, 30, 30);
    checkLine(lines, f.c, 1, 5, 5, 5, 5);
    QCOMPARE(lineFor(lines, f.step)->averageDuration(), 75.0);
    QCOMPARE(lineFor(lines, f.step)->averageSelf(), 52.5);
    // Ordered by wall total, largest first.
    QCOMPARE(lines[0].name, f.step);
    QCOMPARE(lines[1].name, f.b);
    QCOMPARE(lines[2].name, f.a);
    QCOMPARE(lines[3].name, f.c);
}

void TestSelectionSummary::areaWindowEdges()
{
    const Fixture f = makeFixture();
    // step 0-100 ends at t0 (out); a 210-215 starts at t1 (out); step 200-250 is in.
    const auto lines = summarizeArea(*f.trace, {{0}, 100, 210});
    QCOMPARE(lines.size(), size_t(1));
    checkLine(lines, f.step, 1, 50, 45, 50, 50);
    // A window cutting a slice counts the whole slice.
    const auto cut = summarizeArea(*f.trace, {{0}, 50, 51});
    QCOMPARE(cut.size(), size_t(2));
    checkLine(cut, f.step, 1, 100, 60, 100, 100);
    checkLine(cut, f.b, 1, 30, 25, 30, 30);
    // Duplicated and unknown tracks, empty windows.
    QCOMPARE(summarizeArea(*f.trace, {{0, 0, 42}, 100, 210}).size(), size_t(1));
    QVERIFY(summarizeArea(*f.trace, {{0, 1}, 500, 600}).empty());
    QVERIFY(summarizeArea(*f.trace, {{0, 1}, 50, 50}).empty());
    QVERIFY(summarizeArea(*f.trace, {{}, 0, 1000}).empty());
}

void TestSelectionSummary::sharedNamesMergeAcrossKinds()
{
    const Fixture f = makeFixture();
    const auto lines = summarizeArea(*f.trace, {{0, 1}, 0, 1000});
    QCOMPARE(lines.size(), size_t(6));   // step, a, b, c, p, q
    checkLine(lines, f.a, 3, 65, 65, 5, 50);
    checkLine(lines, f.p, 1, 100, 50, 100, 100);
    checkLine(lines, f.q, 1, 100, 100, 100, 100);
    checkLine(lines, f.step, 2, 150, 105, 50, 100);
}

void TestSelectionSummary::sliceListSummary()
{
    const Fixture f = makeFixture();
    const std::vector<SliceRef> refs{{0, 0, 0}, {0, 1, 0}, {0, 1, 2}, {5, 0, 0}, {0, 0, 0}};
    const auto lines = summarizeSlices(*f.trace, refs);
    QCOMPARE(lines.size(), size_t(2));
    checkLine(lines, f.step, 2, 200, 120, 100, 100);   // listed twice, counted twice
    checkLine(lines, f.a, 2, 15, 15, 5, 10);
    QVERIFY(summarizeSlices(*f.trace, {}).empty());
}

void TestSelectionSummary::neighbours()
{
    const Fixture f = makeFixture();
    const Trace &t = *f.trace;
    QCOMPARE(neighbourSlice(t, {0, 0, 0}, Direction::Next), std::optional<SliceRef>({0, 0, 1}));
    QCOMPARE(neighbourSlice(t, {0, 0, 0}, Direction::Previous), std::nullopt);
    QCOMPARE(neighbourSlice(t, {0, 0, 1}, Direction::Next), std::nullopt);
    QCOMPARE(neighbourSlice(t, {0, 1, 1}, Direction::Previous), std::optional<SliceRef>({0, 1, 0}));
    QCOMPARE(neighbourSlice(t, {0, 1, 1}, Direction::Next), std::optional<SliceRef>({0, 1, 2}));
    QCOMPARE(t.start(*neighbourSlice(t, {0, 1, 1}, Direction::Next)), 210);
    QCOMPARE(neighbourSlice(t, {0, 2, 0}, Direction::Next), std::nullopt);
    QCOMPARE(neighbourSlice(t, {3, 0, 0}, Direction::Next), std::nullopt);
}

QTEST_GUILESS_MAIN(TestSelectionSummary)
#include "tst_selectionsummary.moc"
