#include "core/sql/groupsplit.h"

#include "core/base/asciilower.h"
#include "core/sql/sqltext.h"

#include <cctype>
#include <set>
#include <string>
#include <string_view>

namespace tracedesk::core::sql {

namespace {

// Instructions that act on the current row or the current group only (or run once, like the
// program's prologue), so a program made of them computes each group alone.
bool perRowOrGroup(std::string_view op)
{
    static const std::set<std::string_view> kAllowed = {
        "Init", "Goto", "Halt", "Transaction", "Noop", "Explain",
        "Integer", "Int64", "Real", "String8", "String", "Null", "Blob",
        "Move", "Copy", "SCopy", "IntCopy", "ResultRow",
        "Concat", "Add", "Subtract", "Multiply", "Divide", "Remainder", "BitAnd", "BitOr",
        "ShiftLeft", "ShiftRight", "BitNot", "AddImm", "MustBeInt", "RealAffinity", "Cast",
        "Affinity", "Eq", "Ne", "Lt", "Le", "Gt", "Ge", "ElseEq", "Compare", "Jump", "And",
        "Or", "Not", "IsTrue", "If", "IfNot", "IsNull", "NotNull", "IsType", "ZeroOrNull",
        "Gosub", "Return", "IfPos", "Function", "PureFunc", "CollSeq",
        "AggStep", "AggStep1", "AggFinal",
        "VOpen", "VFilter", "VColumn", "VNext", "VRowid",
    };
    return kAllowed.count(op) != 0;
}

// Functions whose value depends on what the connection did before.
bool readsConnectionState(std::string_view function)
{
    for (std::string_view name : {"changes(", "total_changes(", "last_insert_rowid("}) {
        if (function.substr(0, name.size()) == name)
            return true;
    }
    return false;
}

} // namespace

bool leavesConnectionAsIs(sqlite3_stmt *stmt)
{
    if (!stmt || !sqlite3_stmt_readonly(stmt))
        return false;
    const char *text = sqlite3_sql(stmt);
    if (!text)
        return false;
    // The first keyword, after blanks and comments.
    const std::string_view rest = skipTrivia(text);
    size_t length = 0;
    while (length < rest.size() && std::isalpha(static_cast<unsigned char>(rest[length])))
        ++length;
    const std::string keyword = asciiLower(rest.substr(0, length));
    return keyword == "select" || keyword == "with" || keyword == "values" || keyword == "explain";
}

bool splitsByGroups(sqlite3 *db, sqlite3_stmt *stmt)
{
    if (!stmt || !sqlite3_stmt_readonly(stmt) || sqlite3_stmt_isexplain(stmt))
        return false;
    const char *text = sqlite3_sql(stmt);
    if (!text)
        return false;
    const std::string explain = std::string("EXPLAIN ") + text;
    sqlite3_stmt *program = nullptr;
    if (sqlite3_prepare_v2(db, explain.c_str(), int(explain.size()), &program, nullptr) !=
            SQLITE_OK ||
        !program) {
        sqlite3_finalize(program);
        return false;
    }
    int opens = 0, groupedFilters = 0, filters = 0, aggregateSteps = 0, groupChecks = 0;
    bool allowed = true;
    int rc = SQLITE_ROW;
    while (allowed && (rc = sqlite3_step(program)) == SQLITE_ROW) {
        // EXPLAIN's columns: addr, opcode, p1, p2, p3, p4, p5, comment.
        const auto *op = reinterpret_cast<const char *>(sqlite3_column_text(program, 1));
        const std::string_view opcode = op ? op : "";
        allowed = perRowOrGroup(opcode);
        if (opcode == "VOpen") {
            ++opens;
        } else if (opcode == "VFilter") {
            ++filters;
            const auto *p4 = reinterpret_cast<const char *>(sqlite3_column_text(program, 5));
            groupedFilters += p4 && std::string_view(p4) == kGroupedScanPlan ? 1 : 0;
        } else if (opcode == "AggStep" || opcode == "AggStep1") {
            ++aggregateSteps;
        } else if (opcode == "Function" || opcode == "PureFunc") {
            const auto *p4 = reinterpret_cast<const char *>(sqlite3_column_text(program, 5));
            allowed = !readsConnectionState(p4 ? p4 : "");
        } else if (opcode == "Compare") {
            ++groupChecks;
        }
    }
    sqlite3_finalize(program);
    return allowed && rc == SQLITE_DONE && opens == 1 && filters == 1 && groupedFilters == 1 &&
           aggregateSteps > 0 && groupChecks > 0;
}

} // namespace tracedesk::core::sql
