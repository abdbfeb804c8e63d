#pragma once

// QueryResult: what one SQL statement returned, as plain values (no SQLite types), so the CLI
// and the Query dock can show it on any thread after the session is gone.

#include <cstdint>
#include <string>
#include <variant>
#include <vector>

namespace tracedesk::core::sql {

// NULL, INTEGER, REAL or TEXT (a BLOB is kept as its bytes in a string).
using SqlCell = std::variant<std::monostate, int64_t, double, std::string>;

struct QueryResult
{
    std::vector<std::string> columns;
    std::vector<std::vector<SqlCell>> rows;
    bool truncated = false; // more rows existed than the row limit allowed
    double seconds = 0;     // wall time of the run
};

// The cell as text: "" for NULL, integers in full, reals with up to 17 significant digits.
std::string cellText(const SqlCell &cell);

} // namespace tracedesk::core::sql
