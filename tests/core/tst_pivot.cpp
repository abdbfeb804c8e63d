#include "core/io/traceloader.h"
#include "core/query/pivot.h"
#include "core/query/selectionsummary.h"
#include "support/kinetofixtures.h"

#include <QtTest>

#include <algorithm>
#include <map>
#include <tuple>
#include <set>

using namespace tracedesk::core;

namespace {

constexpr TimePs kUs = 1'000'000;

// Thread 1:  A 0-100 {layer conv1}            A 200-250 {layer conv2}
//              B 10-30 {layer conv1}             C 210-220 {n 3}
//              C 40-60 {n 3}
// Thread 2:  B 0-40
//              C 5-15 {n 4}
// Categories: A and B "alpha", C "beta". Times in microseconds.
const char kNested[] = R"({"traceEvents": [
  {"ph": "X", "cat": "alpha", "name": "A", "pid": 1, "tid": 1, "ts": 0, "dur": 100,
   "args": {"layer": "conv1"}},
  {"ph": "X", "cat": "alpha", "name": "B", "pid": 1, "tid": 1, "ts": 10, "dur": 20,
   "args": {"layer": "conv1"}},
  {"ph": "X", "cat": "beta", "name": "C", "pid": 1, "tid": 1, "ts": 40, "dur": 20,
   "args": {"n": 3}},
  {"ph": "X", "cat": "alpha", "name": "A", "pid": 1, "tid": 1, "ts": 200, "dur": 50,
   "args": {"layer": "conv2"}},
  {"ph": "X", "cat": "beta", "name": "C", "pid": 1, "tid": 1, "ts": 210, "dur": 10,
   "args": {"n": 3}},
  {"ph": "X", "cat": "alpha", "name": "B", "pid": 1, "tid": 2, "ts": 0, "dur": 40},
  {"ph": "X", "cat": "beta", "name": "C", "pid": 1, "tid": 2, "ts": 5, "dur": 10, "args": {"n": 4}}
]})";

PivotKey key(PivotKeyKind kind, std::string arg = {})
{
    return PivotKey{kind, std::move(arg)};
}

// The child of `node` whose label is `label`, or -1.
int childLabelled(const Trace &trace, const PivotResult &r, uint32_t node, const std::string &label)
{
    for (uint32_t c : r.children(node)) {
        if (pivotLabel(trace, r, c) == label)
            return int(c);
    }
    return -1;
}

void checkStats(const PivotStats &s, uint64_t count, TimePs wall, TimePs self, TimePs min,
                TimePs max)
{
    QCOMPARE(s.count, count);
    QCOMPARE(s.wallTotal, wall);
    QCOMPARE(s.selfTotal, self);
    QCOMPARE(s.minDuration, min);
    QCOMPARE(s.maxDuration, max);
}

} // namespace

class TestPivot : public QObject
{
    Q_OBJECT

private slots:
    void nestedCategoryThenName()
    {
        const auto trace = testsupport::loadText(kNested);
        QVERIFY(trace);
        PivotOptions o;
        o.levels = {key(PivotKeyKind::Category), key(PivotKeyKind::Name)};
        auto r = computePivot(*trace, o);
        QVERIFY(r);
        const PivotResult &p = r.value();
        // Worked by hand from the layout above (self = duration minus children).
        checkStats(p.root().stats, 7, 250 * kUs, 190 * kUs, 10 * kUs, 100 * kUs);
        const int alpha = childLabelled(*trace, p, 0, "alpha");
        const int beta = childLabelled(*trace, p, 0, "beta");
        QVERIFY(alpha > 0 && beta > 0);
        QCOMPARE(p.children(0).front(), uint32_t(alpha)); // larger wall first
        checkStats(p.nodes[alpha].stats, 4, 210 * kUs, 150 * kUs, 20 * kUs, 100 * kUs);
        checkStats(p.nodes[beta].stats, 3, 40 * kUs, 40 * kUs, 10 * kUs, 20 * kUs);
        const int a = childLabelled(*trace, p, alpha, "A");
        const int b = childLabelled(*trace, p, alpha, "B");
        QVERIFY(a > 0 && b > 0);
        checkStats(p.nodes[a].stats, 2, 150 * kUs, 100 * kUs, 50 * kUs, 100 * kUs);
        checkStats(p.nodes[b].stats, 2, 60 * kUs, 50 * kUs, 20 * kUs, 40 * kUs);
        QCOMPARE(p.nodes[a].stats.averageDuration(), 75.0 * kUs);
        QCOMPARE(p.children(beta).size(), size_t(1));
        // Every group enumerates exactly its own slices.
        QCOMPARE(p.slices.size(), size_t(7));
        QVERIFY(p.slicesKept());
        for (uint32_t n = 0; n < p.nodes.size(); ++n) {
            const auto refs = p.slicesOf(n);
            QCOMPARE(uint64_t(refs.size()), p.nodes[n].stats.count);
            TimePs wall = 0;
            for (const SliceRef &s : refs)
                wall += trace->duration(s);
            QCOMPARE(wall, p.nodes[n].stats.wallTotal);
        }
        for (const SliceRef &s : p.slicesOf(uint32_t(a)))
            QCOMPARE(trace->name(s), std::string_view("A"));
    }

