// Grouped aggregates answered from the store's columns (core/sql/columnaggregate.h): every
// statement of the plan's grammar (WHERE tests and arithmetic included) gives SQLite's own rows
// (the same statement run by SQLite with the columnar path off, with the key as the last ORDER
// BY term where rows may tie); the totals, all and of the kernels alone, equal a walk over a
// real Kineto fixture; anything outside the grammar, or a sum SQLite could not repeat exactly,
// runs through SQLite; several workers over small chunks give one worker's rows; a cancelled
// run is cancelled.

#include "core/generate/generator.h"
#include "core/io/traceloader.h"
#include "core/sql/aggregateplan.h"
#include "core/sql/columnaggregate.h"
#include "core/sql/sqlsession.h"
#include "support/kinetofixtures.h"

#include <QTemporaryDir>
#include <QtTest>

#include <map>
#include <random>

using namespace tracedesk::core;
using namespace tracedesk::core::sql;

namespace {

// Names with equal counts and sums (ties for ORDER BY), a name in two categories, names that
// differ only in case, and an instant.
const char *const kTieTrace = R"json({"traceEvents":[
{"ph":"X","cat":"a","name":"beta","pid":1,"tid":1,"ts":0,"dur":10},
{"ph":"X","cat":"a","name":"alpha","pid":1,"tid":1,"ts":20,"dur":10},
{"ph":"X","cat":"b","name":"Alpha","pid":1,"tid":1,"ts":40,"dur":5},
{"ph":"X","cat":"b","name":"gamma","pid":1,"tid":2,"ts":0,"dur":10},
{"ph":"X","cat":"b","name":"beta","pid":1,"tid":2,"ts":15,"dur":3},
{"ph":"X","cat":"c","name":"delta","pid":1,"tid":2,"ts":16,"dur":1},
{"ph":"X","cat":"c","name":"gamma","pid":1,"tid":2,"ts":30,"dur":3},
{"ph":"i","cat":"c","name":"mark","pid":1,"tid":2,"ts":31,"s":"t"}
]})json";

