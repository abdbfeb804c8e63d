#include "core/io/nsys/nsysdatabase.h"

#include <sqlite3.h>

#include <algorithm>
#include <cstring>

namespace tracedesk::core::nsys {

namespace {

// A file URI for `path`: immutable=1 reads the file as it is, with no lock and no journal or
// WAL file created beside it (exports are often on read-only shares).
std::string immutableUri(const std::string &path)
{
    std::string uri = "file:";
    for (char c : path) {
        switch (c) {
        case '%': uri += "%25"; break;
        case '?': uri += "%3f"; break;
        case '#': uri += "%23"; break;
        default: uri += c;
        }
    }
    return uri + "?immutable=1";
}

std::string quoted(std::string_view identifier)
{
    std::string out = "\"";
    for (char c : identifier) {
        if (c == '"')
            out += '"';
        out += c;
    }
    return out + '"';
}

} // namespace

void NsysDatabase::Closer::operator()(sqlite3 *db) const
{
    sqlite3_close_v2(db);
}

Error NsysDatabase::sqliteError(const std::string &what) const
{
    const char *message = m_db ? sqlite3_errmsg(m_db.get()) : "out of memory";
    return fileError(m_name, what + " (" + message + ")");
}

Result<NsysDatabase> NsysDatabase::openFile(const std::string &path)
{
    NsysDatabase db;
    db.m_name = path;
    sqlite3 *raw = nullptr;
    const int rc = sqlite3_open_v2(immutableUri(path).c_str(), &raw,
                                   SQLITE_OPEN_READONLY | SQLITE_OPEN_URI | SQLITE_OPEN_NOMUTEX,
                                   nullptr);
    db.m_db.reset(raw);
    if (rc != SQLITE_OK)
        return db.sqliteError("cannot be opened as an SQLite database");
    return finishOpen(std::move(db));
}

Result<NsysDatabase> NsysDatabase::openBytes(const std::string &name, const void *data,
                                             size_t size)
{
    NsysDatabase db;
    db.m_name = name;
    sqlite3 *raw = nullptr;
    const int rc = sqlite3_open_v2(":memory:", &raw, SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOMUTEX,
                                   nullptr);
    db.m_db.reset(raw);
    if (rc != SQLITE_OK)
        return db.sqliteError("cannot be opened as an SQLite database");
    // SQLite frees the copy it is given (FREEONCLOSE), so it must come from sqlite3_malloc.
    auto *copy = static_cast<unsigned char *>(sqlite3_malloc64(size ? size : 1));
    if (!copy)
        return fileError(name, "is too large to read into memory");
    if (size)
        std::memcpy(copy, data, size);
    if (sqlite3_deserialize(raw, "main", copy, sqlite3_int64(size), sqlite3_int64(size),
                            SQLITE_DESERIALIZE_FREEONCLOSE | SQLITE_DESERIALIZE_READONLY)
        != SQLITE_OK)
        return db.sqliteError("cannot be read as an SQLite database");
    return finishOpen(std::move(db));
}

Result<NsysDatabase> NsysDatabase::finishOpen(NsysDatabase db)
{
    // Bound the work a hostile file can ask for: no recursive triggers or views are read, and a
    // corrupt page is an error rather than a guess.
    sqlite3_exec(db.handle(), "PRAGMA query_only=1; PRAGMA cell_size_check=1;", nullptr, nullptr,
                 nullptr);
    NsysQuery q(db, "SELECT name FROM sqlite_master WHERE type='table'");
    if (!q.prepared())
        return db.sqliteError("is not a readable SQLite database");
    while (q.next())
        db.m_tables.emplace(q.text(0));
    if (q.failed())
        return db.sqliteError("is not a readable SQLite database");
    return db;
}

bool NsysDatabase::hasTable(std::string_view table) const
{
    return m_tables.find(table) != m_tables.end();
}

uint64_t NsysDatabase::lastRowid(std::string_view table) const
{
    if (!hasTable(table))
        return 0;
    NsysQuery q(*this, "SELECT max(rowid) FROM " + quoted(table));
    return q.next() ? uint64_t(std::max<int64_t>(0, q.optInteger(0).value_or(0))) : 0;
}

bool NsysDatabase::hasColumn(std::string_view table, std::string_view column) const
{
    if (!hasTable(table))
        return false;
    auto it = m_columns.find(table);
    if (it == m_columns.end()) {
        it = m_columns.emplace(std::string(table), std::set<std::string, std::less<>>()).first;
        NsysQuery q(*this, "PRAGMA table_info(" + quoted(table) + ")");
        while (q.next())
            it->second.emplace(q.text(1));
    }
    return it->second.find(column) != it->second.end();
}

std::string NsysDatabase::firstTable(std::initializer_list<std::string_view> tables) const
{
    for (std::string_view t : tables) {
        if (hasTable(t))
            return std::string(t);
    }
    return {};
}

std::string NsysDatabase::selectList(std::string_view table,
                                     std::initializer_list<std::string_view> columns) const
{
    std::string out;
    for (std::string_view c : columns) {
        if (!out.empty())
            out += ", ";
        out += hasColumn(table, c) ? quoted(c) : std::string("NULL");
    }
    return out;
}

Result<bool> NsysDatabase::loadStrings()
{
    if (!hasColumn("StringIds", "id") || !hasColumn("StringIds", "value"))
        return false;
    NsysQuery q(*this, "SELECT id, value FROM StringIds");
    while (q.next()) {
        if (q.isNull(0))
            continue;
        const int64_t id = q.integer(0);
        // Ids are dense from 0 in every export; a stray large one is kept aside rather than
        // sizing a vector by it.
        if (id >= 0 && uint64_t(id) <= 4 * uint64_t(m_strings.size()) + 65536) {
            if (uint64_t(id) >= m_strings.size()) {
                m_strings.resize(size_t(id) + 1);
                m_hasString.resize(size_t(id) + 1, 0);
            }
            m_strings[size_t(id)] = std::string(q.text(1));
            m_hasString[size_t(id)] = 1;
        } else {
            m_sparseStrings[id] = std::string(q.text(1));
        }
    }
    if (q.failed())
        return sqliteError("has a StringIds table that cannot be read");
    return true;
}

std::optional<std::string_view> NsysDatabase::string(int64_t id) const
{
    if (id >= 0 && uint64_t(id) < m_strings.size() && m_hasString[size_t(id)])
        return std::string_view(m_strings[size_t(id)]);
    if (auto it = m_sparseStrings.find(id); it != m_sparseStrings.end())
        return std::string_view(it->second);
    return std::nullopt;
}

bool NsysDatabase::isNsysExport() const
{
    for (std::string_view t : {"StringIds", "META_DATA_EXPORT", "EXPORT_META_DATA",
                               "TARGET_INFO_SESSION_START_TIME", "CUPTI_ACTIVITY_KIND_RUNTIME",
                               "CUPTI_ACTIVITY_KIND_KERNEL", "NVTX_EVENTS"}) {
        if (hasTable(t))
            return true;
    }
    return false;
}

NsysQuery::NsysQuery(const NsysDatabase &db, const std::string &sql)
{
    if (sqlite3_prepare_v2(db.handle(), sql.c_str(), int(sql.size()), &m_stmt, nullptr)
        != SQLITE_OK) {
        m_stmt = nullptr;
        m_failed = true;
    }
}

NsysQuery::~NsysQuery()
{
    sqlite3_finalize(m_stmt);
}

bool NsysQuery::next()
{
    if (!m_stmt || m_failed)
        return false;
    const int rc = sqlite3_step(m_stmt);
    if (rc == SQLITE_ROW)
        return true;
    if (rc != SQLITE_DONE)
        m_failed = true;
    return false;
}

bool NsysQuery::isNull(int column) const
{
    return sqlite3_column_type(m_stmt, column) == SQLITE_NULL;
}

int64_t NsysQuery::integer(int column) const
{
    return sqlite3_column_int64(m_stmt, column);
}

std::optional<int64_t> NsysQuery::optInteger(int column) const
{
    if (isNull(column))
        return std::nullopt;
    return int64_t(sqlite3_column_int64(m_stmt, column));
}

double NsysQuery::real(int column) const
{
    return sqlite3_column_double(m_stmt, column);
}

std::string_view NsysQuery::text(int column) const
{
    const auto *p = reinterpret_cast<const char *>(sqlite3_column_text(m_stmt, column));
    if (!p)
        return {};
    return {p, size_t(sqlite3_column_bytes(m_stmt, column))};
}

} // namespace tracedesk::core::nsys
