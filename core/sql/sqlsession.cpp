#include "core/sql/sqlsession.h"

#include "core/sql/aggregateplan.h"
#include "core/sql/columnaggregate.h"
#include "core/sql/groupsplit.h"
#include "core/sql/sqltext.h"
#include "core/sql/tables.h"

#include <sqlite3.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <optional>
#include <thread>

namespace tracedesk::core::sql {

namespace {
// What SQLite's progress handler polls: the caller's flag and a split run's own stop.
struct StopFlags
{
    const std::atomic<bool> *cancel = nullptr;
    const std::atomic<bool> *stop = nullptr;
};
} // namespace

struct SqlSession::Impl
{
    SqlContext context;
    std::vector<std::unique_ptr<SqlTable>> tables;
    sqlite3 *db = nullptr;
    StopFlags stopFlags;
    unsigned lastParts = 1;
    bool lastColumnar = false;
    // A statement that may have changed the connection (groupsplit.h) ran: split nothing.
    bool changedConnection = false;
    // Connections for the other parts of a split run, made on first use.
    std::vector<std::unique_ptr<Impl>> helpers;

    Impl(TracePtr trace, std::shared_ptr<analysis::AnalysisCache> cache)
        : context(std::move(trace), std::move(cache))
    {}
    ~Impl()
    {
        if (db)
            sqlite3_close_v2(db);
    }