// A statement and the one SQLite must answer alike: the same, or with the key appended to its
// ORDER BY, since rows tied on every term keep group order (columnaggregate.h).
struct Planned
{
    std::string sql;
    std::string sqlite;
};
const std::vector<Planned> kPlanned = {
    {"SELECT name, count(*), sum(dur) FROM slices GROUP BY name", ""},
    {"select NAME, Count(*) AS n, total(dur), avg(dur), min(ts), max(end) from SLICES "
     "group by Name",
     ""},
    {"SELECT category, count(dur), min(depth), max(depth), sum(track), avg(id) FROM slices "
     "GROUP BY category",
     ""},
    {"SELECT name, count(*) FROM slices GROUP BY name ORDER BY count(*) DESC",
     "SELECT name, count(*) FROM slices GROUP BY name ORDER BY count(*) DESC, name"},
    {"SELECT name, sum(dur) AS t FROM slices GROUP BY name ORDER BY t DESC LIMIT 7",
     "SELECT name, sum(dur) AS t FROM slices GROUP BY name ORDER BY t DESC, name LIMIT 7"},
    {"SELECT name, sum(dur) FROM slices GROUP BY name ORDER BY 2 DESC, 1 LIMIT 3 OFFSET 2", ""},
    {"SELECT name, count(*) FROM slices GROUP BY name ORDER BY name DESC LIMIT 2, 4", ""},
    {"SELECT count(*) AS name, name FROM slices GROUP BY name ORDER BY name",
     "SELECT count(*) AS name, name FROM slices GROUP BY name ORDER BY 1, 2"},
    {"/* top */ SELECT \"name\" -- the key\n, max([dur]) m, min(`end`) FROM slices GROUP BY "
     "name ORDER BY m;",
     "SELECT name, max(dur) m, min(end) FROM slices GROUP BY name ORDER BY m, name"},
    {"SELECT name FROM slices GROUP BY name ORDER BY max(dur) DESC, count(*)",
     "SELECT name FROM slices GROUP BY name ORDER BY max(dur) DESC, count(*), name"},
    {"SELECT name, count(*) FROM slices GROUP BY name LIMIT 0", ""},
    {"SELECT avg(dur), name FROM slices GROUP BY name ORDER BY avg(dur), name DESC", ""},
    {"SELECT category, count(*) FROM slices GROUP BY category ORDER BY category DESC", ""},
    {"SELECT name, count(*), sum(dur) / 1e6 AS us FROM slices WHERE role = 'kernel' GROUP BY "
     "name ORDER BY us DESC LIMIT 10",
     "SELECT name, count(*), sum(dur) / 1e6 AS us FROM slices WHERE role = 'kernel' GROUP BY "
     "name ORDER BY us DESC, name LIMIT 10"},
    {"SELECT category, count(*) FROM slices WHERE dur > 0 AND depth <= 1 AND name != 'beta' "
     "GROUP BY category",
     ""},
    {"SELECT name, avg(dur) * 2, sum(dur) / 3, count(*) * 1000, max(ts) / 2.0, min(id) * 1.0 "
     "FROM slices WHERE ts >= -5 AND category IN ('a', 'b', '') GROUP BY name",
     ""},
    {"SELECT name, count(*) FROM slices WHERE name NOT IN ('beta', 'gamma') AND track <> 0 "
     "GROUP BY name ORDER BY sum(dur) / 1000 DESC",
     "SELECT name, count(*) FROM slices WHERE name NOT IN ('beta', 'gamma') AND track <> 0 "
     "GROUP BY name ORDER BY sum(dur) / 1000 DESC, name"},
    {"SELECT name, count(*) FROM slices WHERE role == '' AND end < 40000000 GROUP BY name", ""},
    {"SELECT name, sum(dur) FROM slices WHERE dur < 0 GROUP BY name", ""},
    // Products past int64 become doubles in some groups only: ORDER BY compares both kinds.
    {"SELECT name, sum(dur) * 1000000000 AS big FROM slices GROUP BY name ORDER BY big",
     "SELECT name, sum(dur) * 1000000000 AS big FROM slices GROUP BY name ORDER BY big, name"},
};

const std::vector<std::string> kNotPlanned = {
    "SELECT name, count(*) FROM slices WHERE dur > 0 OR depth = 1 GROUP BY name",
    "SELECT name, count(*) FROM slices WHERE name LIKE 'b%' GROUP BY name",
    "SELECT name, count(*) FROM slices WHERE dur > 1.5 GROUP BY name",
    "SELECT name, count(*) FROM slices WHERE dur > '5' GROUP BY name",
    "SELECT name, count(*) FROM slices WHERE 'beta' = name GROUP BY name",
    "SELECT name, count(*) FROM slices WHERE name = \"beta\" GROUP BY name",
    "SELECT name, count(*) FROM slices WHERE name = 'it''s' GROUP BY name",
    "SELECT name, count(*) FROM slices WHERE self_time > 0 GROUP BY name",
    "SELECT name, sum(dur) / 0 FROM slices GROUP BY name",
    "SELECT name, sum(dur) / 0.5 FROM slices GROUP BY name",
    "SELECT name, sum(dur) * -1 FROM slices GROUP BY name",
    "SELECT name, sum(dur) / 1e6 * 2 FROM slices GROUP BY name",
    "SELECT name, count(*) FROM slices GROUP BY name HAVING count(*) > 1",
    "SELECT DISTINCT name FROM slices GROUP BY name",
    "SELECT name, dur FROM slices GROUP BY name",
    "SELECT name, count(*) FROM slices GROUP BY 1",
    "SELECT name, count(*) FROM slices GROUP BY name ORDER BY ts",
    "SELECT name, count(DISTINCT dur) FROM slices GROUP BY name",
    "SELECT name, sum(dur) + 1 FROM slices GROUP BY name",
    "SELECT name, sum(self_time) FROM slices GROUP BY name",
    "SELECT name, sum(correlation) FROM slices GROUP BY name",
    "SELECT slices.name, count(*) FROM slices GROUP BY name",
    "SELECT s.name, count(*) FROM slices s GROUP BY s.name",
    "SELECT name, count(*) FROM slices GROUP BY name LIMIT -1",
    "SELECT name, count(*) FROM slices GROUP BY name COLLATE NOCASE",
    "SELECT name, count(*) FROM slices GROUP BY name ORDER BY name COLLATE NOCASE",
    "SELECT 'x', count(*) FROM slices GROUP BY name",
    "SELECT name, count(*) FROM slices GROUP BY name ORDER BY 1.5",
    "SELECT name, max(dur, 3) FROM slices GROUP BY name",
    "SELECT name, count(*) FROM slices GROUP BY name UNION SELECT 'z', 1",
    "SELECT category, count(*) FROM slices GROUP BY name",
    "SELECT name, count(*) FROM slices GROUP BY name ORDER BY category",
    "SELECT count(*) FROM slices",
    // "" names no column: SQLite reads the empty string.
    "SELECT \"\" FROM slices GROUP BY name",
    "SELECT count(*) AS c, \"\"x FROM slices GROUP BY name ORDER BY name",
};

