// SqlSession::schemaText and cellText: the documented schema is generated from the tables'
// own column lists, so `query --schema` cannot drift from what SQLite sees.

#include "core/sql/sqlsession.h"
#include "core/sql/tables.h"

#include <cstdio>
#include <cstdlib>

namespace tracedesk::core::sql {

std::string SqlSession::schemaText()
{
    // Tables only describe themselves; an empty trace is enough to list them.
    SqlContext context(std::make_shared<const Trace>(), nullptr);
    std::string s =
        "Times (ts, dur, end, self_time) are integer picoseconds; ts and end count from the\n"
        "trace's start, the timeline's 0 (divide by 1e6 for microseconds); *_us columns\n"
        "are microseconds. Slice ids are\n"
        "stable for a loaded trace. WHERE on slices.id / track / ts / end and on the first\n"
        "column of args (slice_id), flows (id) and counters (track) is answered from the\n"
        "store's sorted rows without a scan.\n";
    for (const auto &table : makeAllTables(context)) {
        s += "\n";
        s += table->name();
        s += ": ";
        s += table->doc();
        s += "\n";
        for (const SqlColumn &c : table->columns()) {
            char line[256];
            std::snprintf(line, sizeof line, "  %-16s %-8s %s\n", c.name,
                          c.type[0] ? c.type : "ANY", c.doc);
            s += line;
        }
    }
    return s;
}

std::string cellText(const SqlCell &cell)
{
    if (const auto *i = std::get_if<int64_t>(&cell))
        return std::to_string(*i);
    if (const auto *d = std::get_if<double>(&cell)) {
        char buf[64];
        std::snprintf(buf, sizeof buf, "%.17g", *d);
        // Prefer the shortest form that reads back the same.
        for (int precision = 1; precision < 17; ++precision) {
            char shorter[64];
            std::snprintf(shorter, sizeof shorter, "%.*g", precision, *d);
            if (std::strtod(shorter, nullptr) == *d)
                return shorter;
        }
        return buf;
    }
    if (const auto *s = std::get_if<std::string>(&cell))
        return *s;
    return {};
}

} // namespace tracedesk::core::sql
