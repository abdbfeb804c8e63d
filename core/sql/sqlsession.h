#pragma once

// SqlSession: SQL (SQLite) over one loaded trace. Opens a private in-memory SQLite database and
// registers the schema's virtual tables (README "SQL"; schemaText()) over the store, so nothing
// is copied: `slices` reads the rows' columns in place and narrows `ts` / `end` / `track` / `id`
// constraints by binary search.
//
// Thread rules: one session per thread. run() blocks its caller; another thread may stop it
// through the `cancel` flag of SqlRunOptions (checked by SQLite's progress handler). The trace
// is kept alive by the session and only read. A grouped aggregate may run on threads of the
// session's own besides the caller's, each on a connection of its own (groupsplit.h).

#include "core/base/result.h"
#include "core/model/trace.h"
#include "core/sql/sqlresult.h"

#include <atomic>
#include <cstddef>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace tracedesk::core::analysis {
class AnalysisCache;
}

namespace tracedesk::core::sql {

struct SqlRunOptions
{
    size_t rowLimit = 0;                       // 0: all rows; else keep the first N
    const std::atomic<bool> *cancel = nullptr; // set from any thread to stop the run
    // A last statement that aggregates each group of a grouped `slices` scan on its own runs
    // as this many parts on as many threads (groupsplit.h). 0: one per core, for traces of a
    // million slices or more; 1: never split.
    unsigned groupParts = 0;
    // A last statement with an AggregatePlan (aggregateplan.h) is answered from the store's
    // columns, on one thread per core, instead of by SQLite; false: always by SQLite.
    bool columnar = true;
};

class SqlSession
{
public:
    // `cache` shares analyses already computed for this trace (kernels, op_stats, steps);
    // null makes a private one.
    static Result<std::unique_ptr<SqlSession>>
    open(TracePtr trace, std::shared_ptr<analysis::AnalysisCache> cache = {});
    ~SqlSession();
    SqlSession(const SqlSession &) = delete;
    SqlSession &operator=(const SqlSession &) = delete;

    // Runs every statement of `sql` in turn; returns the columns and rows of the last one (at
    // most options.rowLimit rows, `truncated` when more existed). Errors carry SQLite's own
    // message ("near \"SELEC\": syntax error", "no such column: x"); a cancelled run returns
    // Result::cancelled().
    Result<QueryResult> run(std::string_view sql, const SqlRunOptions &options = {});

    // Like run() without keeping rows: the last statement's column names go to onColumns, then
    // each row to onRow, which returns false to stop early. Returns the rows delivered.
    // options.rowLimit is not applied here. For output larger than memory (the CLI's CSV).
    using ColumnsSink = std::function<void(const std::vector<std::string> &)>;
    using RowSink = std::function<bool(std::vector<SqlCell> &&)>;
    Result<uint64_t> stream(std::string_view sql, const SqlRunOptions &options,
                            const ColumnsSink &onColumns, const RowSink &onRow);

    const Trace &trace() const;
    // How many parts the last statement of the latest run() or stream() ran as (groupsplit.h).
    unsigned lastParts() const;
    // Whether the last statement of the latest run() or stream() was answered from the store's
    // columns (columnaggregate.h).
    bool lastColumnar() const;

    // The documented schema: each table, its columns with type and meaning, and the units.
    static std::string schemaText();

private:
    struct Impl;
    explicit SqlSession(std::unique_ptr<Impl> impl);
    std::unique_ptr<Impl> m_impl;
};

} // namespace tracedesk::core::sql
