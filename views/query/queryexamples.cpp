#include "views/query/queryexamples.h"

namespace tracedesk::views {

const std::vector<QueryExample> &queryExamples()
{
    static const std::vector<QueryExample> examples = {
        {QStringLiteral("Top kernels by time"),
         QStringLiteral("SELECT name, calls, total_us, avg_us, grid, block, op_name\n"
                        "FROM kernels\nORDER BY total_us DESC\nLIMIT 20")},
        {QStringLiteral("Slowest steps"),
         QStringLiteral("SELECT name AS step, dur / 1e6 AS dur_us, ts / 1e6 AS start_us\n"
                        "FROM steps\nORDER BY dur DESC\nLIMIT 10")},
        {QStringLiteral("Gaps over 100 us on a device stream"),
         QStringLiteral("-- idle time between consecutive top-level slices on device tracks;\n"
                        "-- id is the slice after the gap (click a row to show it)\n"
                        "SELECT g.id, t.name AS track, (g.ts - g.prev_end) / 1e6 AS gap_us,\n"
                        "       g.prev_end / 1e6 AS gap_start_us\n"
                        "FROM (SELECT id, track, ts,\n"
                        "             LAG(end) OVER (PARTITION BY track ORDER BY ts) AS prev_end\n"
                        "      FROM slices\n"
                        "      WHERE depth = 0 AND track IN (SELECT t.id FROM tracks t\n"
                        "            JOIN planes p ON p.id = t.plane WHERE p.kind = 'device')) g\n"
                        "JOIN tracks t ON t.id = g.track\n"
                        "WHERE g.ts - g.prev_end > 100 * 1e6\nORDER BY gap_us DESC\nLIMIT 50")},
        {QStringLiteral("Longest slices"),
         QStringLiteral("SELECT s.id, s.name, s.dur / 1e6 AS dur_us, t.name AS track, s.depth\n"
                        "FROM slices s JOIN tracks t ON t.id = s.track\nORDER BY s.dur DESC\nLIMIT 20")},
        {QStringLiteral("Time by name"),
         QStringLiteral("SELECT name, count(*) AS n, sum(dur) / 1e6 AS total_us,\n"
                        "       sum(self_time) / 1e6 AS self_us\n"
                        "FROM slices\nGROUP BY name\nORDER BY total_us DESC\nLIMIT 50")},
        {QStringLiteral("Framework ops by device self time"),
         QStringLiteral("SELECT name, type, calls, device_self_us, self_us\n"
                        "FROM op_stats\nORDER BY device_self_us DESC\nLIMIT 20")},
    };
    return examples;
}

} // namespace tracedesk::views
