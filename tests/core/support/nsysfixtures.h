#pragma once

// Nsight Systems SQLite exports read independently of the reader under test: the tests ask the
// file itself with SQL through SQLite's C API, so every expectation is counted from the raw
// tables, never from what the reader built.

#include <QString>
#include <QStringList>

#include <sqlite3.h>

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace testsupport {

inline QString nsysFixtureDir()
{
    return QString(TRACEDESK_SHARED_FIXTURES) + "/nsys_sqlite/";
}

// Every export of the shared fixtures, schema 2.9.1 to 3.24.
inline QStringList nsysFixtureNames()
{
    return {"pipit__saxpy-mpi-cuda_nsys_perlmutter0.sqlite",
            "haroonsyed-SGEMM__report1.sqlite",
            "pipit__perlmutter-cloverleaf-cuda.sqlite",
            "NVIDIA-Fuser__report2.sqlite",
            "NVIDIA-Fuser__report1.sqlite",
            "nsys-ai__mock.sqlite"};
}

// A read-only connection for the test's own queries.
class RawDb
{
public:
    explicit RawDb(const std::string &path)
    {
        const std::string uri = "file:" + path + "?immutable=1";
        if (sqlite3_open_v2(uri.c_str(), &m_db, SQLITE_OPEN_READONLY | SQLITE_OPEN_URI, nullptr)
            != SQLITE_OK) {
            sqlite3_close(m_db);
            m_db = nullptr;
        }
    }
    ~RawDb() { sqlite3_close(m_db); }
    RawDb(const RawDb &) = delete;
    RawDb &operator=(const RawDb &) = delete;

    bool ok() const { return m_db != nullptr; }
    sqlite3 *handle() const { return m_db; }

    bool hasTable(const std::string &table) const
    {
        return scalar("SELECT count(*) FROM sqlite_master WHERE type='table' AND name='" + table
                      + "'")
               > 0;
    }
    // The first column of the first row as an integer; -1 on error, 0 for NULL.
    int64_t scalar(const std::string &sql) const
    {
        sqlite3_stmt *s = nullptr;
        if (sqlite3_prepare_v2(m_db, sql.c_str(), -1, &s, nullptr) != SQLITE_OK)
            return -1;
        int64_t v = -1;
        if (sqlite3_step(s) == SQLITE_ROW)
            v = sqlite3_column_int64(s, 0);
        sqlite3_finalize(s);
        return v;
    }
    int64_t count(const std::string &table, const std::string &where = {}) const
    {
        if (!hasTable(table))
            return 0;
        return scalar("SELECT count(*) FROM " + table + (where.empty() ? "" : " WHERE " + where));
    }
    // First column (text) -> second column (integer) of every row.
    std::map<std::string, int64_t> textToInt(const std::string &sql) const
    {
        std::map<std::string, int64_t> out;
        sqlite3_stmt *s = nullptr;
        if (sqlite3_prepare_v2(m_db, sql.c_str(), -1, &s, nullptr) != SQLITE_OK)
            return out;
        while (sqlite3_step(s) == SQLITE_ROW) {
            const auto *t = reinterpret_cast<const char *>(sqlite3_column_text(s, 0));
            out[t ? t : ""] += sqlite3_column_int64(s, 1);
        }
        sqlite3_finalize(s);
        return out;
    }
    std::map<int64_t, int64_t> intToInt(const std::string &sql) const
    {
        std::map<int64_t, int64_t> out;
        sqlite3_stmt *s = nullptr;
        if (sqlite3_prepare_v2(m_db, sql.c_str(), -1, &s, nullptr) != SQLITE_OK)
            return out;
        while (sqlite3_step(s) == SQLITE_ROW)
            out[sqlite3_column_int64(s, 0)] += sqlite3_column_int64(s, 1);
        sqlite3_finalize(s);
        return out;
    }

private:
    sqlite3 *m_db = nullptr;
};

// Writes a database for edge cases: `sql` is run as one script.
inline bool writeDb(const std::string &path, const std::string &sql)
{
    sqlite3 *db = nullptr;
    if (sqlite3_open(path.c_str(), &db) != SQLITE_OK) {
        sqlite3_close(db);
        return false;
    }
    const bool ok = sqlite3_exec(db, sql.c_str(), nullptr, nullptr, nullptr) == SQLITE_OK;
    sqlite3_close(db);
    return ok;
}

} // namespace testsupport
