// SQL over the store (core/sql): a hand-written trace pins every column (nesting, self time,
// parent, args, counters, flows); a real Kineto fixture is checked against counts and sums
// taken from its raw JSON and against a walk over the store; time-window queries are compared
// with a brute-force scan; grouped aggregates split over threads give one run's rows; bad SQL
// gives SQLite's message; random SQL never crashes.

#include "core/analysis/pytorch/kernelview.h"
#include "core/analysis/pytorch/operatorstats.h"
#include "core/analysis/pytorch/pytorchsteps.h"
#include "core/generate/generator.h"
#include "core/io/traceloader.h"
#include "core/sql/sliceids.h"
#include "core/sql/sqlsession.h"
#include "support/kinetofixtures.h"

#include <QTemporaryDir>
#include <QtTest>

#include <cmath>
#include <cstring>
#include <map>
#include <random>
#include <set>

using namespace tracedesk::core;
using namespace tracedesk::core::sql;

namespace {

// Thread 1: outer [0,100) holds inner [10,40) (holding leaf [12,17)) and inner [50,70).
// Thread 2: solo [200,250). A counter with two samples, one flow from leaf to solo.
const char *const kHandTrace = R"json({"traceEvents":[
{"ph":"X","cat":"test","name":"outer","pid":1,"tid":1,"ts":0,"dur":100,
 "args":{"note":"hello","n":42}},
{"ph":"X","cat":"test","name":"inner","pid":1,"tid":1,"ts":10,"dur":30},
{"ph":"X","cat":"test","name":"inner","pid":1,"tid":1,"ts":50,"dur":20},
{"ph":"X","cat":"test","name":"leaf","pid":1,"tid":1,"ts":12,"dur":5,"args":{"x":1.5}},
{"ph":"X","cat":"other","name":"solo","pid":1,"tid":2,"ts":200,"dur":50},
{"ph":"C","name":"mem","pid":1,"ts":0,"args":{"v":1}},
{"ph":"C","name":"mem","pid":1,"ts":10,"args":{"v":3}},
{"ph":"s","cat":"fl","name":"f","id":9,"pid":1,"tid":1,"ts":13},
{"ph":"f","bp":"e","cat":"fl","name":"f","id":9,"pid":1,"tid":2,"ts":210}
]})json";

constexpr int64_t kUs = 1000000; // ps per microsecond

QString kinetoFixture()
{
    return testsupport::realChromeJsonDir() +
           "kineto__resnet50_num_workers_0__worker0.1623143089861.pt.trace.json.gz";
}

std::unique_ptr<SqlSession> openSession(const TracePtr &trace)
{
    auto s = SqlSession::open(trace);
    if (!s) {
        qWarning("%s", s.message().c_str());
        return nullptr;
    }
    return std::move(s).value();
}

QueryResult mustRun(SqlSession &session, const std::string &sql)
{
    auto r = session.run(sql);
    if (!r)
        qWarning("%s: %s", sql.c_str(), r.message().c_str());
    return r ? std::move(r).value() : QueryResult{};
}

int64_t intAt(const QueryResult &r, size_t row = 0, size_t column = 0)
{
    if (row >= r.rows.size() || column >= r.rows[row].size())
        return kNoValue;
    const auto *v = std::get_if<int64_t>(&r.rows[row][column]);
    return v ? *v : kNoValue;
}

std::string textAt(const QueryResult &r, size_t row = 0, size_t column = 0)
{
    return row < r.rows.size() && column < r.rows[row].size() ? cellText(r.rows[row][column])
                                                              : std::string("<missing>");
}

// The documented id rule, computed here: track by track, depth by depth, in start order.
std::vector<SliceRef> enumerateSlices(const Trace &trace)
{
    std::vector<SliceRef> out;
    for (uint32_t t = 0; t < trace.tracks.size(); ++t)
        for (uint32_t r = 0; r < trace.tracks[t].rows.size(); ++r)
            for (uint32_t i = 0; i < trace.tracks[t].rows[r].size(); ++i)
                out.push_back({t, r, i});
    return out;
}

std::set<int64_t> idsOf(const QueryResult &r)
{
    std::set<int64_t> ids;
    for (size_t k = 0; k < r.rows.size(); ++k)
        ids.insert(intAt(r, k));
    return ids;
}

} // namespace

class TestSqlQuery : public QObject
{
    Q_OBJECT

private slots:
    void handTraceColumns();
    void handTraceArgsCountersFlows();
    void schemaListsEveryTable();
    void kinetoCountsFromRawJson();
    void everyTableMatchesTheStore();
    void windowQueriesMatchBruteForce();
    void timesCountFromTheTraceStart();
    void nonNumericBoundsFollowSqlite();
    void badSqlGivesSqliteMessage();
    void rowLimitAndCancel();
    void statementsAndStreaming();
    void groupedAggregatesSplitOverThreads();
    void randomSqlNeverCrashes();
};