    void trackLevel()
    {
        const auto trace = testsupport::loadText(kNested);
        QVERIFY(trace);
        PivotOptions o;
        o.levels = {key(PivotKeyKind::Track)};
        auto r = computePivot(*trace, o);
        QVERIFY(r);
        QCOMPARE(r.value().children(0).size(), size_t(2));
        // Thread 1 holds 5 slices (200 us), thread 2 two (50 us).
        const PivotNode &first = r.value().nodes[r.value().children(0)[0]];
        const PivotNode &second = r.value().nodes[r.value().children(0)[1]];
        checkStats(first.stats, 5, 200 * kUs, 150 * kUs, 10 * kUs, 100 * kUs);
        checkStats(second.stats, 2, 50 * kUs, 40 * kUs, 10 * kUs, 40 * kUs);
    }

    void argKeys()
    {
        const auto trace = testsupport::loadText(kNested);
        QVERIFY(trace);
        PivotOptions o;
        o.levels = {key(PivotKeyKind::Arg, "layer")};
        auto r = computePivot(*trace, o);
        QVERIFY(r);
        const PivotResult &p = r.value();
        const int conv1 = childLabelled(*trace, p, 0, "conv1");
        const int conv2 = childLabelled(*trace, p, 0, "conv2");
        const int none = childLabelled(*trace, p, 0, "(no layer)");
        QVERIFY(conv1 > 0 && conv2 > 0 && none > 0);
        checkStats(p.nodes[conv1].stats, 2, 120 * kUs, 80 * kUs, 20 * kUs, 100 * kUs);
        checkStats(p.nodes[conv2].stats, 1, 50 * kUs, 40 * kUs, 50 * kUs, 50 * kUs);
        checkStats(p.nodes[none].stats, 4, 80 * kUs, 70 * kUs, 10 * kUs, 40 * kUs);

        o.levels = {key(PivotKeyKind::Arg, "n"), key(PivotKeyKind::Name)};
        r = computePivot(*trace, o);
        QVERIFY(r);
        const PivotResult &q = r.value();
        const int three = childLabelled(*trace, q, 0, "3");
        const int four = childLabelled(*trace, q, 0, "4");
        QVERIFY(three > 0 && four > 0);
        checkStats(q.nodes[three].stats, 2, 30 * kUs, 30 * kUs, 10 * kUs, 20 * kUs);
        checkStats(q.nodes[four].stats, 1, 10 * kUs, 10 * kUs, 10 * kUs, 10 * kUs);
        QVERIFY(childLabelled(*trace, q, uint32_t(three), "C") > 0);

        // An arg no slice has: one "(no ...)" group holding everything.
        o.levels = {key(PivotKeyKind::Arg, "absent")};
        r = computePivot(*trace, o);
        QVERIFY(r);
        QCOMPARE(r.value().children(0).size(), size_t(1));
        QCOMPARE(pivotLabel(*trace, r.value(), r.value().children(0)[0]),
                 std::string("(no absent)"));
    }

