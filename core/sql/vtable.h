#pragma once

// The C++ side of SQLite's virtual-table interface: a table describes its columns and how a
// set of constraints narrows its scan (xBestIndex), a cursor walks the narrowed rows. Tables are
// registered as eponymous-only modules, so `SELECT ... FROM slices` works without any
// CREATE VIRTUAL TABLE and nothing is copied into SQLite.
//
// Internal to core/sql. A table object must outlive the connection it is registered with; a
// cursor lives from xOpen to xClose on the connection's thread. No C++ exception crosses into
// SQLite: the glue turns one into SQLITE_ERROR (or SQLITE_NOMEM).

#include <sqlite3.h>

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace tracedesk::core::sql {

struct SqlColumn
{
    const char *name;
    const char *type; // INTEGER, REAL or TEXT
    const char *doc;
};

class SqlCursor
{
public:
    virtual ~SqlCursor() = default;
    // idxNum / idxStr are what bestIndex() chose; argv the constraint values in argvIndex order.
    virtual void filter(int idxNum, const char *idxStr, int argc, sqlite3_value **argv) = 0;
    virtual void next() = 0;
    virtual bool eof() const = 0;
    virtual void column(sqlite3_context *ctx, int column) = 0;
    virtual int64_t rowid() const = 0;
};

class SqlTable
{
public:
    virtual ~SqlTable() = default;
    virtual const char *name() const = 0;
    virtual const char *doc() const = 0;
    virtual const std::vector<SqlColumn> &columns() const = 0;
    // Rows a full scan visits (may be an estimate for tables computed on first use).
    virtual double fullScanRows() const = 0;
    // Default: a full scan, nothing consumed.
    virtual void bestIndex(sqlite3_index_info *info) const;
    virtual std::unique_ptr<SqlCursor> open() const = 0;

    std::string declaration() const; // CREATE TABLE x(...) for sqlite3_declare_vtab
};

// Registers `table` as the eponymous-only module `table->name()`. Returns SQLite's code.
int registerTable(sqlite3 *db, const SqlTable *table);

// Constraint values as bounds on an integer column: a superset of the rows SQLite asks for, so
// SQLite's own re-check (omit stays 0) gives the exact answer. Non-numeric values are ignored.
struct IntRange
{
    int64_t lo = INT64_MIN; // inclusive
    int64_t hi = INT64_MAX; // inclusive
    bool empty() const { return lo > hi; }
    void apply(unsigned char op, sqlite3_value *value);
    // The same bounds on values `by` higher (SQL times are from the trace's start, the store's
    // from its own origin); an open end stays open, and nothing wraps.
    IntRange shifted(int64_t by) const
    {
        auto move = [by](int64_t v, int64_t open) {
            if (v == open)
                return v;
            if (by > 0 && v > INT64_MAX - by)
                return INT64_MAX;
            if (by < 0 && v < INT64_MIN - by)
                return INT64_MIN;
            return v + by;
        };
        return {move(lo, INT64_MIN), move(hi, INT64_MAX)};
    }
};

// Sets the result from a string_view-like pointer and length that outlives the statement.
inline void resultStaticText(sqlite3_context *ctx, const char *data, size_t size)
{
    sqlite3_result_text(ctx, data ? data : "", int(size), SQLITE_STATIC);
}

} // namespace tracedesk::core::sql