void TestSqlQuery::handTraceColumns()
{
    TracePtr trace = testsupport::loadText(kHandTrace);
    QVERIFY(trace);
    auto session = openSession(trace);
    QVERIFY(session);
    const QueryResult r = mustRun(*session, "SELECT name, depth, ts, dur, end, self_time, "
                                            "(SELECT name FROM slices p WHERE p.id = s.parent_id), "
                                            "category FROM slices s ORDER BY ts, depth");
    QCOMPARE(r.rows.size(), size_t(5));
    struct Expected
    {
        const char *name;
        int64_t depth, ts, dur, self;
        const char *parent;
        const char *category;
    };
    const Expected expected[] = {{"outer", 0, 0, 100, 100 - 30 - 20, "", "test"},
                                 {"inner", 1, 10, 30, 30 - 5, "outer", "test"},
                                 {"leaf", 2, 12, 5, 5, "inner", "test"},
                                 {"inner", 1, 50, 20, 20, "outer", "test"},
                                 {"solo", 0, 200, 50, 50, "", "other"}};
    for (size_t k = 0; k < 5; ++k) {
        const Expected &e = expected[k];
        QCOMPARE(textAt(r, k, 0), std::string(e.name));
        QCOMPARE(intAt(r, k, 1), e.depth);
        QCOMPARE(intAt(r, k, 2), e.ts * kUs);   // from the trace's start: its first event is 0
        QCOMPARE(intAt(r, k, 3), e.dur * kUs);
        QCOMPARE(intAt(r, k, 4), intAt(r, k, 2) + e.dur * kUs);
        QCOMPARE(intAt(r, k, 5), e.self * kUs);
        QCOMPARE(textAt(r, k, 6), std::string(e.parent));
        QCOMPARE(textAt(r, k, 7), std::string(e.category));
    }
    // GROUP BY against the hand-counted names.
    const QueryResult g = mustRun(*session, "SELECT name, count(*), sum(dur) FROM slices "
                                            "GROUP BY name ORDER BY name");
    QCOMPARE(g.rows.size(), size_t(4));
    QCOMPARE(textAt(g, 0), std::string("inner"));
    QCOMPARE(intAt(g, 0, 1), int64_t(2));
    QCOMPARE(intAt(g, 0, 2), 50 * kUs);
    QCOMPARE(textAt(g, 3), std::string("solo"));
    QCOMPARE(intAt(g, 3, 2), 50 * kUs);
    // Sorted output, both directions, with and without grouping.
    const QueryResult down = mustRun(*session, "SELECT name FROM slices GROUP BY name "
                                               "ORDER BY name DESC");
    QCOMPARE(down.rows.size(), size_t(4));
    QCOMPARE(textAt(down, 0), std::string("solo"));
    QCOMPARE(textAt(down, 3), std::string("inner"));
    const QueryResult sorted = mustRun(*session, "SELECT name FROM slices ORDER BY name");
    QCOMPARE(sorted.rows.size(), size_t(5));
    for (size_t k = 1; k < sorted.rows.size(); ++k)
        QVERIFY(textAt(sorted, k - 1) <= textAt(sorted, k));
    const QueryResult cats = mustRun(*session, "SELECT category, count(*) FROM slices "
                                               "GROUP BY category ORDER BY category DESC");
    QCOMPARE(cats.rows.size(), size_t(2));
    QCOMPARE(textAt(cats, 0), std::string("test"));
    QCOMPARE(intAt(cats, 0, 1), int64_t(4));
}

void TestSqlQuery::handTraceArgsCountersFlows()
{
    TracePtr trace = testsupport::loadText(kHandTrace);
    QVERIFY(trace);
    auto session = openSession(trace);
    QVERIFY(session);
    const QueryResult a = mustRun(*session, "SELECT a.key, a.value FROM slices s JOIN args a "
                                            "ON a.slice_id = s.id WHERE s.name = 'outer' "
                                            "ORDER BY a.key");
    std::map<std::string, std::string> args;
    for (size_t k = 0; k < a.rows.size(); ++k)
        args[textAt(a, k, 0)] = textAt(a, k, 1);
    QCOMPARE(args["note"], std::string("hello"));
    QCOMPARE(args["n"], std::string("42"));
    const QueryResult leaf = mustRun(*session, "SELECT value FROM args WHERE key = 'x' AND "
                                               "slice_id = (SELECT id FROM slices WHERE name = "
                                               "'leaf')");
    QCOMPARE(leaf.rows.size(), size_t(1));
    QCOMPARE(std::get<double>(leaf.rows[0][0]), 1.5);
    // Slices without args have no rows.
    QCOMPARE(intAt(mustRun(*session, "SELECT count(*) FROM args a JOIN slices s ON "
                                     "s.id = a.slice_id WHERE s.name = 'solo'")),
             int64_t(0));

    const QueryResult c = mustRun(*session, "SELECT ts, value FROM counters ORDER BY ts");
    QCOMPARE(c.rows.size(), size_t(2));
    QCOMPARE(std::get<double>(c.rows[0][1]), 1.0);
    QCOMPARE(std::get<double>(c.rows[1][1]), 3.0);
    QCOMPARE(intAt(c, 1) - intAt(c, 0), 10 * kUs);

    const QueryResult f =
        mustRun(*session, "SELECT (SELECT name FROM slices WHERE id = from_id), "
                          "(SELECT name FROM slices WHERE id = to_id) FROM flows");
    QCOMPARE(f.rows.size(), trace->flows.size());
    if (!f.rows.empty()) {
        QCOMPARE(textAt(f, 0, 0), std::string("leaf"));
        QCOMPARE(textAt(f, 0, 1), std::string("solo"));
    }
}