    // A scope past keepSlicesLimit keeps no slices; a walk then finds each group's slices: the
    // same set the kept ranges give (themselves checked against the stats above), earliest
    // first, cut to the limit asked for; in an area, only the area's slices.
    void groupsFoundByWalkWhenNoneKept()
    {
        const auto trace = testsupport::loadText(kNested);
        QVERIFY(trace);
        const AreaSelection thread1{{0}, 0, 100 * kUs};
        const std::vector<std::vector<PivotKey>> levelSets = {
            {key(PivotKeyKind::Category), key(PivotKeyKind::Name)},
            {key(PivotKeyKind::Arg, "layer"), key(PivotKeyKind::Name)},
            {key(PivotKeyKind::Track), key(PivotKeyKind::Arg, "n")},
        };
        for (const auto &levels : levelSets) {
            for (const bool inArea : {false, true}) {
                PivotOptions kept;
                kept.levels = levels;
                if (inArea)
                    kept.area = thread1;
                PivotOptions walked = kept;
                walked.keepSlicesLimit = 0;
                const auto a = computePivot(*trace, kept);
                const auto b = computePivot(*trace, walked);
                QVERIFY(a && b);
                QVERIFY(a.value().slicesKept());
                QVERIFY(!b.value().slicesKept());
                QVERIFY(b.value().slices.empty());
                QCOMPARE(b.value().nodes.size(), a.value().nodes.size());
                const auto byStart = [&](const SliceRef &x, const SliceRef &y) {
                    const TimePs sx = trace->start(x), sy = trace->start(y);
                    return sx != sy ? sx < sy
                                    : std::tie(x.track, x.row, x.index)
                                          < std::tie(y.track, y.row, y.index);
                };
                for (uint32_t n = 0; n < b.value().nodes.size(); ++n) {
                    auto expected = a.value().slicesOf(n);
                    std::sort(expected.begin(), expected.end(), byStart);
                    const auto found = findPivotSlices(*trace, b.value(), n, 1000);
                    QVERIFY(found);
                    QCOMPARE(found.value().size(), size_t(b.value().nodes[n].stats.count));
                    QVERIFY(found.value() == expected);
                    const auto first = findPivotSlices(*trace, b.value(), n, 1);
                    QVERIFY(first);
                    QCOMPARE(first.value().size(), std::min<size_t>(1, expected.size()));
                    if (!expected.empty())
                        QVERIFY(first.value().front() == expected.front());
                }
            }
        }
    }

    void csv()
    {
        const auto trace = testsupport::loadText(kNested);
        QVERIFY(trace);
        PivotOptions o;
        o.levels = {key(PivotKeyKind::Category), key(PivotKeyKind::Name)};
        auto r = computePivot(*trace, o);
        QVERIFY(r);
        const QStringList lines =
            QString::fromStdString(pivotToCsv(*trace, r.value())).split('\n', Qt::SkipEmptyParts);
        // Header, alpha, A, B, beta, C.
        QCOMPARE(lines.size(), 6);
        QCOMPARE(lines[0],
                 QString("category,name,count,total_ps,average_ps,min_ps,max_ps,self_ps"));
        QCOMPARE(lines[1], QString("alpha,,4,210000000,52500000.0,20000000,100000000,150000000"));
        QCOMPARE(lines[2], QString("alpha,A,2,150000000,75000000.0,50000000,100000000,100000000"));
        QCOMPARE(lines[4], QString("beta,,3,40000000,13333333.3,10000000,20000000,40000000"));
    }

    void keyText()
    {
        for (const char *text : {"name", "category", "track", "arg:layer"}) {
            const auto k = parsePivotKey(text);
            QVERIFY(k);
            QCOMPARE(pivotKeyText(*k), std::string(text));
        }
        QVERIFY(!parsePivotKey("arg:"));
        QVERIFY(!parsePivotKey("colour"));
    }

    void cancelled()
    {
        const auto trace = testsupport::loadText(kNested);
        QVERIFY(trace);
        std::atomic<bool> cancel{true};
        PivotOptions o;
        o.levels = {key(PivotKeyKind::Name)};
        o.cancel = &cancel;
        const auto r = computePivot(*trace, o);
        QVERIFY(r.isCancelled());
    }

    // The pivot by name of an area equals the area-selection summary line by line, and the whole
    // trace's counts per name equal the "X" events of that name counted in the raw file.
    void thousandsOfGroups()
    {
        // 3,000 names on two threads: thread 1 runs each name once (1 us), thread 2 runs every
        // third name twice (2 us each). Many more groups than the table starts with.
        std::string json = R"({"traceEvents": [)";
        int ts = 0;
        for (int i = 0; i < 3000; ++i) {
            json += "{\"ph\": \"X\", \"name\": \"op" + std::to_string(i)
                    + "\", \"pid\": 1, \"tid\": 1, \"ts\": " + std::to_string(ts += 2)
                    + ", \"dur\": 1},";
            for (int k = 0; k < (i % 3 == 0 ? 2 : 0); ++k) {
                json += "{\"ph\": \"X\", \"name\": \"op" + std::to_string(i)
                        + "\", \"pid\": 1, \"tid\": 2, \"ts\": " + std::to_string(ts += 3)
                        + ", \"dur\": 2},";
            }
        }
        json.back() = ']';
        json += "}";
        const auto trace = testsupport::loadText(json);
        QVERIFY(trace);
        PivotOptions o;
        o.levels = {key(PivotKeyKind::Track), key(PivotKeyKind::Name)};
        auto r = computePivot(*trace, o);
        QVERIFY(r);
        const PivotResult &p = r.value();
        QCOMPARE(p.children(0).size(), size_t(2));
        QCOMPARE(p.nodes.size(), size_t(1 + 2 + 3000 + 1000));
        for (uint32_t track : p.children(0)) {
            const bool second = p.children(track).size() == 1000;
            QCOMPARE(p.children(track).size(), size_t(second ? 1000 : 3000));
            for (uint32_t leaf : p.children(track)) {
                const std::string label = pivotLabel(*trace, p, leaf);
                QVERIFY(std::stoi(label.substr(2)) % 3 == 0 || !second);
                checkStats(p.nodes[leaf].stats, second ? 2 : 1, (second ? 4 : 1) * kUs,
                           (second ? 4 : 1) * kUs, (second ? 2 : 1) * kUs, (second ? 2 : 1) * kUs);
            }
        }
    }

