// Fuzzes parseAggregatePlan(): SQL text typed by users, which decides whether a statement is
// answered from the store's columns instead of by SQLite. Whatever it accepts must be answered
// as SQLite answers it over a small trace: both fail or both succeed, with the same rows (as a
// multiset: rows tied on every ORDER BY term may be listed in another order, columnaggregate.h)
// and the same number of them under LIMIT.

#include "core/io/chromejsonreader.h"
#include "core/sql/aggregateplan.h"
#include "core/sql/sqlsession.h"

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>

namespace {

using namespace tracedesk::core;
using namespace tracedesk::core::sql;

const char *const kTrace = R"json({"traceEvents":[
{"ph":"X","cat":"a","name":"beta","pid":1,"tid":1,"ts":0,"dur":10},
{"ph":"X","cat":"a","name":"alpha","pid":1,"tid":1,"ts":20,"dur":10},
{"ph":"X","cat":"b","name":"Alpha","pid":1,"tid":1,"ts":22,"dur":5},
{"ph":"X","cat":"b","name":"gamma","pid":1,"tid":2,"ts":0,"dur":10},
{"ph":"X","cat":"b","name":"beta","pid":1,"tid":2,"ts":15,"dur":3},
{"ph":"X","cat":"c","name":"delta","pid":2,"tid":2,"ts":16,"dur":1},
{"ph":"i","cat":"c","name":"mark","pid":1,"tid":2,"ts":31,"s":"t"}
]})json";

SqlSession &session()
{
    static std::unique_ptr<SqlSession> s = [] {
        auto trace = readChromeJsonBytes("fuzz.json", kTrace, std::strlen(kTrace), nullptr,
                                         LoadOptions{});
        if (!trace)
            std::abort();
        auto opened = SqlSession::open(std::move(trace).value());
        if (!opened)
            std::abort();
        return std::move(opened).value();
    }();
    return *s;
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size > 4096)
        return 0;
    const std::string sql(reinterpret_cast<const char *>(data), size);
    const auto plan = parseAggregatePlan(sql);
    if (!plan)
        return 0;
    SqlRunOptions options;
    auto columnar = session().run(sql, options);
    const bool answered = session().lastColumnar();
    options.columnar = false;
    auto sqlite = session().run(sql, options);
    if (columnar.ok() != sqlite.ok())
        std::abort();
    if (!columnar.ok() || !answered)
        return 0;
    auto a = std::move(columnar).value().rows;
    auto b = std::move(sqlite).value().rows;
    if (a.size() != b.size())
        std::abort();
    if (!plan->limit && plan->offset == 0) {
        std::sort(a.begin(), a.end());
        std::sort(b.begin(), b.end());
        if (a != b)
            std::abort();
    }
    return 0;
}