void TestSqlQuery::schemaListsEveryTable()
{
    const std::string schema = SqlSession::schemaText();
    for (const char *table : {"planes", "tracks", "slices", "args", "flows", "counters", "steps",
                              "kernels", "op_stats"})
        QVERIFY2(schema.find(std::string("\n") + table + ": ") != std::string::npos, table);
    QVERIFY(schema.find("picoseconds") != std::string::npos);
}

void TestSqlQuery::kinetoCountsFromRawJson()
{
    const QString path = kinetoFixture();
    TRACEDESK_REQUIRE_FIXTURE(path);
    // Kernels counted and summed from the raw file: ph X, cat kernel (case-insensitive).
    const QJsonArray events = testsupport::readFixtureObject(path)["traceEvents"].toArray();
    std::map<std::string, std::pair<int64_t, int64_t>> byName; // count, ps
    int64_t count = 0, sumPs = 0;
    for (const QJsonValue &v : events) {
        const QJsonObject e = v.toObject();
        if (e["ph"].toString() != "X" || e["cat"].toString().toLower() != "kernel")
            continue;
        const int64_t ps = std::llround(e["dur"].toDouble() * 1e6);
        auto &slot = byName[e["name"].toString().toStdString()];
        ++slot.first;
        slot.second += ps;
        ++count;
        sumPs += ps;
    }
    QVERIFY(count > 0);
    auto loaded = loadTrace(path.toStdString());
    QVERIFY2(loaded.ok(), loaded.ok() ? "" : loaded.message().c_str());
    auto session = openSession(loaded.value());
    QVERIFY(session);
    const QueryResult total =
        mustRun(*session, "SELECT count(*), sum(dur) FROM slices WHERE role = 'kernel'");
    QCOMPARE(intAt(total, 0, 0), count);
    QVERIFY(std::llabs(intAt(total, 0, 1) - sumPs) <= count); // 1 ps rounding per event
    const QueryResult g = mustRun(*session, "SELECT name, count(*), sum(dur) FROM slices "
                                            "WHERE role = 'kernel' GROUP BY name");
    QCOMPARE(g.rows.size(), byName.size());
    for (size_t k = 0; k < g.rows.size(); ++k) {
        const auto it = byName.find(textAt(g, k, 0));
        QVERIFY(it != byName.end());
        QCOMPARE(intAt(g, k, 1), it->second.first);
        QVERIFY(std::llabs(intAt(g, k, 2) - it->second.second) <= it->second.first);
    }
}