    void realFixtureMatchesSummaryAndFile()
    {
        const QString path =
            testsupport::realChromeJsonDir() +
            "kineto__resnet50_num_workers_0__worker0.1623143089861.pt.trace.json.gz";
        TRACEDESK_REQUIRE_FIXTURE(path);
        auto loaded = loadTrace(path.toStdString());
        QVERIFY2(loaded, loaded ? "" : loaded.message().c_str());
        const Trace &trace = *loaded.value();

        AreaSelection area;
        for (uint32_t t = 0; t < trace.tracks.size(); ++t)
            area.tracks.push_back(t);
        const TimePs span = trace.end - trace.begin;
        area.t0 = trace.begin + span / 3;
        area.t1 = trace.begin + 2 * span / 3;
        const std::vector<NameSummary> summary = summarizeArea(trace, area);
        QVERIFY(summary.size() > 10);

        PivotOptions o;
        o.levels = {key(PivotKeyKind::Name)};
        o.area = area;
        auto r = computePivot(trace, o);
        QVERIFY(r);
        const PivotResult &p = r.value();
        QCOMPARE(p.children(0).size(), summary.size());
        uint64_t summaryCount = 0;
        for (size_t i = 0; i < summary.size(); ++i) {
            const PivotNode &n = p.nodes[p.children(0)[i]];
            const NameSummary &line = summary[i];
            QCOMPARE(StringId(n.value.bits), line.name);
            QCOMPARE(n.stats.count, line.occurrences);
            QCOMPARE(n.stats.wallTotal, line.wallTotal);
            QCOMPARE(n.stats.selfTotal, line.selfTotal);
            QCOMPARE(n.stats.minDuration, line.minDuration);
            QCOMPARE(n.stats.maxDuration, line.maxDuration);
            summaryCount += line.occurrences;
        }
        QCOMPARE(p.root().stats.count, summaryCount);
        // Each group's slices, given back from their walk positions: every slice of the area
        // once (a set built from the store's rows and the area's bounds), under its own name.
        std::set<std::tuple<uint32_t, uint32_t, uint32_t>> inArea, listed;
        for (uint32_t t : area.tracks) {
            for (uint32_t row = 0; row < trace.tracks[t].rows.size(); ++row) {
                const Row &w = trace.tracks[t].rows[row];
                for (uint32_t i = 0; i < w.size(); ++i) {
                    if (w.start[i] < area.t1 && w.end(i) > area.t0)
                        inArea.insert({t, row, i});
                }
            }
        }
        for (uint32_t child : p.children(0)) {
            for (const SliceRef &s : p.slicesOf(child)) {
                QCOMPARE(trace.kind(s).name, StringId(p.nodes[child].value.bits));
                QVERIFY(listed.insert({s.track, s.row, s.index}).second);
            }
        }
        QCOMPARE(listed.size(), size_t(summaryCount));
        for (const auto &ref : listed)
            QVERIFY(inArea.count(ref));

        // Whole trace against the raw file.
        const QJsonArray events =
            testsupport::readFixtureObject(path).value("traceEvents").toArray();
        std::map<std::string, uint64_t> completeByName;
        std::set<std::string> otherPhases;
        for (const QJsonValue &v : events) {
            const QJsonObject e = v.toObject();
            const std::string name = e.value("name").toString().toStdString();
            if (e.value("ph").toString() == "X")
                ++completeByName[name];
            else
                otherPhases.insert(name);
        }
        PivotOptions whole;
        whole.levels = {key(PivotKeyKind::Name)};
        auto all = computePivot(trace, whole);
        QVERIFY(all);
        std::map<std::string, uint64_t> pivotByName;
        for (uint32_t c : all.value().children(0))
            pivotByName[pivotLabel(trace, all.value(), c)] = all.value().nodes[c].stats.count;
        int compared = 0;
        for (const auto &[name, count] : completeByName) {
            if (otherPhases.count(name) || name.empty())
                continue;
            QCOMPARE(pivotByName[name], count);
            ++compared;
        }
        QVERIFY(compared > 20);
        QCOMPARE(all.value().root().stats.count, trace.sliceCount());
    }
};

QTEST_GUILESS_MAIN(TestPivot)
#include "tst_pivot.moc"