TracePtr generated(QTemporaryDir &dir, uint64_t events)
{
    GeneratorOptions options;
    options.events = events;
    const std::string path = dir.filePath("g.xplane.pb").toStdString();
    if (!generateTrace(options, path).ok())
        return nullptr;
    auto loaded = loadTrace(path);
    return loaded ? std::move(loaded).value() : nullptr;
}

std::unique_ptr<SqlSession> openSession(const TracePtr &trace)
{
    auto s = SqlSession::open(trace);
    return s ? std::move(s).value() : nullptr;
}

Result<QueryResult> runAs(SqlSession &session, const std::string &sql, bool columnar)
{
    SqlRunOptions options;
    options.columnar = columnar;
    return session.run(sql, options);
}

std::string rowsText(const QueryResult &r)
{
    std::string text;
    for (const auto &row : r.rows) {
        for (const SqlCell &cell : row)
            text += cellText(cell) + " ";
        text += "\n";
    }
    return text;
}

// `sql` answered from the columns (when `planned`, else by SQLite) gives SQLite's columns and
// its rows for `sqlite` (the same statement when empty). Returns how many rows.
size_t expectSqliteRows(SqlSession &session, const std::string &sql, bool planned,
                        const std::string &sqlite = {})
{
    size_t rows = 0;
    [&] {
    auto fast = runAs(session, sql, true);
    QVERIFY2(fast.ok(), (sql + ": " + (fast.ok() ? "" : fast.message())).c_str());
    QVERIFY2(session.lastColumnar() == planned, sql.c_str());
    auto reference = runAs(session, sqlite.empty() ? sql : sqlite, false);
    QVERIFY2(reference.ok(), sql.c_str());
    QVERIFY(!session.lastColumnar());
    QCOMPARE(fast.value().columns.size(), reference.value().columns.size());
    if (sqlite.empty())
        QCOMPARE(fast.value().columns, reference.value().columns);
    QVERIFY2(fast.value().rows == reference.value().rows,
             (sql + "\ncolumnar:\n" + rowsText(fast.value()) + "SQLite:\n" +
              rowsText(reference.value()))
                 .c_str());
    rows = fast.value().rows.size();
    }();
    return rows;
}

} // namespace

class TestColumnAggregate : public QObject
{
    Q_OBJECT

private slots:
    void answersAsSqliteDoes_data();
    void answersAsSqliteDoes();
    void otherStatementsRunThroughSqlite();
    void totalsEqualAWalkOverTheFixture();
    void sumsSqliteCouldNotRepeatRunThroughSqlite();
    void workersOverChunksGiveOneWorkersRows();
    void randomStatementsAnswerAsSqliteDoes();
    void cancelAndEarlyStop();
    void temporaryTableShadowsTheStore();
    void textEndsAtANul();
};