void TestSqlQuery::everyTableMatchesTheStore()
{
    const QString path = kinetoFixture();
    TRACEDESK_REQUIRE_FIXTURE(path);
    auto loaded = loadTrace(path.toStdString());
    QVERIFY(loaded.ok());
    const TracePtr trace = loaded.value();
    const Trace &t = *trace;
    auto session = openSession(trace);
    QVERIFY(session);
    auto countOf = [&](const char *table) {
        return intAt(mustRun(*session, std::string("SELECT count(*) FROM ") + table));
    };
    QCOMPARE(countOf("planes"), int64_t(t.planes.size()));
    QCOMPARE(countOf("tracks"), int64_t(t.tracks.size()));
    QCOMPARE(countOf("slices"), int64_t(t.sliceCount()));
    QCOMPARE(countOf("counters"), int64_t(t.counterSampleCount()));
    QCOMPARE(countOf("flows"), int64_t(t.flows.size()));
    analysis::AnalysisCache cache(trace);
    QCOMPARE(countOf("steps"), int64_t(analysis::pytorch::pytorchSteps(cache)->steps.size()));
    QCOMPARE(countOf("kernels"),
             int64_t(analysis::pytorch::kernelView(cache)->byProperties.size()));
    QCOMPARE(countOf("op_stats"), int64_t(analysis::pytorch::operatorStats(cache)->byName.size()));

    // Every slice, by id, against a walk over the store in the documented id order.
    const std::vector<SliceRef> refs = enumerateSlices(t);
    const QueryResult all =
        mustRun(*session, "SELECT id, track, depth, ts, dur, name FROM slices ORDER BY id");
    QCOMPARE(all.rows.size(), refs.size());
    for (size_t k = 0; k < refs.size(); ++k) {
        const SliceRef s = refs[k];
        if (intAt(all, k, 0) != int64_t(k) || intAt(all, k, 1) != s.track ||
            intAt(all, k, 2) != s.row || intAt(all, k, 3) != t.start(s) - t.begin ||
            intAt(all, k, 4) != t.duration(s) || textAt(all, k, 5) != t.name(s))
            QFAIL(qPrintable(QString("slice %1 differs from the store").arg(k)));
    }
    // GROUP BY name over every slice (streamed grouped, see groupedscan.h) against the walk.
    std::map<std::string, std::pair<int64_t, int64_t>> perName;
    for (const SliceRef s : refs) {
        auto &slot = perName[std::string(t.name(s))];
        ++slot.first;
        slot.second += t.duration(s);
    }
    const QueryResult g = mustRun(*session, "SELECT name, count(*), sum(dur) FROM slices "
                                            "GROUP BY name");
    QCOMPARE(g.rows.size(), perName.size());
    size_t k = 0;
    for (const auto &[name, value] : perName) { // std::map order = SQLite's BINARY order
        QCOMPARE(textAt(g, k), name);
        QCOMPARE(intAt(g, k, 1), value.first);
        QCOMPARE(intAt(g, k, 2), value.second);
        ++k;
    }
    // Id lookups go back to the same slice.
    SliceIds ids(t);
    for (size_t k = 0; k < refs.size(); k += 997)
        QVERIFY(ids.refOf(int64_t(k)) == refs[k]);

    // Args of a sample of slices against the store's own args walk.
    for (size_t k = 0; k < refs.size(); k += 1999) {
        std::vector<std::string> keys;
        t.forEachArg(refs[k], [&](const ArgValue &v) { keys.emplace_back(t.string(v.key)); });
        const QueryResult a =
            mustRun(*session, "SELECT key FROM args WHERE slice_id = " + std::to_string(k));
        QCOMPARE(a.rows.size(), keys.size());
        for (size_t j = 0; j < keys.size(); ++j)
            QCOMPARE(textAt(a, j), keys[j]);
    }
}

void TestSqlQuery::windowQueriesMatchBruteForce()
{
    const QString path = kinetoFixture();
    TRACEDESK_REQUIRE_FIXTURE(path);
    auto loaded = loadTrace(path.toStdString());
    QVERIFY(loaded.ok());
    const Trace &t = *loaded.value();
    auto session = openSession(loaded.value());
    QVERIFY(session);
    const std::vector<SliceRef> refs = enumerateSlices(t);
    std::mt19937_64 rng(7);
    for (int round = 0; round < 20; ++round) {
        const int64_t span = t.end - t.begin;
        const int64_t a = t.begin + int64_t(rng() % uint64_t(span));
        const int64_t b = a + int64_t(rng() % uint64_t(span / 50 + 1));
        const uint32_t track = uint32_t(rng() % t.tracks.size());
        std::set<int64_t> overlap, inside, onTrack;
        for (size_t k = 0; k < refs.size(); ++k) {
            const int64_t s = t.start(refs[k]), e = s + t.duration(refs[k]);
            if (s < b && e > a)
                overlap.insert(int64_t(k));
            if (s >= a && s <= b)
                inside.insert(int64_t(k));
            if (refs[k].track == track && s > a && e <= b)
                onTrack.insert(int64_t(k));
        }
        // SQL's times count from the trace's start.
        const std::string A = std::to_string(a - t.begin), B = std::to_string(b - t.begin);
        QCOMPARE(
            idsOf(mustRun(*session, "SELECT id FROM slices WHERE ts < " + B + " AND end > " + A)),
            overlap);
        QCOMPARE(
            idsOf(mustRun(*session, "SELECT id FROM slices WHERE ts BETWEEN " + A + " AND " + B)),
            inside);
        QCOMPARE(
            idsOf(mustRun(*session, "SELECT id FROM slices WHERE track = " + std::to_string(track) +
                                        " AND ts > " + A + " AND end <= " + B)),
            onTrack);
        // Real-valued bounds: ts > a - 0.5 is ts >= a.
        QCOMPARE(idsOf(mustRun(*session, "SELECT id FROM slices WHERE ts > " + A +
                                             " - 0.5 AND ts <= " + B + " + 0.25")),
                 inside);
    }
    // The plan uses the table's own index for a window.
    const QueryResult plan = mustRun(*session, "EXPLAIN QUERY PLAN SELECT * FROM slices "
                                               "WHERE ts > 5 AND ts < 10");
    QVERIFY(!plan.rows.empty());
    QVERIFY2(textAt(plan, 0, 3).find("VIRTUAL TABLE INDEX") != std::string::npos,
             textAt(plan, 0, 3).c_str());
}

