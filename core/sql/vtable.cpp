#include "core/sql/vtable.h"

#include <cmath>
#include <new>

namespace tracedesk::core::sql {

namespace {

struct VTab : sqlite3_vtab
{
    const SqlTable *table = nullptr;
};

struct VCursor : sqlite3_vtab_cursor
{
    std::unique_ptr<SqlCursor> impl;
};

const SqlTable *tableOf(sqlite3_vtab *vtab)
{
    return static_cast<VTab *>(vtab)->table;
}

SqlCursor *cursorOf(sqlite3_vtab_cursor *cursor)
{
    return static_cast<VCursor *>(cursor)->impl.get();
}

// Runs f, turning any exception into an SQLite error code with the message on the vtab.
template<typename F> int guarded(sqlite3_vtab *vtab, F &&f)
{
    try {
        return f();
    } catch (const std::bad_alloc &) {
        return SQLITE_NOMEM;
    } catch (const std::exception &e) {
        if (vtab) {
            sqlite3_free(vtab->zErrMsg);
            vtab->zErrMsg = sqlite3_mprintf("%s", e.what());
        }
        return SQLITE_ERROR;
    } catch (...) {
        return SQLITE_ERROR;
    }
}

int xConnect(sqlite3 *db, void *aux, int, const char *const *, sqlite3_vtab **out, char **err)
{
    const auto *table = static_cast<const SqlTable *>(aux);
    const std::string declaration = table->declaration();
    const int rc = sqlite3_declare_vtab(db, declaration.c_str());
    if (rc != SQLITE_OK) {
        *err = sqlite3_mprintf("%s: cannot declare the table", table->name());
        return rc;
    }
    auto *vtab = new (std::nothrow) VTab;
    if (!vtab)
        return SQLITE_NOMEM;
    vtab->table = table;
    *out = vtab;
    return SQLITE_OK;
}

int xDisconnect(sqlite3_vtab *vtab)
{
    sqlite3_free(vtab->zErrMsg);
    delete static_cast<VTab *>(vtab);
    return SQLITE_OK;
}

int xBestIndex(sqlite3_vtab *vtab, sqlite3_index_info *info)
{
    return guarded(vtab, [&] {
        tableOf(vtab)->bestIndex(info);
        return SQLITE_OK;
    });
}

int xOpen(sqlite3_vtab *vtab, sqlite3_vtab_cursor **out)
{
    return guarded(vtab, [&] {
        auto cursor = std::make_unique<VCursor>();
        cursor->impl = tableOf(vtab)->open();
        *out = cursor.release();
        return SQLITE_OK;
    });
}

int xClose(sqlite3_vtab_cursor *cursor)
{
    delete static_cast<VCursor *>(cursor);
    return SQLITE_OK;
}

int xFilter(sqlite3_vtab_cursor *cursor, int idxNum, const char *idxStr, int argc,
            sqlite3_value **argv)
{
    return guarded(cursor->pVtab, [&] {
        cursorOf(cursor)->filter(idxNum, idxStr, argc, argv);
        return SQLITE_OK;
    });
}

int xNext(sqlite3_vtab_cursor *cursor)
{
    return guarded(cursor->pVtab, [&] {
        cursorOf(cursor)->next();
        return SQLITE_OK;
    });
}

int xEof(sqlite3_vtab_cursor *cursor)
{
    return cursorOf(cursor)->eof() ? 1 : 0;
}

int xColumn(sqlite3_vtab_cursor *cursor, sqlite3_context *ctx, int column)
{
    return guarded(cursor->pVtab, [&] {
        cursorOf(cursor)->column(ctx, column);
        return SQLITE_OK;
    });
}

int xRowid(sqlite3_vtab_cursor *cursor, sqlite3_int64 *rowid)
{
    *rowid = cursorOf(cursor)->rowid();
    return SQLITE_OK;
}

const sqlite3_module kModule = {
    /* iVersion */ 0,
    /* xCreate */ nullptr, // eponymous-only: no CREATE VIRTUAL TABLE
    xConnect,
    xBestIndex,
    xDisconnect,
    /* xDestroy */ xDisconnect,
    xOpen,
    xClose,
    xFilter,
    xNext,
    xEof,
    xColumn,
    xRowid,
    nullptr,
    nullptr,
    nullptr,
    nullptr,
    nullptr,
    nullptr,
    nullptr,
    nullptr,
    nullptr,
    nullptr,
    nullptr};

} // namespace

void SqlTable::bestIndex(sqlite3_index_info *info) const
{
    info->estimatedRows = sqlite3_int64(fullScanRows());
    info->estimatedCost = fullScanRows() + 1;
}

std::string SqlTable::declaration() const
{
    std::string s = "CREATE TABLE x(";
    bool first = true;
    for (const SqlColumn &c : columns()) {
        if (!first)
            s += ", ";
        first = false;
        s += '"';
        s += c.name;
        s += "\" ";
        s += c.type;
    }
    s += ")";
    return s;
}

int registerTable(sqlite3 *db, const SqlTable *table)
{
    return sqlite3_create_module_v2(db, table->name(), &kModule, const_cast<SqlTable *>(table),
                                    nullptr);
}

void IntRange::apply(unsigned char op, sqlite3_value *value)
{
    const int type = sqlite3_value_numeric_type(value);
    if (type != SQLITE_INTEGER && type != SQLITE_FLOAT)
        return;
    int64_t floorV = 0, ceilV = 0;
    if (type == SQLITE_INTEGER) {
        floorV = ceilV = sqlite3_value_int64(value);
    } else {
        const double d = sqlite3_value_double(value);
        if (std::isnan(d))
            return;
        // Outside the int64 range every integer compares one way.
        if (d >= 9.2e18) {
            floorV = ceilV = INT64_MAX;
        } else if (d <= -9.2e18) {
            floorV = ceilV = INT64_MIN;
        } else {
            floorV = int64_t(std::floor(d));
            ceilV = int64_t(std::ceil(d));
        }
    }
    switch (op) {
    case SQLITE_INDEX_CONSTRAINT_EQ:
        lo = std::max(lo, floorV);
        hi = std::min(hi, ceilV);
        break;
    case SQLITE_INDEX_CONSTRAINT_GT:
    case SQLITE_INDEX_CONSTRAINT_GE:
        lo = std::max(lo, floorV);
        break;
    case SQLITE_INDEX_CONSTRAINT_LT:
    case SQLITE_INDEX_CONSTRAINT_LE:
        hi = std::min(hi, ceilV);
        break;
    default:
        break;
    }
}

} // namespace tracedesk::core::sql
