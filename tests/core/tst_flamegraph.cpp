#include "core/query/flamegraph.h"
#include "core/io/chromejsonreader.h"
#include "support/kinetofixtures.h"
#include "support/pythonstacktrace.h"

#include <QJsonArray>
#include <QJsonObject>

#include <QtTest>

#include <algorithm>
#include <cmath>
#include <map>

using namespace tracedesk::core;

namespace {

constexpr TimePs kUs = 1'000'000;

// Thread 1:  main 0-100                         main 200-260
//              f 10-50           g 60-90          f 210-230
//                h 20-30  h 35-45                 g 240-250
// Thread 2:  f 0-40                              h 100-105
//              h 10-20
// Times in microseconds.
const char kNesting[] = R"({"traceEvents": [
  {"ph": "X", "cat": "c", "name": "main", "pid": 1, "tid": 1, "ts": 0, "dur": 100},
  {"ph": "X", "cat": "c", "name": "f", "pid": 1, "tid": 1, "ts": 10, "dur": 40},
  {"ph": "X", "cat": "c", "name": "h", "pid": 1, "tid": 1, "ts": 20, "dur": 10},
  {"ph": "X", "cat": "c", "name": "h", "pid": 1, "tid": 1, "ts": 35, "dur": 10},
  {"ph": "X", "cat": "c", "name": "g", "pid": 1, "tid": 1, "ts": 60, "dur": 30},
  {"ph": "X", "cat": "c", "name": "main", "pid": 1, "tid": 1, "ts": 200, "dur": 60},
  {"ph": "X", "cat": "c", "name": "f", "pid": 1, "tid": 1, "ts": 210, "dur": 20},
  {"ph": "X", "cat": "c", "name": "g", "pid": 1, "tid": 1, "ts": 240, "dur": 10},
  {"ph": "X", "cat": "c", "name": "f", "pid": 1, "tid": 2, "ts": 0, "dur": 40},
  {"ph": "X", "cat": "c", "name": "h", "pid": 1, "tid": 2, "ts": 10, "dur": 10},
  {"ph": "X", "cat": "c", "name": "h", "pid": 1, "tid": 2, "ts": 100, "dur": 5}
]})";

// The same program after a change: g got slower (30 -> 50 under the first main) and the h
// inside f on thread 2 is gone.
const char kNestingAfter[] = R"({"traceEvents": [
  {"ph": "X", "cat": "c", "name": "main", "pid": 1, "tid": 1, "ts": 0, "dur": 120},
  {"ph": "X", "cat": "c", "name": "f", "pid": 1, "tid": 1, "ts": 10, "dur": 40},
  {"ph": "X", "cat": "c", "name": "h", "pid": 1, "tid": 1, "ts": 20, "dur": 10},
  {"ph": "X", "cat": "c", "name": "h", "pid": 1, "tid": 1, "ts": 35, "dur": 10},
  {"ph": "X", "cat": "c", "name": "g", "pid": 1, "tid": 1, "ts": 60, "dur": 50},
  {"ph": "X", "cat": "c", "name": "main", "pid": 1, "tid": 1, "ts": 200, "dur": 60},
  {"ph": "X", "cat": "c", "name": "f", "pid": 1, "tid": 1, "ts": 210, "dur": 20},
  {"ph": "X", "cat": "c", "name": "g", "pid": 1, "tid": 1, "ts": 240, "dur": 10},
  {"ph": "X", "cat": "c", "name": "f", "pid": 1, "tid": 2, "ts": 0, "dur": 40},
  {"ph": "X", "cat": "c", "name": "h", "pid": 1, "tid": 2, "ts": 100, "dur": 5}
]})";

// The node at `path` (names from the top frame), or -1.
int nodeAt(const FlameGraph &g, std::vector<std::string> path)
{
    uint32_t at = 0;
    for (const std::string &name : path) {
        bool found = false;
        for (uint32_t c : g.children(at)) {
            if (g.nameOf(c) == name) {
                at = c;
                found = true;
                break;
            }
        }
        if (!found)
            return -1;
    }
    return int(at);
}

int diffNodeAt(const FlameDiff &d, std::vector<std::string> path)
{
    uint32_t at = 0;
    for (const std::string &name : path) {
        bool found = false;
        for (uint32_t c : d.nodes[at].children) {
            if (d.names[d.nodes[c].name] == name) {
                at = c;
                found = true;
                break;
            }
        }
        if (!found)
            return -1;
    }
    return int(at);
}