// One time origin everywhere: SQL's times count from the trace's start, the timeline's 0, also
// where the store's own origin lies before it (the bundled XSpace sample starts at 1 ms).
void TestSqlQuery::timesCountFromTheTraceStart()
{
    LoadOptions options;
    options.useCache = false;
    auto loaded = loadTrace(TRACEDESK_TEST_DATA "/../../resources/sample", nullptr, options);
    QVERIFY(loaded.ok());
    const Trace &t = *loaded.value();
    QVERIFY(t.begin > 0);
    auto session = openSession(loaded.value());
    QVERIFY(session);
    const QueryResult bounds = mustRun(*session, "SELECT min(ts), max(end) FROM slices");
    QCOMPARE(intAt(bounds, 0, 0), int64_t(0));
    QCOMPARE(intAt(bounds, 0, 1), int64_t(t.end - t.begin));
    // Every slice: its SQL ts is its store start less the trace's start.
    const std::vector<SliceRef> refs = enumerateSlices(t);
    const QueryResult all = mustRun(*session, "SELECT id, ts, end FROM slices ORDER BY id");
    QCOMPARE(all.rows.size(), refs.size());
    for (size_t k = 0; k < refs.size(); k += 97) {
        QCOMPARE(intAt(all, k, 1), int64_t(t.start(refs[k]) - t.begin));
        QCOMPARE(intAt(all, k, 2), int64_t(t.start(refs[k]) + t.duration(refs[k]) - t.begin));
    }
    // A window on SQL times finds the slices whose timeline times are in it.
    const int64_t a = (t.end - t.begin) / 3, b = a + (t.end - t.begin) / 100;
    int64_t inside = 0;
    for (const SliceRef &r : refs)
        inside += t.start(r) - t.begin >= a && t.start(r) - t.begin <= b;
    QCOMPARE(intAt(mustRun(*session, "SELECT count(*) FROM slices WHERE ts BETWEEN " +
                                         std::to_string(a) + " AND " + std::to_string(b))),
             inside);
    const QueryResult tracks = mustRun(*session, "SELECT min(ts) FROM tracks WHERE slice_count > 0");
    QCOMPARE(intAt(tracks, 0, 0), int64_t(0));
    const QueryResult steps = mustRun(*session, "SELECT min(ts) FROM steps");
    QVERIFY(intAt(steps, 0, 0) >= 0);
    QVERIFY(intAt(steps, 0, 0) < t.end - t.begin);
}

void TestSqlQuery::nonNumericBoundsFollowSqlite()
{
    TracePtr trace = testsupport::loadText(kHandTrace);
    QVERIFY(trace);
    auto session = openSession(trace);
    QVERIFY(session);
    const int64_t all = int64_t(trace->sliceCount());
    // SQLite orders every integer before any text, and NULL compares as unknown.
    QCOMPARE(intAt(mustRun(*session, "SELECT count(*) FROM slices WHERE ts < 'abc'")), all);
    QCOMPARE(intAt(mustRun(*session, "SELECT count(*) FROM slices WHERE ts > 'abc'")), int64_t(0));
    QCOMPARE(intAt(mustRun(*session, "SELECT count(*) FROM slices WHERE ts > NULL")), int64_t(0));
    QCOMPARE(intAt(mustRun(*session, "SELECT count(*) FROM slices WHERE id = 1e300")), int64_t(0));
    QCOMPARE(intAt(mustRun(*session, "SELECT count(*) FROM slices WHERE id < -1e300")), int64_t(0));
    QCOMPARE(intAt(mustRun(*session, "SELECT count(*) FROM slices WHERE track = -1")), int64_t(0));
    QCOMPARE(intAt(mustRun(*session, "SELECT count(*) FROM slices WHERE id IN (0, 2, 99)")),
             int64_t(2));
}

void TestSqlQuery::badSqlGivesSqliteMessage()
{
    TracePtr trace = testsupport::loadText(kHandTrace);
    QVERIFY(trace);
    auto session = openSession(trace);
    QVERIFY(session);
    auto message = [&](const char *sql) {
        auto r = session->run(sql);
        return r ? std::string() : r.message();
    };
    QCOMPARE(message("SELEC 1"), std::string("near \"SELEC\": syntax error"));
    QCOMPARE(message("SELECT * FROM nope"), std::string("no such table: nope"));
    QCOMPARE(message("SELECT nope FROM slices"), std::string("no such column: nope"));
    QVERIFY(!message("CREATE VIRTUAL TABLE x USING slices").empty());
    // The session still works afterwards.
    QCOMPARE(intAt(mustRun(*session, "SELECT count(*) FROM slices")), int64_t(5));
}

