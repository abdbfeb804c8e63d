// planes, tracks, steps, kernels and op_stats: small tables (one row per plane, track, step or
// analysis row) built on first use into plain cells. kernels and op_stats are the existing
// analyses, shared through the AnalysisCache: PyTorch's kernel and operator views for Kineto
// traces, XProf's kernel stats and framework op stats otherwise.

#include "core/sql/sqlresult.h"
#include "core/sql/tables.h"

#include "core/analysis/framework.h"
#include "core/analysis/frameworkopstats.h"
#include "core/analysis/kernels/kernelclass.h"
#include "core/analysis/opmetrics.h"
#include "core/analysis/pytorch/kernelview.h"
#include "core/analysis/pytorch/operatorstats.h"

#include <functional>
#include <optional>

namespace tracedesk::core::sql {

namespace {

using Rows = std::vector<std::vector<SqlCell>>;

class ListCursor : public SqlCursor
{
public:
    explicit ListCursor(const Rows &rows)
        : m_rows(rows)
    {}
    void filter(int, const char *, int, sqlite3_value **) override { m_index = 0; }
    void next() override { ++m_index; }
    bool eof() const override { return m_index >= m_rows.size(); }
    int64_t rowid() const override { return int64_t(m_index); }
    void column(sqlite3_context *ctx, int column) override
    {
        const SqlCell &cell = m_rows[m_index][size_t(column)];
        if (const auto *i = std::get_if<int64_t>(&cell))
            sqlite3_result_int64(ctx, *i);
        else if (const auto *d = std::get_if<double>(&cell))
            sqlite3_result_double(ctx, *d);
        else if (const auto *s = std::get_if<std::string>(&cell))
            resultStaticText(ctx, s->data(), s->size());
        else
            sqlite3_result_null(ctx);
    }

private:
    const Rows &m_rows;
    size_t m_index = 0;
};

class ListTable : public SqlTable
{
public:
    ListTable(const char *name, const char *doc, std::vector<SqlColumn> columns, double guess,
              std::function<Rows()> fill)
        : m_name(name)
        , m_doc(doc)
        , m_columns(std::move(columns))
        , m_guess(guess)
        , m_fill(std::move(fill))
    {}
    const char *name() const override { return m_name; }
    const char *doc() const override { return m_doc; }
    const std::vector<SqlColumn> &columns() const override { return m_columns; }
    double fullScanRows() const override { return m_rows ? double(m_rows->size()) + 1 : m_guess; }
    std::unique_ptr<SqlCursor> open() const override
    {
        if (!m_rows)
            m_rows = m_fill();
        return std::make_unique<ListCursor>(*m_rows);
    }

private:
    const char *m_name;
    const char *m_doc;
    std::vector<SqlColumn> m_columns;
    double m_guess;
    std::function<Rows()> m_fill;
    mutable std::optional<Rows> m_rows;
};

SqlCell text(std::string_view s)
{
    return std::string(s);
}

const char *planeKindName(PlaneKind kind)
{
    switch (kind) {
    case PlaneKind::Device:
        return "device";
    case PlaneKind::Host:
        return "host";
    case PlaneKind::Metadata:
        return "metadata";
    case PlaneKind::Other:
        break;
    }
    return "other";
}

Rows planeRows(const Trace &trace)
{
    Rows rows;
    for (size_t p = 0; p < trace.planes.size(); ++p) {
        const Plane &plane = trace.planes[p];
        rows.push_back({int64_t(p), text(trace.string(plane.name)), text(trace.string(plane.host)),
                        plane.id, text(planeKindName(plane.kind)), int64_t(plane.tracks.size())});
    }
    return rows;
}

Rows trackRows(const SqlContext &context)
{
    Rows rows;
    const Trace &trace = context.trace();
    const TimePs origin = context.origin();
    for (size_t t = 0; t < trace.tracks.size(); ++t) {
        const Track &track = trace.tracks[t];
        rows.push_back({int64_t(t), int64_t(track.plane), text(trace.string(track.name)),
                        track.sourceId,
                        text(track.type == TrackType::Counter ? "counter" : "slices"),
                        int64_t(track.rows.size()), int64_t(track.sliceCount),
                        int64_t(track.counter.size()), track.begin - origin, track.end - origin});
    }
    return rows;
}

Rows stepRows(const SqlContext &context)
{
    Rows rows;
    const auto &steps = context.steps();
    for (size_t s = 0; s < steps.size(); ++s)
        rows.push_back({int64_t(s), steps[s].name, steps[s].start - context.origin(),
                        steps[s].end - steps[s].start, steps[s].end - context.origin()});
    return rows;
}

std::string dim3Text(int64_t x, int64_t y, int64_t z)
{
    return std::to_string(x) + "," + std::to_string(y) + "," + std::to_string(z);
}

Rows kernelRows(const SqlContext &context)
{
    Rows rows;
    if (analysis::readsGpuWorkByRole(context.trace())) {
        const auto view = analysis::pytorch::kernelView(context.cache());
        for (const auto &k : view->byProperties)
            rows.push_back({k.name, k.operatorName, dim3Text(k.grid[0], k.grid[1], k.grid[2]),
                            dim3Text(k.block[0], k.block[1], k.block[2]), k.registersPerThread,
                            k.sharedMemoryBytes, int64_t(k.tensorCoresUsed),
                            k.times.meanOccupancyPercent, k.times.calls, k.times.totalUs,
                            k.times.meanUs, k.times.minUs, k.times.maxUs,
                            text(analysis::kernelFamilyName(k.family))});
        return rows;
    }
    const auto stats = analysis::opStats(context.cache());
    for (const auto &k : stats->kernelStats.reports) {
        const double total = double(k.totalDurationPs) / 1e6;
        rows.push_back({k.name, k.opName, dim3Text(k.gridDim[0], k.gridDim[1], k.gridDim[2]),
                        dim3Text(k.blockDim[0], k.blockDim[1], k.blockDim[2]),
                        int64_t(k.registersPerThread),
                        int64_t(k.staticShmemBytes) + int64_t(k.dynamicShmemBytes),
                        int64_t(k.isKernelUsingTensorCore), double(k.occupancyPct), k.occurrences,
                        total, k.occurrences ? total / double(k.occurrences) : 0.0,
                        double(k.minDurationPs) / 1e6, double(k.maxDurationPs) / 1e6,
                        text(analysis::kernelFamilyName(analysis::kernelFamily(k.name)))});
    }
    return rows;
}

Rows opStatRows(const SqlContext &context)
{
    Rows rows;
    if (context.isPyTorch()) {
        const auto stats = analysis::pytorch::operatorStats(context.cache());
        for (const auto &o : stats->byName)
            rows.push_back({o.opName, text(o.annotation ? "annotation" : "operator"),
                            int64_t(0), o.calls, o.hostTotalUs,
                            o.hostSelfUs, o.deviceTotalUs, o.deviceSelfUs});
        return rows;
    }
    const auto stats = analysis::frameworkOpStats(context.cache());
    for (const auto &o : stats->withIdle.rows) {
        const double device = o.onDevice ? o.totalTimeUs : 0.0;
        const double deviceSelf = o.onDevice ? o.totalSelfTimeUs : 0.0;
        rows.push_back({o.name, o.type, int64_t(o.onDevice), o.occurrences, o.totalTimeUs,
                        o.totalSelfTimeUs, device, deviceSelf});
    }
    return rows;
}

} // namespace

std::vector<std::unique_ptr<SqlTable>> makeListTables(const SqlContext &context)
{
    const Trace &trace = context.trace();
    std::vector<std::unique_ptr<SqlTable>> tables;
    tables.push_back(std::make_unique<ListTable>(
        "planes", "devices and hosts (XPlanes / Chrome processes)",
        std::vector<SqlColumn>{{"id", "INTEGER", "plane index"},
                               {"name", "TEXT", "plane name"},
                               {"host", "TEXT", "host whose file holds it"},
                               {"source_id", "INTEGER", "XPlane id / Chrome pid"},
                               {"kind", "TEXT", "device, host, metadata or other"},
                               {"track_count", "INTEGER", "tracks on the plane"}},
        double(trace.planes.size()) + 1, [&trace] { return planeRows(trace); }));
    tables.push_back(std::make_unique<ListTable>(
        "tracks", "threads, streams, XLines and counters",
        std::vector<SqlColumn>{{"id", "INTEGER", "track index (slices.track)"},
                               {"plane", "INTEGER", "planes.id"},
                               {"name", "TEXT", "track name"},
                               {"source_id", "INTEGER", "XLine id / thread id / stream id"},
                               {"type", "TEXT", "slices or counter"},
                               {"depth_count", "INTEGER", "nesting depths (rows)"},
                               {"slice_count", "INTEGER", "slices, instants included"},
                               {"sample_count", "INTEGER", "counter samples"},
                               {"ts", "INTEGER", "earliest start, ps from the trace's start"},
                               {"end", "INTEGER", "latest end, ps from the trace's start"}},
        double(trace.tracks.size()) + 1, [&context] { return trackRows(context); }));
    tables.push_back(std::make_unique<ListTable>(
        "steps", "training steps (PyTorch ProfilerStep#N, else the step analysis)",
        std::vector<SqlColumn>{{"id", "INTEGER", "step index in time order (slices.step)"},
                               {"name", "TEXT", "step name / number as written"},
                               {"ts", "INTEGER", "start, ps from the trace's start"},
                               {"dur", "INTEGER", "duration, ps"},
                               {"end", "INTEGER", "ts + dur, ps"}},
        100, [&context] { return stepRows(context); }));
    tables.push_back(std::make_unique<ListTable>(
        "kernels", "GPU kernels grouped by launch configuration (kernel stats)",
        std::vector<SqlColumn>{{"name", "TEXT", "kernel name"},
                               {"op_name", "TEXT", "launching operator"},
                               {"grid", "TEXT", "x,y,z"},
                               {"block", "TEXT", "x,y,z"},
                               {"registers", "INTEGER", "registers per thread"},
                               {"shared_memory", "INTEGER", "shared memory bytes"},
                               {"tensor_core", "INTEGER", "1 when the kernel uses Tensor Cores"},
                               {"occupancy", "REAL", "achieved occupancy, percent"},
                               {"calls", "INTEGER", "launches"},
                               {"total_us", "REAL", "total duration, us"},
                               {"avg_us", "REAL", "mean duration, us"},
                               {"min_us", "REAL", "shortest, us"},
                               {"max_us", "REAL", "longest, us"},
                               {"family", "TEXT",
                                "GEMM, Attention, Convolution, Communication, Memory, "
                                "Elementwise, Reduction / norm or Other"}},
        1000, [&context] { return kernelRows(context); }));
    tables.push_back(std::make_unique<ListTable>(
        "op_stats", "framework ops (PyTorch operator view, else TF/JAX framework op stats)",
        std::vector<SqlColumn>{{"name", "TEXT", "op name"},
                               {"type", "TEXT",
                                "op type (PyTorch: \"operator\", or \"annotation\" for an "
                                "annotation / Python function that launched GPU work)"},
                               {"on_device", "INTEGER", "1 for a device row (XSpace)"},
                               {"calls", "INTEGER", "occurrences"},
                               {"total_us", "REAL", "total time, us (host time for PyTorch)"},
                               {"self_us", "REAL", "self time, us (host self for PyTorch)"},
                               {"device_total_us", "REAL", "device time, us"},
                               {"device_self_us", "REAL", "device self time, us"}},
        1000, [&context] { return opStatRows(context); }));
    return tables;
}

std::vector<std::unique_ptr<SqlTable>> makeAllTables(const SqlContext &context)
{
    std::vector<std::unique_ptr<SqlTable>> tables = makeListTables(context);
    // Schema order: store tables first, analyses last.
    auto analyses = std::vector<std::unique_ptr<SqlTable>>();
    analyses.push_back(std::move(tables[3]));
    analyses.push_back(std::move(tables[4]));
    tables.resize(3);
    tables.insert(tables.begin() + 2, makeSlicesTable(context));
    tables.insert(tables.begin() + 3, makeArgsTable(context));
    tables.insert(tables.begin() + 4, makeFlowsTable(context));
    tables.insert(tables.begin() + 5, makeCountersTable(context));
    for (auto &t : analyses)
        tables.push_back(std::move(t));
    return tables;
}

} // namespace tracedesk::core::sql