void TestColumnAggregate::answersAsSqliteDoes_data()
{
    QTest::addColumn<int>("trace");
    QTest::newRow("ties") << 0;
    QTest::newRow("generated xspace") << 1;
}

void TestColumnAggregate::answersAsSqliteDoes()
{
    QFETCH(int, trace);
    QTemporaryDir dir;
    const TracePtr t = trace == 0 ? testsupport::loadText(kTieTrace) : generated(dir, 40000);
    QVERIFY(t);
    auto session = openSession(t);
    QVERIFY(session);
    for (const Planned &p : kPlanned) {
        const size_t rows = expectSqliteRows(*session, p.sql, true, p.sqlite);
        if (QTest::currentTestFailed())
            return;
        // The generated trace has kernels, every category and long spans: only the statements
        // that ask for nothing (LIMIT 0, a negative duration) come back empty.
        const bool none = p.sql.find("LIMIT 0") != std::string::npos ||
                          p.sql.find("dur < 0") != std::string::npos;
        if (trace == 1)
            QVERIFY2((rows == 0) == none, p.sql.c_str());
    }
    // The tie trace's counts tie, so ORDER BY count(*) keeps group order among equals.
    if (trace == 0) {
        auto r = runAs(*session, kPlanned[3].sql, true);
        QVERIFY(r.ok());
        std::vector<std::string> names;
        for (const auto &row : r.value().rows)
            names.push_back(std::get<std::string>(row[0]));
        const std::vector<std::string> expected = {"beta", "gamma", "Alpha", "alpha", "delta",
                                                   "mark"};
        QCOMPARE(names, expected);
    }
}

void TestColumnAggregate::otherStatementsRunThroughSqlite()
{
    const TracePtr t = testsupport::loadText(kTieTrace);
    QVERIFY(t);
    auto session = openSession(t);
    QVERIFY(session);
    for (const std::string &sql : kNotPlanned) {
        QVERIFY2(!parseAggregatePlan(sql), sql.c_str());
        expectSqliteRows(*session, sql, false);
        if (QTest::currentTestFailed())
            return;
    }
}

// count, sum, min, max and avg by name from a walk over the store's slices, against the
// columnar answer on a real Kineto trace.
void TestColumnAggregate::totalsEqualAWalkOverTheFixture()
{
    const QString path = testsupport::realChromeJsonDir() +
                         "kineto__resnet50_num_workers_0__worker0.1623143089861.pt.trace.json.gz";
    TRACEDESK_REQUIRE_FIXTURE(path);
    auto loaded = loadTrace(path.toStdString());
    QVERIFY(loaded.ok());
    const TracePtr trace = std::move(loaded).value();
    struct Totals
    {
        int64_t count = 0, sum = 0, minTs = INT64_MAX, maxEnd = INT64_MIN;
    };
    // One walk over the store's slices: every name's totals, and the kernels' alone.
    std::map<std::string, Totals> walked;
    std::map<std::string, std::pair<int64_t, int64_t>> kernels; // count, sum of durations
    for (const Track &track : trace->tracks)
        for (const Row &row : track.rows)
            for (size_t i = 0; i < row.size(); ++i) {
                const EventKind &kind = trace->kinds[row.kind[i]];
                const std::string name(trace->string(kind.name));
                Totals &t = walked[name];
                ++t.count;
                t.sum += row.duration[i];
                t.minTs = std::min(t.minTs, row.start[i] - trace->begin);
                t.maxEnd = std::max(t.maxEnd, row.end(i) - trace->begin);
                if (kind.role == SliceRole::Kernel) {
                    ++kernels[name].first;
                    kernels[name].second += row.duration[i];
                }
            }
    QVERIFY(walked.size() > 100);
    QVERIFY(kernels.size() > 10);
    auto session = openSession(trace);
    QVERIFY(session);
    auto r = session->run(
        "SELECT name, count(*), sum(dur), min(ts), max(end), avg(dur) FROM slices GROUP BY name");
    QVERIFY(r.ok());
    QVERIFY(session->lastColumnar());
    QCOMPARE(r.value().rows.size(), walked.size());
    size_t k = 0;
    for (const auto &[name, t] : walked) {
        const auto &row = r.value().rows[k++];
        QCOMPARE(std::get<std::string>(row[0]), name);
        QCOMPARE(std::get<int64_t>(row[1]), t.count);
        QCOMPARE(std::get<int64_t>(row[2]), t.sum);
        QCOMPARE(std::get<int64_t>(row[3]), t.minTs);
        QCOMPARE(std::get<int64_t>(row[4]), t.maxEnd);
        QCOMPARE(std::get<double>(row[5]), double(t.sum) / double(t.count));
    }

    // The kernels alone, by name, in microseconds.
    auto byKernel = session->run("SELECT name, count(*), sum(dur) / 1e6 FROM slices WHERE "
                                 "role = 'kernel' GROUP BY name");
    QVERIFY(byKernel.ok());
    QVERIFY(session->lastColumnar());
    QCOMPARE(byKernel.value().rows.size(), kernels.size());
    size_t n = 0;
    for (const auto &[name, totals] : kernels) {
        const auto &row = byKernel.value().rows[n++];
        QCOMPARE(std::get<std::string>(row[0]), name);
        QCOMPARE(std::get<int64_t>(row[1]), totals.first);
        QCOMPARE(std::get<double>(row[2]), double(totals.second) / 1e6);
    }
}