void TestSqlQuery::rowLimitAndCancel()
{
    TracePtr trace = testsupport::loadText(kHandTrace);
    QVERIFY(trace);
    auto session = openSession(trace);
    QVERIFY(session);
    SqlRunOptions limited;
    limited.rowLimit = 3;
    auto r = session->run("SELECT * FROM slices", limited);
    QVERIFY(r.ok());
    QCOMPARE(r.value().rows.size(), size_t(3));
    QVERIFY(r.value().truncated);
    // A query that would run for hours stops once the flag is set.
    std::atomic<bool> cancel{true};
    SqlRunOptions cancellable;
    cancellable.cancel = &cancel;
    auto c = session->run("WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n) "
                          "SELECT count(*) FROM n",
                          cancellable);
    QVERIFY(c.isCancelled());
    QVERIFY(session->run("SELECT 1").ok());
}

void TestSqlQuery::statementsAndStreaming()
{
    TracePtr trace = testsupport::loadText(kHandTrace);
    QVERIFY(trace);
    auto session = openSession(trace);
    QVERIFY(session);
    // Earlier statements run; the last one's rows are returned (comments after it are trivia).
    const QueryResult r = mustRun(*session, "CREATE TEMP TABLE x AS SELECT * FROM slices WHERE "
                                            "name = 'inner'; SELECT 7; SELECT count(*) AS n "
                                            "FROM x; -- the end");
    QCOMPARE(r.columns, std::vector<std::string>{"n"});
    QCOMPARE(intAt(r), int64_t(2));
    // Streaming delivers the same rows one by one and stops when asked.
    std::vector<std::string> names;
    std::vector<int64_t> ids;
    auto streamed = session->stream(
        "SELECT id FROM slices ORDER BY id", {},
        [&](const std::vector<std::string> &columns) { names = columns; },
        [&](std::vector<SqlCell> &&row) {
            ids.push_back(std::get<int64_t>(row[0]));
            return ids.size() < 3;
        });
    QVERIFY(streamed.ok());
    QCOMPARE(names, std::vector<std::string>{"id"});
    QCOMPARE(ids, (std::vector<int64_t>{0, 1, 2}));
    QCOMPARE(streamed.value(), uint64_t(2)); // the third row stopped the stream
    // An error in an earlier statement is reported and nothing is delivered.
    bool delivered = false;
    auto failed = session->stream(
        "SELECT nope FROM slices; SELECT 1", {}, [&](const auto &) { delivered = true; },
        [&](auto &&) { return true; });
    QVERIFY(!failed.ok());
    QCOMPARE(failed.message(), std::string("no such column: nope"));
    QVERIFY(!delivered);
}