    static Result<std::unique_ptr<Impl>> connect(TracePtr trace,
                                                 std::shared_ptr<analysis::AnalysisCache> cache);
    // How many parts `stmt` runs as (1: as usual).
    unsigned partsFor(sqlite3_stmt *stmt, const SqlRunOptions &options);
    // Answers `stmt` from the store's columns when it has an AggregatePlan; empty otherwise.
    std::optional<Result<uint64_t>> runColumnar(sqlite3_stmt *stmt, const SqlRunOptions &options,
                                                const RowSink &onRow);
    // Runs `stmt` split into `parts` parts (groupsplit.h), delivering rows as stream() does.
    // Empty when the other connections could not take it: then run it as usual.
    std::optional<Result<uint64_t>> runSplit(sqlite3_stmt *stmt, unsigned parts,
                                             const SqlRunOptions &options, const RowSink &onRow);
};

namespace {

// Minimum slices for a split run: below it a grouped statement takes a fraction of a second.
constexpr uint64_t kSplitMinSlices = uint64_t(1) << 20;
constexpr unsigned kMaxGroupParts = 8;

// Called by SQLite every few thousand VM steps; non-zero stops the statement (SQLITE_INTERRUPT).
int progress(void *data)
{
    const auto *flags = static_cast<const StopFlags *>(data);
    const auto set = [](const std::atomic<bool> *f) {
        return f && f->load(std::memory_order_relaxed);
    };
    return set(flags->cancel) || set(flags->stop) ? 1 : 0;
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

// A statement that ended with `rc`: cancelled when the progress handler stopped it, else the
// error with SQLite's message.
Result<uint64_t> failure(int rc, std::string message)
{
    if (rc == SQLITE_INTERRUPT)
        return Result<uint64_t>::cancelled();
    return Error{std::move(message)};
}

std::vector<SqlCell> rowOf(sqlite3_stmt *stmt, int columns)
{
    std::vector<SqlCell> row;
    row.reserve(size_t(columns));
    for (int c = 0; c < columns; ++c)
        row.push_back(cellOf(stmt, c));
    return row;
}

} // namespace

Result<std::unique_ptr<SqlSession::Impl>>
SqlSession::Impl::connect(TracePtr trace, std::shared_ptr<analysis::AnalysisCache> cache)
{
    auto impl = std::make_unique<Impl>(std::move(trace), std::move(cache));
    // A private in-memory database; no mutexes since a connection stays on one thread.
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
    sqlite3_progress_handler(impl->db, 10000, progress, &impl->stopFlags);
    return impl;
}

SqlSession::SqlSession(std::unique_ptr<Impl> impl)
    : m_impl(std::move(impl))
{}

SqlSession::~SqlSession() = default;

const Trace &SqlSession::trace() const
{
    return m_impl->context.trace();
}

unsigned SqlSession::lastParts() const
{
    return m_impl->lastParts;
}

bool SqlSession::lastColumnar() const
{
    return m_impl->lastColumnar;
}

Result<std::unique_ptr<SqlSession>> SqlSession::open(TracePtr trace,
                                                     std::shared_ptr<analysis::AnalysisCache> cache)
{
    if (!trace)
        return Error{"sql: no trace loaded"};
    auto impl = Impl::connect(std::move(trace), std::move(cache));
    if (!impl)
        return impl.error();
    return std::unique_ptr<SqlSession>(new SqlSession(std::move(impl).value()));
}

unsigned SqlSession::Impl::partsFor(sqlite3_stmt *stmt, const SqlRunOptions &options)
{
    unsigned parts = options.groupParts;
    if (changedConnection)
        return 1;
    if (parts == 0) {
        if (context.ids().total() < kSplitMinSlices)
            return 1;
        parts = std::thread::hardware_concurrency();
    }
    parts = std::min(parts, kMaxGroupParts);
    return parts > 1 && splitsByGroups(db, stmt) ? parts : 1;
}

std::optional<Result<uint64_t>> SqlSession::Impl::runColumnar(sqlite3_stmt *stmt,
                                                              const SqlRunOptions &options,
                                                              const RowSink &onRow)
{
    // A statement that changed the connection may have shadowed `slices` (a temporary table).
    if (!options.columnar || changedConnection)
        return std::nullopt;
    const auto plan = parseAggregatePlan(sqlite3_sql(stmt));
    if (!plan || plan->resultColumns != size_t(sqlite3_column_count(stmt)))
        return std::nullopt;
    auto rows = runColumnAggregate(context, *plan, options.cancel,
                                   std::clamp(std::thread::hardware_concurrency(), 1u,
                                              kMaxGroupParts));
    if (!rows)
        return std::nullopt;
    if (!*rows)
        return Result<uint64_t>(rows->error());
    uint64_t delivered = 0;
    for (auto &row : rows->value()) {
        if (!onRow(std::move(row)))
            break;
        ++delivered;
    }
    return delivered;
}

std::optional<Result<uint64_t>> SqlSession::Impl::runSplit(sqlite3_stmt *stmt, unsigned parts,
                                                           const SqlRunOptions &options,
                                                           const RowSink &onRow)
{
    // Each other part: a connection of its own with the same statement, which must plan the
    // same way.
    const std::string text = sqlite3_sql(stmt);
    std::vector<sqlite3_stmt *> others;
    struct Finalize
    {
        std::vector<sqlite3_stmt *> &stmts;
        ~Finalize()
        {
            for (sqlite3_stmt *s : stmts)
                sqlite3_finalize(s);
        }
    } finalize{others};
    for (unsigned k = 1; k < parts; ++k) {
        if (helpers.size() < k) {
            auto helper = connect(context.tracePtr(), context.sharedCache());
            if (!helper)
                return std::nullopt;
            helpers.push_back(std::move(helper).value());
        }
        Impl &helper = *helpers[k - 1];
        sqlite3_stmt *other = nullptr;
        if (sqlite3_prepare_v2(helper.db, text.c_str(), int(text.size()), &other, nullptr) !=
                SQLITE_OK ||
            !other) {
            sqlite3_finalize(other);
            return std::nullopt;
        }
        others.push_back(other);
        if (!splitsByGroups(helper.db, other))
            return std::nullopt;
    }

    std::atomic<bool> stop{false};
    struct PartRows
    {
        std::vector<std::vector<SqlCell>> rows;
        int rc = SQLITE_DONE;
        std::string error;
    };
    std::vector<PartRows> out(others.size());
    const int columns = sqlite3_column_count(stmt);
    std::vector<std::thread> threads;
    // However this run ends (a throwing row sink included), the other parts stop and are
    // waited for before their rows and flags go.
    struct JoinParts
    {
        JoinParts(Impl &self, std::atomic<bool> &stop, std::vector<std::thread> &threads)
            : self(self), stop(stop), threads(threads)
        {}
        JoinParts(const JoinParts &) = delete;
        JoinParts &operator=(const JoinParts &) = delete;
        Impl &self;
        std::atomic<bool> &stop;
        std::vector<std::thread> &threads;
        bool letFinish = false; // else the parts are stopped
        ~JoinParts()
        {
            if (!letFinish)
                stop = true;
            for (std::thread &t : threads)
                t.join();
            self.context.setGroupPart({});
            for (auto &helper : self.helpers) {
                helper->context.setGroupPart({});
                helper->stopFlags = {};
            }
        }
    };
    std::optional<JoinParts> join(std::in_place, *this, stop, threads);
    for (size_t k = 0; k < others.size(); ++k) {
        Impl &helper = *helpers[k];
        helper.context.setGroupPart({uint32_t(k + 1), parts});
        helper.stopFlags = {options.cancel, &stop};
        threads.emplace_back([&helper, other = others[k], &part = out[k], columns] {
            try {
                int rc;
                while ((rc = sqlite3_step(other)) == SQLITE_ROW)
                    part.rows.push_back(rowOf(other, columns));
                part.rc = rc;
                if (rc != SQLITE_DONE)
                    part.error = sqlite3_errmsg(helper.db);
            } catch (const std::exception &e) {
                part.rc = SQLITE_ERROR;
                part.error = e.what();
            }
        });
    }
    context.setGroupPart({0, parts});
    uint64_t rows = 0;
    bool stopped = false;
    int rc;
    while (!stopped && (rc = sqlite3_step(stmt)) == SQLITE_ROW) {
        stopped = !onRow(rowOf(stmt, columns));
        rows += stopped ? 0 : 1;
    }
    const std::string error = !stopped && rc != SQLITE_DONE ? sqlite3_errmsg(db) : "";
    join->letFinish = !stopped && error.empty();
    join.reset();
    if (!error.empty())
        return failure(rc, error);
    // The parts' rows in part order, as one run would have given them.
    for (PartRows &part : out) {
        for (auto &row : part.rows) {
            if (!onRow(std::move(row))) {
                stopped = true;
                break;
            }
            ++rows;
        }
        if (stopped)
            break;
        if (part.rc != SQLITE_DONE)
            return failure(part.rc, part.error);
    }
    return rows;
}

Result<uint64_t> SqlSession::stream(std::string_view sql, const SqlRunOptions &options,
                                    const ColumnsSink &onColumns, const RowSink &onRow)
{
    sqlite3 *db = m_impl->db;
    m_impl->stopFlags.cancel = options.cancel;
    struct Reset
    {
        const std::atomic<bool> *&cancel;
        ~Reset() { cancel = nullptr; }
    } reset{m_impl->stopFlags.cancel};
    // SQLite reads a statement's text up to its first NUL: so does the session, or a NUL would
    // end every prepare there without moving on.
    const std::string text(sql.substr(0, sql.find('\0')));
    const char *tail = text.c_str();
    const char *const end = text.c_str() + text.size();
    uint64_t rows = 0;
    bool sawLast = false;
    m_impl->lastParts = 1;
    m_impl->lastColumnar = false;
    while (tail < end && !sawLast) {
        sqlite3_stmt *stmt = nullptr;
        const char *const from = tail;
        int rc = sqlite3_prepare_v2(db, tail, int(end - tail), &stmt, &tail);
        if (rc != SQLITE_OK)
            return failure(rc, sqlite3_errmsg(db));
        if (!stmt && tail == from)
            break; // nothing more SQLite would read
        if (!stmt)
            continue; // whitespace or a comment
        // Only the last statement's rows are delivered; earlier ones just run.
        sawLast = skipTrivia(std::string_view(tail, size_t(end - tail))).empty();
        if (!leavesConnectionAsIs(stmt))
            m_impl->changedConnection = true;
        const int columns = sqlite3_column_count(stmt);
        if (sawLast) {
            std::vector<std::string> names;
            for (int c = 0; c < columns; ++c) {
                const char *name = sqlite3_column_name(stmt, c);
                names.emplace_back(name ? name : "");
            }
            onColumns(names);
            if (auto answered = m_impl->runColumnar(stmt, options, onRow)) {
                m_impl->lastColumnar = true;
                sqlite3_finalize(stmt);
                return std::move(*answered);
            }
            if (const unsigned parts = m_impl->partsFor(stmt, options); parts > 1) {
                auto split = m_impl->runSplit(stmt, parts, options, onRow);
                if (split) {
                    m_impl->lastParts = parts;
                    sqlite3_finalize(stmt);
                    return std::move(*split);
                }
            }
        }
        bool stopped = false;
        while (!stopped && (rc = sqlite3_step(stmt)) == SQLITE_ROW) {
            if (!sawLast)
                continue;
            stopped = !onRow(rowOf(stmt, columns));
            rows += stopped ? 0 : 1;
        }
        if (!stopped && rc != SQLITE_DONE) {
            std::string message = sqlite3_errmsg(db);
            sqlite3_finalize(stmt);
            return failure(rc, std::move(message));
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