// The longest duration the store keeps is 2^61 - 1 ps: five of them overflow an integer sum,
// where SQLite stops with its error; totals past 2^53 ps are SQLite's floating-point sums.
// Neither is answered from the columns.
void TestColumnAggregate::sumsSqliteCouldNotRepeatRunThroughSqlite()
{
    const TracePtr t = testsupport::loadText(R"json({"traceEvents":[
{"ph":"X","name":"huge","pid":1,"tid":1,"ts":0,"dur":5000000000000},
{"ph":"X","name":"huge","pid":1,"tid":2,"ts":0,"dur":5000000000000},
{"ph":"X","name":"huge","pid":1,"tid":5,"ts":0,"dur":5000000000000},
{"ph":"X","name":"huge","pid":1,"tid":6,"ts":0,"dur":5000000000000},
{"ph":"X","name":"huge","pid":1,"tid":7,"ts":0,"dur":5000000000000},
{"ph":"X","name":"big","pid":1,"tid":3,"ts":0,"dur":5000000000},
{"ph":"X","name":"big","pid":1,"tid":3,"ts":6000000000,"dur":5000000000},
{"ph":"X","name":"big","pid":1,"tid":4,"ts":0,"dur":1}
]})json");
    QVERIFY(t);
    auto session = openSession(t);
    QVERIFY(session);
    auto overflow = runAs(*session, "SELECT name, sum(dur) FROM slices GROUP BY name", true);
    QVERIFY(!overflow.ok());
    QCOMPARE(overflow.message(), std::string("integer overflow"));
    QVERIFY(!session->lastColumnar());
    expectSqliteRows(*session, "SELECT name, total(dur), avg(dur) FROM slices GROUP BY name",
                     false);
    // Counts and extremes are exact whatever the sums: still answered from the columns.
    expectSqliteRows(*session,
                     "SELECT name, count(*), min(dur), max(end) FROM slices GROUP BY name", true);
}

void TestColumnAggregate::workersOverChunksGiveOneWorkersRows()
{
    QTemporaryDir dir;
    const TracePtr t = generated(dir, 40000);
    QVERIFY(t);
    const SqlContext context(t, nullptr);
    const std::string sql = "SELECT name, count(*), sum(dur), total(ts), min(end), max(id), "
                            "avg(depth) FROM slices GROUP BY name ORDER BY 3 DESC, 1";
    const auto plan = parseAggregatePlan(sql);
    QVERIFY(plan);
    auto one = runColumnAggregate(context, *plan, nullptr, 1);
    QVERIFY(one && one->ok());
    QVERIFY(one->value().size() > 10);
    for (unsigned threads : {2u, 3u, 5u}) {
        auto many = runColumnAggregate(context, *plan, nullptr, threads, 977);
        QVERIFY(many && many->ok());
        QVERIFY(many->value() == one->value());
    }
    auto session = openSession(t);
    QVERIFY(session);
    auto sqlite = runAs(*session, sql, false);
    QVERIFY(sqlite.ok());
    QVERIFY(sqlite.value().rows == one->value());
}