// A statement that aggregates each group of the grouped scan on its own runs as parts on
// threads of their own (groupsplit.h): the rows are those of one run, in the same order, and
// the totals those of a walk over the store. Anything that looks across groups (a sort of the
// groups, LIMIT, DISTINCT, a window, a join, a subquery) or is no grouped aggregate runs whole.
void TestSqlQuery::groupedAggregatesSplitOverThreads()
{
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    GeneratorOptions generate;
    generate.events = 40000;
    const std::string path = dir.filePath("g.xplane.pb").toStdString();
    QVERIFY(generateTrace(generate, path).ok());
    auto loaded = loadTrace(path);
    QVERIFY(loaded.ok());
    const TracePtr trace = std::move(loaded).value();
    auto session = openSession(trace);
    QVERIFY(session);

    // count and sum by name from a walk over the store, in byte order of the names.
    std::map<std::string, std::pair<int64_t, int64_t>> walked;
    for (const SliceRef &ref : enumerateSlices(*trace)) {
        const Row &row = trace->tracks[ref.track].rows[ref.row];
        const StringId name = trace->kinds[row.kind[ref.index]].name;
        auto &[count, sum] = walked[std::string(trace->string(name))];
        ++count;
        sum += row.duration[ref.index];
    }
    QVERIFY(walked.size() > 10);

    auto runWith = [&](const std::string &sql, unsigned parts) {
        SqlRunOptions options;
        options.groupParts = parts;
        options.columnar = false; // SQLite's own plans (columnar ones: tst_columnaggregate)
        auto r = session->run(sql, options);
        if (!r)
            qWarning("%s: %s", sql.c_str(), r.message().c_str());
        return r ? std::move(r).value() : QueryResult{};
    };
    const std::vector<std::string> split = {
        "SELECT name, count(*), sum(dur) FROM slices GROUP BY name",
        "SELECT category, count(*), total(dur), min(ts), max(end) FROM slices GROUP BY category",
        "SELECT name, avg(dur) FROM slices WHERE dur > 1000 GROUP BY name HAVING count(*) > 2 "
        "ORDER BY name DESC",
        "SELECT upper(name) AS n, group_concat(depth) FROM slices GROUP BY name",
    };
    const std::vector<std::string> whole = {
        "SELECT name, count(*) FROM slices GROUP BY name ORDER BY count(*) DESC",
        "SELECT name, count(*) FROM slices GROUP BY name LIMIT 5",
        "SELECT name FROM slices ORDER BY name",
        "SELECT count(*) FROM slices",
        "SELECT s.name, count(*) FROM slices s JOIN tracks t ON s.track = t.id GROUP BY s.name",
        "SELECT DISTINCT count(*) FROM slices GROUP BY name",
        "SELECT name, count(*) OVER () FROM slices GROUP BY name",
        "SELECT name, (SELECT count(*) FROM tracks) FROM slices GROUP BY name",
        "SELECT name, count(*), changes() FROM slices GROUP BY name",
    };
    for (unsigned parts : {2u, 3u}) {
        for (const std::string &sql : split) {
            const QueryResult one = runWith(sql, 1);
            QCOMPARE(session->lastParts(), 1u);
            const QueryResult many = runWith(sql, parts);
            QVERIFY2(session->lastParts() == parts, sql.c_str());
            QVERIFY(!one.rows.empty());
            QCOMPARE(many.columns, one.columns);
            QVERIFY2(many.rows == one.rows, sql.c_str());
        }
        for (const std::string &sql : whole) {
            const QueryResult many = runWith(sql, parts);
            QVERIFY2(session->lastParts() == 1, sql.c_str());
            QVERIFY2(many.rows == runWith(sql, 1).rows, sql.c_str());
        }
        const QueryResult byName = runWith(split[0], parts);
        QCOMPARE(byName.rows.size(), walked.size());
        size_t k = 0;
        for (const auto &[name, totals] : walked) {
            QCOMPARE(textAt(byName, k), name);
            QCOMPARE(intAt(byName, k, 1), totals.first);
            QCOMPARE(intAt(byName, k, 2), totals.second);
            ++k;
        }
    }

    // A stream stopped early stops every part; a cancelled run is cancelled.
    SqlRunOptions options;
    options.groupParts = 2;
    options.columnar = false;
    size_t seen = 0;
    auto streamed = session->stream(
        split[0], options, [](const auto &) {}, [&](std::vector<SqlCell> &&) {
            return ++seen < 3;
        });
    QVERIFY(streamed.ok());
    QCOMPARE(streamed.value(), uint64_t(2));
    const std::atomic<bool> cancel{true};
    options.cancel = &cancel;
    auto cancelled = session->run(split[0], options);
    QVERIFY(!cancelled.ok());
    QVERIFY(cancelled.isCancelled());

    // After a statement that may change how the session's connection answers (here LIKE's
    // case), the other connections would answer differently: nothing is split any more.
    options.cancel = nullptr;
    const char first = walked.rbegin()->first.front();
    const std::string like = std::string("SELECT name, count(*) FROM slices WHERE name LIKE '") +
                             first + "%' GROUP BY name";
    QVERIFY(session->run("EXPLAIN " + like, options).ok());
    QVERIFY(session->run(like, options).ok());
    QCOMPARE(session->lastParts(), 2u);
    QVERIFY(session->run("PRAGMA case_sensitive_like = 1", options).ok());
    const QueryResult sensitive = runWith(like, 2);
    QCOMPARE(session->lastParts(), 1u);
    size_t startingSo = 0;
    for (const auto &entry : walked)
        startingSo += entry.first.front() == first ? 1 : 0;
    QCOMPARE(sensitive.rows.size(), startingSo);
}

