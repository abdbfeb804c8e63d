#pragma once

// NsysDatabase: an Nsight Systems SQLite export opened read-only, with what its schema holds.
//
// `nsys export --type sqlite` creates a table only when the capture used it, and columns come
// and go between export schema versions (2.9.1 to 3.24 seen), so every reader question is "is
// this table / column here?" before a query; a missing one means "no such data". The export's
// own string table (StringIds) is read once and answers every id column.
//
// Owns one sqlite3 connection (no shared cache); one thread at a time. Opened from a file
// (immutable: never locks or writes next to it) or from bytes in memory (the fuzz target).

#include "core/base/result.h"

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

struct sqlite3;
struct sqlite3_stmt;

namespace tracedesk::core::nsys {

// The 16 bytes every SQLite 3 database file begins with.
inline constexpr std::string_view kSqliteMagic{"SQLite format 3\0", 16};

class NsysDatabase
{
public:
    static Result<NsysDatabase> openFile(const std::string &path);
    // `name` names the input in errors.
    static Result<NsysDatabase> openBytes(const std::string &name, const void *data, size_t size);

    const std::string &name() const { return m_name; }
    sqlite3 *handle() const { return m_db.get(); }

    bool hasTable(std::string_view table) const;
    const std::set<std::string, std::less<>> &tables() const { return m_tables; }
    // The table's largest rowid, read from its b-tree without a scan: its row count for a table
    // written once, as an export's are. 0 when it has none (or no rowid).
    uint64_t lastRowid(std::string_view table) const;
    bool hasColumn(std::string_view table, std::string_view column) const;
    // The first of `tables` this export has ("" when none): renamed tables across versions.
    std::string firstTable(std::initializer_list<std::string_view> tables) const;
    // "a, b, NULL, d": the columns in order, NULL for each this table lacks, so one row layout
    // serves every schema version.
    std::string selectList(std::string_view table,
                           std::initializer_list<std::string_view> columns) const;

    // The StringIds value of `id`; nullopt when the export has no such id.
    std::optional<std::string_view> string(int64_t id) const;
    // Loads StringIds; an error only when the table is there but cannot be read.
    Result<bool> loadStrings();

    // Whether this looks like an Nsight Systems export at all (and not another SQLite file).
    bool isNsysExport() const;
    // "<file>: <what> (<sqlite message>)".
    Error sqliteError(const std::string &what) const;

private:
    struct Closer
    {
        void operator()(sqlite3 *db) const;
    };
    static Result<NsysDatabase> finishOpen(NsysDatabase db);

    std::string m_name;
    std::unique_ptr<sqlite3, Closer> m_db;
    std::set<std::string, std::less<>> m_tables;
    mutable std::map<std::string, std::set<std::string, std::less<>>, std::less<>> m_columns;
    std::vector<std::string> m_strings;
    std::vector<uint8_t> m_hasString;
    std::map<int64_t, std::string> m_sparseStrings;   // ids beyond the dense range
};

// A prepared statement stepped row by row; columns read by index, NULL-aware.
class NsysQuery
{
public:
    NsysQuery(const NsysDatabase &db, const std::string &sql);
    ~NsysQuery();
    NsysQuery(const NsysQuery &) = delete;
    NsysQuery &operator=(const NsysQuery &) = delete;

    bool prepared() const { return m_stmt != nullptr; }
    // True while there is a row; false at the end or on error (see failed()).
    bool next();
    bool failed() const { return m_failed; }

    bool isNull(int column) const;
    int64_t integer(int column) const;
    std::optional<int64_t> optInteger(int column) const;
    std::string_view text(int column) const;
    double real(int column) const;

private:
    sqlite3_stmt *m_stmt = nullptr;
    bool m_failed = false;
};

} // namespace tracedesk::core::nsys