// Random statements of the plan's grammar over the generated trace: each is answered from the
// columns, with the rows SQLite gives for it with the key as the last ORDER BY term.
void TestColumnAggregate::randomStatementsAnswerAsSqliteDoes()
{
    QTemporaryDir dir;
    const TracePtr t = generated(dir, 40000);
    QVERIFY(t);
    auto session = openSession(t);
    QVERIFY(session);
    std::vector<std::string> names;
    for (size_t k = 0; k < t->kinds.size(); k += 7)
        names.push_back(std::string(t->string(t->kinds[k].name)));
    std::mt19937 rng(7);
    auto pick = [&](const auto &list) { return list[rng() % std::size(list)]; };
    const char *const columns[] = {"id", "track", "depth", "ts", "dur", "end"};
    const char *const functions[] = {"count", "sum", "total", "min", "max", "avg"};
    const char *const compares[] = {"=", "==", "!=", "<>", "<", "<=", ">", ">="};
    const char *const numbers[] = {"1", "3", "1000", "1e6", "2.0", "1000000000"};
    const char *const roles[] = {"'kernel'", "'runtime'", "''", "'memcpy'"};
    auto quoted = [](const std::string &s) {
        return s.find('\'') == std::string::npos ? "'" + s + "'" : std::string("'x'");
    };
    int answered = 0;
    for (int round = 0; round < 400; ++round) {
        const std::string key = rng() % 4 ? "name" : "category";
        std::vector<std::string> items;
        const int itemCount = 1 + int(rng() % 4);
        for (int k = 0; k < itemCount; ++k) {
            std::string item;
            if (rng() % 4 == 0)
                item = key;
            else if (rng() % 3 == 0)
                item = "count(*)";
            else
                item = std::string(pick(functions)) + "(" + pick(columns) + ")";
            if (item != key && rng() % 3 == 0)
                item += std::string(rng() % 2 ? " / " : " * ") + pick(numbers);
            if (rng() % 2)
                item += " AS a" + std::to_string(k);
            items.push_back(item);
        }
        std::string sql = "SELECT ";
        for (size_t k = 0; k < items.size(); ++k)
            sql += (k ? ", " : "") + items[k];
        sql += " FROM slices";
        const int tests = int(rng() % 4);
        for (int k = 0; k < tests; ++k) {
            sql += k ? " AND " : " WHERE ";
            switch (rng() % 4) {
            case 0:
                sql += std::string(pick(columns)) + " " + pick(compares) + " " +
                       std::to_string(int64_t(rng() % 2000000) * (rng() % 3 ? 1 : 1000) -
                                      int64_t(rng() % 2) * 1000);
                break;
            case 1:
                sql += std::string("role ") + (rng() % 2 ? "= " : "!= ") + pick(roles);
                break;
            case 2:
                sql += "name " + std::string(rng() % 2 ? "NOT IN (" : "IN (") +
                       quoted(pick(names)) + ", " + quoted(pick(names)) + ")";
                break;
            default:
                sql += "category " + std::string(rng() % 2 ? "= ''" : "<> 'x'");
                break;
            }
        }
        sql += " GROUP BY " + key;
        std::string order;
        const int terms = int(rng() % 3);
        for (int k = 0; k < terms; ++k) {
            order += k ? ", " : " ORDER BY ";
            order += rng() % 2 ? std::to_string(1 + rng() % items.size())
                               : std::string(pick(functions)) + "(" + pick(columns) + ")";
            order += rng() % 2 ? " DESC" : "";
        }
        const std::string limit =
            rng() % 3 ? "" : " LIMIT " + std::to_string(rng() % 20) + " OFFSET " +
                                 std::to_string(rng() % 5);
        const std::string reference =
            sql + (order.empty() ? "" : order + ", " + key) + limit;
        sql += order + limit;
        QVERIFY2(parseAggregatePlan(sql), sql.c_str());
        auto fast = runAs(*session, sql, true);
        const bool columnar = session->lastColumnar();
        auto slow = runAs(*session, reference, false);
        QVERIFY2(fast.ok() == slow.ok(), sql.c_str());
        if (!fast.ok())
            continue; // an integer overflow, which SQLite reported itself
        answered += columnar ? 1 : 0;
        QVERIFY2(fast.value().rows == slow.value().rows,
                 (sql + "\ncolumnar:\n" + rowsText(fast.value()) + "SQLite:\n" +
                  rowsText(slow.value()))
                     .c_str());
    }
    qInfo("%d of 400 answered from the columns", answered);
    QVERIFY(answered > 300);
}

