#include "core/sql/sqlsession.h"

#include "core/sql/tables.h"

#include <sqlite3.h>

#include <algorithm>
#include <cctype>
#include <chrono>
#include <cstdio>

namespace tracedesk::core::sql {

struct SqlSession::Impl
{
    SqlContext context;
    std::vector<std::unique_ptr<SqlTable>> tables;
    sqlite3 *db = nullptr;
    const std::atomic<bool> *cancel = nullptr;

    Impl(TracePtr trace, std::shared_ptr<analysis::AnalysisCache> cache)
        : context(std::move(trace), std::move(cache))
    {}
    ~Impl()
    {
        if (db)
            sqlite3_close_v2(db);
    }
};

namespace {

// Called by SQLite every few thousand VM steps; non-zero stops the statement (SQLITE_INTERRUPT).
int progress(void *data)
{
    const auto *flag = *static_cast<const std::atomic<bool> *const *>(data);
    return flag && flag->load(std::memory_order_relaxed) ? 1 : 0;
}

SqlCell cellOf(sqlite3_stmt *stmt, int column)
{
    switch (sqlite3_column_type(stmt, column)) {
    case SQLITE_INTEGER:
        return int64_t(sqlite3_column_int64(stmt, column));
    case SQLITE_FLOAT:
        return sqlite3_column_double(stmt, column);
    case SQLITE_TEXT: {
        const auto *p = reinterpret_cast<const char *>(sqlite3_column_text(stmt, column));
        return std::string(p ? p : "", size_t(sqlite3_column_bytes(stmt, column)));
    }
    case SQLITE_BLOB: {
        const auto *p = static_cast<const char *>(sqlite3_column_blob(stmt, column));
        return std::string(p ? p : "", size_t(sqlite3_column_bytes(stmt, column)));
    }
    default:
        return SqlCell{};
    }
}

} // namespace

SqlSession::SqlSession(std::unique_ptr<Impl> impl)
    : m_impl(std::move(impl))
{}

SqlSession::~SqlSession() = default;

const Trace &SqlSession::trace() const
{
    return m_impl->context.trace();
}

Result<std::unique_ptr<SqlSession>> SqlSession::open(TracePtr trace,
                                                     std::shared_ptr<analysis::AnalysisCache> cache)
{
    if (!trace)
        return Error{"sql: no trace loaded"};
    auto impl = std::make_unique<Impl>(std::move(trace), std::move(cache));
    // A private in-memory database; no mutexes since a session stays on one thread.
    int rc = sqlite3_open_v2(":memory:", &impl->db,
                             SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX |
                                 SQLITE_OPEN_PRIVATECACHE,
                             nullptr);
    if (rc != SQLITE_OK)
        return Error{std::string("sql: cannot open SQLite: ") + sqlite3_errstr(rc)};
    impl->tables = makeAllTables(impl->context);
    for (const auto &table : impl->tables) {
        rc = registerTable(impl->db, table.get());
        if (rc != SQLITE_OK)
            return Error{std::string("sql: cannot register table ") + table->name() + ": " +
                         sqlite3_errmsg(impl->db)};
    }
    // Temporary b-trees and sorters (GROUP BY, ORDER BY) spill to files beyond a small cache,
    // so a query over millions of slices does not grow the process by their size.
    sqlite3_exec(impl->db, "PRAGMA temp_store = FILE; PRAGMA cache_size = -2048;", nullptr, nullptr,
                 nullptr);
    sqlite3_progress_handler(impl->db, 10000, progress, &impl->cancel);
    return std::unique_ptr<SqlSession>(new SqlSession(std::move(impl)));
}

namespace {

// True when `text` holds nothing but whitespace, semicolons and comments.
bool onlyTrivia(const char *p, const char *end)
{
    while (p < end) {
        if (std::isspace(static_cast<unsigned char>(*p)) || *p == ';') {
            ++p;
        } else if (p + 1 < end && p[0] == '-' && p[1] == '-') {
            while (p < end && *p != '\n')
                ++p;
        } else if (p + 1 < end && p[0] == '/' && p[1] == '*') {
            p += 2;
            while (p + 1 < end && !(p[0] == '*' && p[1] == '/'))
                ++p;
            p = std::min(end, p + 2);
        } else {
            return false;
        }
    }
    return true;
}

} // namespace

Result<uint64_t> SqlSession::stream(std::string_view sql, const SqlRunOptions &options,
                                    const ColumnsSink &onColumns, const RowSink &onRow)
{
    sqlite3 *db = m_impl->db;
    m_impl->cancel = options.cancel;
    struct Reset
    {
        const std::atomic<bool> *&cancel;
        ~Reset() { cancel = nullptr; }
    } reset{m_impl->cancel};
    const std::string text(sql);
    const char *tail = text.c_str();
    const char *const end = text.c_str() + text.size();
    uint64_t rows = 0;
    bool sawLast = false;
    while (tail < end && !sawLast) {
        sqlite3_stmt *stmt = nullptr;
        int rc = sqlite3_prepare_v2(db, tail, int(end - tail), &stmt, &tail);
        if (rc != SQLITE_OK) {
            if (rc == SQLITE_INTERRUPT)
                return Result<uint64_t>::cancelled();
            return Error{sqlite3_errmsg(db)};
        }
        if (!stmt)
            continue; // whitespace or a comment
        // Only the last statement's rows are delivered; earlier ones just run.
        sawLast = onlyTrivia(tail, end);
        const int columns = sqlite3_column_count(stmt);
        if (sawLast) {
            std::vector<std::string> names;
            for (int c = 0; c < columns; ++c) {
                const char *name = sqlite3_column_name(stmt, c);
                names.emplace_back(name ? name : "");
            }
            onColumns(names);
        }
        bool stopped = false;
        while (!stopped && (rc = sqlite3_step(stmt)) == SQLITE_ROW) {
            if (!sawLast)
                continue;
            std::vector<SqlCell> row;
            row.reserve(size_t(columns));
            for (int c = 0; c < columns; ++c)
                row.push_back(cellOf(stmt, c));
            stopped = !onRow(std::move(row));
            rows += stopped ? 0 : 1;
        }
        if (!stopped && rc != SQLITE_DONE) {
            std::string message = sqlite3_errmsg(db);
            sqlite3_finalize(stmt);
            if (rc == SQLITE_INTERRUPT)
                return Result<uint64_t>::cancelled();
            return Error{message};
        }
        sqlite3_finalize(stmt);
    }
    return rows;
}

Result<QueryResult> SqlSession::run(std::string_view sql, const SqlRunOptions &options)
{
    const auto started = std::chrono::steady_clock::now();
    QueryResult result;
    auto streamed = stream(
        sql, options, [&](const std::vector<std::string> &columns) { result.columns = columns; },
        [&](std::vector<SqlCell> &&row) {
            if (options.rowLimit && result.rows.size() >= options.rowLimit) {
                result.truncated = true;
                return false;
            }
            result.rows.push_back(std::move(row));
            return true;
        });
    if (!streamed)
        return streamed.error();
    result.seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
    return result;
}

} // namespace tracedesk::core::sql