void TestSqlQuery::randomSqlNeverCrashes()
{
    TracePtr trace = testsupport::loadText(kHandTrace);
    QVERIFY(trace);
    auto session = openSession(trace);
    QVERIFY(session);
    const char *const tokens[] = {"SELECT",
                                  "FROM",
                                  "WHERE",
                                  "slices",
                                  "args",
                                  "flows",
                                  "counters",
                                  "steps",
                                  "kernels",
                                  "op_stats",
                                  "planes",
                                  "tracks",
                                  "id",
                                  "ts",
                                  "dur",
                                  "end",
                                  "name",
                                  "track",
                                  "slice_id",
                                  "parent_id",
                                  "self_time",
                                  "step",
                                  "value",
                                  "key",
                                  "*",
                                  ",",
                                  "(",
                                  ")",
                                  "=",
                                  "<",
                                  ">",
                                  "<=",
                                  ">=",
                                  "AND",
                                  "OR",
                                  "NOT",
                                  "IN",
                                  "GROUP BY",
                                  "ORDER BY",
                                  "LIMIT",
                                  "JOIN",
                                  "ON",
                                  "count(",
                                  "sum(",
                                  "max(",
                                  "NULL",
                                  "1",
                                  "-1",
                                  "0.5",
                                  "1e308",
                                  "-9223372036854775808",
                                  "9223372036854775807",
                                  "'x'",
                                  "x'00'",
                                  "||",
                                  "+",
                                  "-",
                                  "/",
                                  "%",
                                  ";",
                                  "AS",
                                  "s",
                                  "a",
                                  "DISTINCT",
                                  "UNION",
                                  "CASE",
                                  "WHEN",
                                  "THEN",
                                  "ELSE",
                                  "END",
                                  "BETWEEN",
                                  "LIKE",
                                  "'%'"};
    std::mt19937 rng(19);
    int ok = 0;
    std::atomic<bool> cancel{false};
    SqlRunOptions options;
    options.rowLimit = 100;
    options.cancel = &cancel;
    for (int round = 0; round < 3000; ++round) {
        std::string sql = round % 2 ? "SELECT " : "";
        const int n = 1 + int(rng() % 14);
        for (int k = 0; k < n; ++k) {
            sql += tokens[rng() % std::size(tokens)];
            sql += ' ';
        }
        if (round % 3 == 0)
            sql += "FROM slices WHERE ts > " + std::to_string(int(rng() % 300) - 10);
        auto r = session->run(sql, options);
        ok += r.ok();
    }
    // Well-formed queries with random constraints, values and orders reach every xBestIndex /
    // xFilter path (including odd values: NULL, text, reals, the int64 edges).
    const char *const tables[] = {"slices", "args", "flows", "counters", "tracks", "steps"};
    const char *const columns[] = {"id", "track", "ts", "end", "dur", "slice_id", "name"};
    const char *const ops[] = {"=", "<", "<=", ">", ">=", "!=", "IS", "IN"};
    const char *const values[] = {"0",
                                  "1",
                                  "-1",
                                  "NULL",
                                  "'a'",
                                  "2.5",
                                  "-0.5",
                                  "1e300",
                                  "9223372036854775807",
                                  "-9223372036854775808",
                                  "(1, 3)",
                                  "10000000",
                                  "12000000.5",
                                  "40000000",
                                  "70000000",
                                  "(SELECT min(ts) FROM slices)"};
    // The same WHERE over a plain SQLite copy of the slices: SQLite's own answer.
    QVERIFY(session->run("CREATE TEMP TABLE plain AS SELECT * FROM slices").ok());
    int structured = 0, compared = 0;
    for (int round = 0; round < 2000; ++round) {
        std::string sql = std::string("SELECT * FROM ") + tables[rng() % std::size(tables)];
        const int n = int(rng() % 4);
        for (int k = 0; k < n; ++k) {
            sql += k ? " AND " : " WHERE ";
            sql += columns[rng() % std::size(columns)];
            const char *op = ops[rng() % std::size(ops)];
            const char *value = values[rng() % std::size(values)];
            sql += std::string(" ") + op + " ";
            sql += std::string_view(op) == "IN" && value[0] != '(' ? "(" + std::string(value) + ")"
                                                                   : std::string(value);
        }
        if (rng() % 3 == 0)
            sql += std::string(" ORDER BY ") + columns[rng() % std::size(columns)] +
                   (rng() % 2 ? " DESC" : "");
        auto r = session->run(sql, options);
        structured += r.ok();
        if (sql.rfind("SELECT * FROM slices", 0) == 0 && r.ok() && r.value().rows.size() < 100) {
            const std::string where = sql.substr(std::strlen("SELECT * FROM slices"));
            const size_t order = where.find(" ORDER BY");
            const std::string filter = where.substr(0, order);
            auto mine = session->run("SELECT id FROM slices" + filter + " ORDER BY id");
            auto plain = session->run("SELECT id FROM plain" + filter + " ORDER BY id");
            QVERIFY2(mine.ok() && plain.ok(), sql.c_str());
            QVERIFY2(idsOf(mine.value()) == idsOf(plain.value()), sql.c_str());
            ++compared;
        }
    }
    QVERIFY(compared > 100);
    qInfo("%d of 3000 random and %d of 2000 structured statements ran, %d compared", ok, structured,
          compared);
    QCOMPARE(intAt(mustRun(*session, "SELECT count(*) FROM slices")), int64_t(5));
}

QTEST_GUILESS_MAIN(TestSqlQuery)
#include "tst_sqlquery.moc"