void TestColumnAggregate::cancelAndEarlyStop()
{
    QTemporaryDir dir;
    const TracePtr t = generated(dir, 40000);
    QVERIFY(t);
    auto session = openSession(t);
    QVERIFY(session);
    const std::string sql = "SELECT name, count(*) FROM slices GROUP BY name";
    const std::atomic<bool> cancel{true};
    SqlRunOptions options;
    options.cancel = &cancel;
    auto cancelled = session->run(sql, options);
    QVERIFY(!cancelled.ok());
    QVERIFY(cancelled.isCancelled());
    size_t seen = 0;
    auto streamed = session->stream(
        sql, {}, [](const auto &) {}, [&](std::vector<SqlCell> &&) { return ++seen < 3; });
    QVERIFY(streamed.ok());
    QVERIFY(session->lastColumnar());
    QCOMPARE(streamed.value(), uint64_t(2));
}

// A temporary table named `slices` hides the store's: SQLite's answer is the table's.
void TestColumnAggregate::temporaryTableShadowsTheStore()
{
    const TracePtr t = testsupport::loadText(kTieTrace);
    QVERIFY(t);
    auto session = openSession(t);
    QVERIFY(session);
    QVERIFY(session->run("CREATE TEMP TABLE slices(name TEXT, dur INTEGER); "
                         "INSERT INTO slices VALUES ('only', 7), ('only', 5)")
                .ok());
    auto r = session->run("SELECT name, count(*), sum(dur) FROM slices GROUP BY name");
    QVERIFY(r.ok());
    QVERIFY(!session->lastColumnar());
    QCOMPARE(r.value().rows.size(), size_t(1));
    QCOMPARE(std::get<int64_t>(r.value().rows[0][2]), int64_t(12));
}

// SQLite reads a statement up to its first NUL; the session stops there too (it once waited
// forever for SQLite to move past it), with the columnar path or without.
void TestColumnAggregate::textEndsAtANul()
{
    const TracePtr t = testsupport::loadText(kTieTrace);
    QVERIFY(t);
    auto session = openSession(t);
    QVERIFY(session);
    using namespace std::string_literals;
    for (const std::string &sql :
         {"SELECT name FROM slices GROUP BY name/*c\0\0unt(P BY)"s,
          "SELECT name FROM slices GROUP BY name\0 ORDER BY nonsense"s,
          "SELECT name, total(dur) FROM slices WHERE dur > 0 GROUP BY name;\0;x"s}) {
        QVERIFY(sql.find('\0') != std::string::npos);
        for (bool columnar : {true, false}) {
            auto r = runAs(*session, sql, columnar);
            QVERIFY2(r.ok(), r.ok() ? "" : r.message().c_str());
            // Six names; the instant's is not among those of durations above 0.
            const bool positive = sql.find("dur > 0") != std::string::npos;
            QCOMPARE(r.value().rows.size(), size_t(positive ? 5 : 6));
        }
    }
}

QTEST_GUILESS_MAIN(TestColumnAggregate)
#include "tst_columnaggregate.moc"