void checkNode(const FlameGraph &g, std::vector<std::string> path, TimePs wall, TimePs self,
               uint64_t count)
{
    const int n = nodeAt(g, path);
    QVERIFY2(n > 0, path.back().c_str());
    QCOMPARE(g.nodes[n].wall, wall);
    QCOMPARE(g.nodes[n].self, self);
    QCOMPARE(g.nodes[n].count, count);
    QCOMPARE(g.stack(uint32_t(n)), path);
}

std::shared_ptr<Trace> load(const char *json)
{
    return testsupport::loadText(json);
}

} // namespace

class TestFlameGraph : public QObject
{
    Q_OBJECT

private slots:
    void instructionTextsShareTheirOpsFrame()
    {
        // Each thread runs its op once under `step`; the ops are named by HLO instruction text
        // (the frame is the op's name) or by the name alone. fusion.3 is also a name of its own
        // in the trace; copy.1 exists only inside instruction texts.
        const auto trace = load(R"json({"traceEvents": [
  {"ph": "X", "name": "step", "pid": 1, "tid": 1, "ts": 0, "dur": 100},
  {"ph": "X", "name": "%fusion.3 = f32[8]{0} fusion(%p), kind=kLoop", "pid": 1, "tid": 1,
   "ts": 10, "dur": 20},
  {"ph": "X", "name": "%copy.1 = f32[8]{0} copy(%a)", "pid": 1, "tid": 1, "ts": 40, "dur": 5},
  {"ph": "X", "name": "step", "pid": 1, "tid": 2, "ts": 0, "dur": 100},
  {"ph": "X", "name": "fusion.3", "pid": 1, "tid": 2, "ts": 10, "dur": 30},
  {"ph": "X", "name": "ROOT %copy.1 = f32[8]{0} copy(%b)", "pid": 1, "tid": 2, "ts": 50,
   "dur": 7}
]})json");
        QVERIFY(trace);
        auto r = buildFlameGraph(*trace, FlameScope{});
        QVERIFY(r);
        const FlameGraph &g = r.value();
        QCOMPARE(g.children(0).size(), size_t(1));
        checkNode(g, {"step"}, 200 * kUs, (200 - 50 - 12) * kUs, 2);
        checkNode(g, {"step", "fusion.3"}, 50 * kUs, 50 * kUs, 2);
        checkNode(g, {"step", "copy.1"}, 12 * kUs, 12 * kUs, 2);
        QCOMPARE(g.children(uint32_t(nodeAt(g, {"step"}))).size(), size_t(2));
        QCOMPARE(g.names.size(), size_t(4)); // "", step, fusion.3, copy.1
    }

    void wholeTraceWidths()
    {
        const auto trace = load(kNesting);
        QVERIFY(trace);
        auto r = buildFlameGraph(*trace, FlameScope{});
        QVERIFY(r);
        const FlameGraph &g = r.value();
        // Top frames: main (thread 1), f and h (thread 2); all time of both threads.
        QCOMPARE(g.root().wall, (100 + 60 + 40 + 5) * kUs);
        QCOMPARE(g.children(0).size(), size_t(3));
        checkNode(g, {"main"}, 160 * kUs, (100 - 40 - 30 + 60 - 20 - 10) * kUs, 2);
        checkNode(g, {"main", "f"}, 60 * kUs, (40 - 20 + 20) * kUs, 2);
        checkNode(g, {"main", "f", "h"}, 20 * kUs, 20 * kUs, 2);
        checkNode(g, {"main", "g"}, 40 * kUs, 40 * kUs, 2);
        checkNode(g, {"f"}, 40 * kUs, 30 * kUs, 1);
        checkNode(g, {"f", "h"}, 10 * kUs, 10 * kUs, 1);
        checkNode(g, {"h"}, 5 * kUs, 5 * kUs, 1);
        // Children in name order.
        QCOMPARE(g.nameOf(g.children(0)[0]), std::string_view("f"));
        QCOMPARE(g.nameOf(g.children(0)[1]), std::string_view("h"));
        QCOMPARE(g.nameOf(g.children(0)[2]), std::string_view("main"));
        // Search: every node named h.
        QCOMPARE(g.find("H").size(), size_t(3));
        QCOMPARE(g.find("").size(), size_t(0));
    }

    void selfTimeIsInverted()
    {
        const auto trace = load(kNesting);
        QVERIFY(trace);
        auto r = buildFlameGraph(*trace, FlameScope{});
        QVERIFY(r);
        const FlameGraph inv = invertFlameGraph(r.value());
        QVERIFY(inv.inverted);
        // Total self time equals total wall of the top frames (everything is nested).
        QCOMPARE(inv.root().self, 205 * kUs);
        // h: 20 under main>f, 10 under f, 5 on its own.
        const int h = nodeAt(inv, {"h"});
        QVERIFY(h > 0);
        QCOMPARE(inv.width(uint32_t(h)), 35 * kUs);
        QCOMPARE(inv.nodes[h].self, 35 * kUs);
        QCOMPARE(inv.width(uint32_t(nodeAt(inv, {"h", "f"}))), 30 * kUs);
        QCOMPARE(inv.width(uint32_t(nodeAt(inv, {"h", "f", "main"}))), 20 * kUs);
        QCOMPARE(inv.width(uint32_t(nodeAt(inv, {"g"}))), 40 * kUs);
        QCOMPARE(inv.width(uint32_t(nodeAt(inv, {"main"}))), 60 * kUs);
        // f: 40 under main, 30 on thread 2.
        QCOMPARE(inv.width(uint32_t(nodeAt(inv, {"f"}))), 70 * kUs);
        QCOMPARE(inv.width(uint32_t(nodeAt(inv, {"f", "main"}))), 40 * kUs);
    }

    void scopes()
    {
        const auto trace = load(kNesting);
        QVERIFY(trace);
        // Every instance of f with what runs inside it.
        StringId f = 0;
        QVERIFY(trace->strings.find("f", &f));
        FlameScope byName;
        byName.rootName = f;
        auto r = buildFlameGraph(*trace, byName);
        QVERIFY(r);
        QCOMPARE(r.value().children(0).size(), size_t(1));
        checkNode(r.value(), {"f"}, 100 * kUs, 70 * kUs, 3);
        checkNode(r.value(), {"f", "h"}, 30 * kUs, 30 * kUs, 3);
        QCOMPARE(r.value().root().wall, 100 * kUs);

        // A window 45-95 us: slices count for their part inside it. main 45-95 holds the end of
        // f (45-50, with the end of an h: 45-45 is empty) and g 60-90.
        FlameScope window;
        window.t0 = 45 * kUs;
        window.t1 = 95 * kUs;
        r = buildFlameGraph(*trace, window);
        QVERIFY(r);
        checkNode(r.value(), {"main"}, 50 * kUs, 15 * kUs, 1);
        checkNode(r.value(), {"main", "g"}, 30 * kUs, 30 * kUs, 1);
        checkNode(r.value(), {"main", "f"}, 5 * kUs, 5 * kUs, 1);
        QCOMPARE(nodeAt(r.value(), {"main", "f", "h"}), -1);
        QCOMPARE(r.value().root().wall, 50 * kUs);
    }

    void callersAndCallees()
    {
        const auto trace = load(kNesting);
        QVERIFY(trace);
        auto r = buildFlameGraph(*trace, FlameScope{});
        QVERIFY(r);
        const FrameCalls calls = frameCalls(r.value(), "f");
        QCOMPARE(calls.wall, 100 * kUs);
        QCOMPARE(calls.self, 70 * kUs);
        QCOMPARE(calls.count, uint64_t(3));
        QCOMPARE(calls.callers.size(), size_t(2));
        QCOMPARE(calls.callers[0].name, std::string("main"));
        QCOMPARE(calls.callers[0].wall, 60 * kUs);
        QCOMPARE(calls.callers[1].name, std::string()); // a top frame
        QCOMPARE(calls.callers[1].wall, 40 * kUs);
        QCOMPARE(calls.callees.size(), size_t(1));
        QCOMPARE(calls.callees[0].name, std::string("h"));
        QCOMPARE(calls.callees[0].wall, 30 * kUs);
        QCOMPARE(calls.callees[0].count, uint64_t(3));
        QVERIFY(frameCalls(r.value(), "nothing").callers.empty());
    }

    void differential()
    {
        const auto before = load(kNesting);
        const auto after = load(kNestingAfter);
        QVERIFY(before && after);
        auto a = buildFlameGraph(*before, FlameScope{});
        auto b = buildFlameGraph(*after, FlameScope{});
        QVERIFY(a && b);
        const FlameDiff d = diffFlameGraphs(a.value(), b.value());
        QCOMPARE(d.nodes[0].wallA, 205 * kUs);
        QCOMPARE(d.nodes[0].wallB, 225 * kUs);
        const int g = diffNodeAt(d, {"main", "g"});
        QVERIFY(g > 0);
        QCOMPARE(d.nodes[g].wallA, 40 * kUs);
        QCOMPARE(d.nodes[g].wallB, 60 * kUs);
        QCOMPARE(d.nodes[g].delta(), 20 * kUs);
        QCOMPARE(d.width(uint32_t(g)), 100 * kUs);
        const int main = diffNodeAt(d, {"main"});
        QCOMPARE(d.nodes[main].delta(), 20 * kUs);
        // Gone in B: still in the graph, with B's side 0.
        const int gone = diffNodeAt(d, {"f", "h"});
        QVERIFY(gone > 0);
        QCOMPARE(d.nodes[gone].wallA, 10 * kUs);
        QCOMPARE(d.nodes[gone].wallB, TimePs(0));
        QCOMPARE(d.nodes[gone].delta(), -10 * kUs);
        const int same = diffNodeAt(d, {"main", "f", "h"});
        QCOMPARE(d.nodes[same].delta(), TimePs(0));
        // Children always fit their parent.
        for (uint32_t n = 0; n < d.nodes.size(); ++n) {
            TimePs sum = 0;
            for (uint32_t c : d.nodes[n].children)
                sum += d.width(c);
            QVERIFY(sum <= d.width(n));
        }
    }

    // Two runs number their steps differently (1009, 1010 in A; 7 in B): folded, each side's
    // steps are one `ProfilerStep#*` frame whose wall is the sum of its steps, so they meet.
    void differentialFoldsNumberedSteps()
    {
        const auto before = load("{\"traceEvents\": ["
            "{\"ph\": \"X\", \"name\": \"ProfilerStep#1009\", \"pid\": 1, \"tid\": 1, \"ts\": 0, \"dur\": 100},"
            "{\"ph\": \"X\", \"name\": \"aten::mm\", \"pid\": 1, \"tid\": 1, \"ts\": 10, \"dur\": 30},"
            "{\"ph\": \"X\", \"name\": \"ProfilerStep#1010\", \"pid\": 1, \"tid\": 1, \"ts\": 100, \"dur\": 50},"
            "{\"ph\": \"X\", \"name\": \"aten::mm\", \"pid\": 1, \"tid\": 1, \"ts\": 110, \"dur\": 20},"
            "{\"ph\": \"X\", \"name\": \"#tag\", \"pid\": 1, \"tid\": 1, \"ts\": 200, \"dur\": 5}]}");
        const auto after = load("{\"traceEvents\": ["
            "{\"ph\": \"X\", \"name\": \"ProfilerStep#7\", \"pid\": 1, \"tid\": 1, \"ts\": 0, \"dur\": 90},"
            "{\"ph\": \"X\", \"name\": \"aten::mm\", \"pid\": 1, \"tid\": 1, \"ts\": 10, \"dur\": 70}]}");
        QVERIFY(before && after);
        FlameScope scope;
        scope.foldNumbered = true;
        auto a = buildFlameGraph(*before, scope);
        auto b = buildFlameGraph(*after, scope);
        QVERIFY(a && b);
        const FlameDiff d = diffFlameGraphs(a.value(), b.value());
        const int step = diffNodeAt(d, {"ProfilerStep#*"});
        QVERIFY(step > 0);
        QCOMPARE(d.nodes[step].wallA, 150 * kUs);
        QCOMPARE(d.nodes[step].wallB, 90 * kUs);
        const int mm = diffNodeAt(d, {"ProfilerStep#*", "aten::mm"});
        QVERIFY(mm > 0);
        QCOMPARE(d.nodes[mm].wallA, 50 * kUs);
        QCOMPARE(d.nodes[mm].wallB, 70 * kUs);
        QVERIFY(diffNodeAt(d, {"#tag"}) > 0); // no digits after '#': kept as it is
        QVERIFY(diffNodeAt(d, {"ProfilerStep#1009"}) < 0);
        // Unfolded, the steps stay apart.
        auto plain = buildFlameGraph(*before, FlameScope{});
        QVERIFY(nodeAt(plain.value(), {"ProfilerStep#1010", "aten::mm"}) > 0);
    }

    // A slice that sticks out of the one above it (A 0-100, B 50-150 overlapping A's end, C
    // 60-140 inside B): B counts 50-100, and C only the part inside that, 60-100. Clipping C to
    // B's whole span gave C 80 us in a 50 us frame and B a negative self time.
    void childrenFitAClippedCaller()
    {
        auto trace = load(R"({"traceEvents": [
          {"ph": "X", "cat": "c", "name": "A", "pid": 1, "tid": 1, "ts": 0, "dur": 100},
          {"ph": "X", "cat": "c", "name": "B", "pid": 1, "tid": 1, "ts": 50, "dur": 100},
          {"ph": "X", "cat": "c", "name": "C", "pid": 1, "tid": 1, "ts": 60, "dur": 80}
        ]})");
        QVERIFY(trace);
        QCOMPARE(trace->tracks.front().rows.size(), size_t(3));   // B placed below A, C below B
        auto g = buildFlameGraph(*trace, {});
        QVERIFY(g.ok());
        checkNode(g.value(), {"A"}, 100 * kUs, 50 * kUs, 1);
        checkNode(g.value(), {"A", "B"}, 50 * kUs, 10 * kUs, 1);
        checkNode(g.value(), {"A", "B", "C"}, 40 * kUs, 40 * kUs, 1);
        for (const FlameNode &n : g.value().nodes)
            QVERIFY(n.self >= 0);
        const FrameCalls b = frameCalls(g.value(), "B");
        QCOMPARE(b.self, 10 * kUs);
        QCOMPARE(b.wall, 50 * kUs);
    }

    // A Python-stack trace's record_function range R starts inside the short __enter__ frame
    // E on the row above and outlives it: main 0-100, E 10-20, R 15-90, K 30-60 under R. R's
    // caller is main, the frame that holds all of it; it counts after its earlier sibling E
    // (20-90), and K keeps its 30 us. Taking E, the slice on the row just above holding R's
    // start, clipped R to 5 us and K to 0.
    void rangeStartingInsideAShortFrame()
    {
        auto trace = load(testsupport::kRangeInsideShortFrame);
        QVERIFY(trace);
        QCOMPARE(trace->tracks.front().rows.size(), size_t(4)); // R placed below E, K below R
        auto g = buildFlameGraph(*trace, {});
        QVERIFY(g.ok());
        checkNode(g.value(), {"main"}, 100 * kUs, (100 - 10 - 70) * kUs, 1);
        checkNode(g.value(), {"main", "E"}, 10 * kUs, 10 * kUs, 1);
        checkNode(g.value(), {"main", "R"}, 70 * kUs, 40 * kUs, 1);
        checkNode(g.value(), {"main", "R", "K"}, 30 * kUs, 30 * kUs, 1);
        QCOMPARE(nodeAt(g.value(), {"main", "E", "R"}), -1);

        // Only R's instances: main and E are outside the graph, R is a top frame whole.
        StringId r = 0;
        QVERIFY(trace->strings.find("R", &r));
        FlameScope byName;
        byName.rootName = r;
        g = buildFlameGraph(*trace, byName);
        QVERIFY(g.ok());
        checkNode(g.value(), {"R"}, 75 * kUs, 45 * kUs, 1);
        checkNode(g.value(), {"R", "K"}, 30 * kUs, 30 * kUs, 1);
    }

    // The SGLang prefill+decode trace (2025-26, Python stacks): its step[...] ranges start
    // inside record_function's Python frames. Checked against the raw file: the frames whose
    // name holds "gemm", counted once where nested, cover exactly the union of those slices'
    // spans on their thread, and the step frames keep nearly all of their raw duration (they
    // lose only the microseconds before the __enter__ frames end).
    void pythonStackTraceKeepsItsTime()
    {
        const QString path = QString(TRACEDESK_SHARED_FIXTURES) +
            "/chrome_json/"
            "tracelens__inference_sglang_prefilldecode__sglang_Qwen3-8B_prefilldecode.json.gz";
        TRACEDESK_REQUIRE_FIXTURE(path);
        std::map<std::pair<qint64, qint64>, std::vector<std::pair<double, double>>> gemm;
        double stepUs = 0;
        for (const QJsonValue &v :
             testsupport::readFixtureObject(path).value("traceEvents").toArray()) {
            const QJsonObject ev = v.toObject();
            if (ev.value("ph").toString() != "X")
                continue;
            const QString name = ev.value("name").toString();
            const double ts = ev.value("ts").toDouble(), dur = ev.value("dur").toDouble();
            if (name.contains("gemm", Qt::CaseInsensitive)) {
                gemm[{ev.value("pid").toInteger(), ev.value("tid").toInteger()}].push_back(
                    {ts, ts + dur});
            }
            if (name.startsWith("step["))
                stepUs += dur;
        }
        double unionUs = 0;
        for (auto &[thread, spans] : gemm) {
            std::sort(spans.begin(), spans.end());
            double from = spans.front().first, to = spans.front().second;
            for (const auto &[s, e] : spans) {
                if (s > to) {
                    unionUs += to - from;
                    from = s;
                }
                to = std::max(to, e);
            }
            unionUs += to - from;
        }
        QVERIFY(unionUs > 1000 && stepUs > 1000);

        auto trace = readChromeJson(path.toStdString(), nullptr, LoadOptions{});
        QVERIFY(trace);
        auto g = buildFlameGraph(*trace.value(), {});
        QVERIFY(g.ok());
        const FlameGraph &graph = g.value();
        TimePs gemmWall = 0, stepWall = 0;
        std::vector<uint8_t> underMatch(graph.nodes.size(), 0);
        for (uint32_t n = 1; n < graph.nodes.size(); ++n) {
            const FlameNode &node = graph.nodes[n];
            const bool match = graph.nameOf(n).find("gemm") != std::string_view::npos;
            if (match && !underMatch[node.parent])
                gemmWall += node.wall;
            underMatch[n] = underMatch[node.parent] || match;
            if (graph.nameOf(n).substr(0, 5) == "step[")
                stepWall += node.wall;
        }
        // Within 0.01 us: the raw times are read here as doubles, the store's are exact.
        QVERIFY2(std::abs(double(gemmWall) / 1e6 - unionUs) < 0.01,
                 qPrintable(QString("%1 against %2 us").arg(double(gemmWall) / 1e6).arg(unionUs)));
        QVERIFY2(double(stepWall) / 1e6 > 0.99 * stepUs && double(stepWall) / 1e6 <= stepUs,
                 qPrintable(QString("%1 of %2 us").arg(double(stepWall) / 1e6).arg(stepUs)));
        for (const FlameNode &n : graph.nodes)
            QVERIFY(n.self >= 0);
    }

    // 1,500 spans of 1,000 us, one starting every microsecond on one thread: each overlaps the
    // next 999 without nesting, and the layout stacks them on 1,500 rows. By the rule each goes
    // under the latest span holding its start and is clipped to it, so span i (i < 1000) counts
    // i to 1000 us, one frame deeper than span i - 1, and the later ones count nothing; the
    // chain runs far deeper than the 256 rows a caller is looked for in.
    void staggeredSpansChain()
    {
        std::string json = R"({"traceEvents": [)";
        for (int i = 0; i < 1500; ++i) {
            json += (i ? ",\n" : "") + std::string(R"({"ph": "X", "name": "s", "pid": 1, )")
                    + R"("tid": 1, "ts": )" + std::to_string(i) + R"(, "dur": 1000})";
        }
        json += "]}";
        auto trace = load(json.c_str());
        QVERIFY(trace);
        QCOMPARE(trace->tracks.front().rows.size(), size_t(1500));
        auto g = buildFlameGraph(*trace, {});
        QVERIFY(g.ok());
        QCOMPARE(g.value().root().wall, 1000 * kUs);
        QCOMPARE(g.value().nodes.size(), size_t(1501));
        for (uint32_t n = 1; n < g.value().nodes.size(); ++n) {
            const FlameNode &node = g.value().nodes[n];
            const TimePs wall = node.depth <= 1000 ? TimePs(1001 - node.depth) * kUs : 0;
            QCOMPARE(node.wall, wall);
            QVERIFY(node.self >= 0);
            QCOMPARE(node.count, uint64_t(1));
        }
    }

    void cancelled()
    {
        const auto trace = load(kNesting);
        QVERIFY(trace);
        std::atomic<bool> cancel{true};
        QVERIFY(buildFlameGraph(*trace, FlameScope{}, &cancel).isCancelled());
    }
};

QTEST_GUILESS_MAIN(TestFlameGraph)
#include "tst_flamegraph.moc"
