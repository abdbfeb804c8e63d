// `args`, `counters` and `flows`: read from the store in place. Args are decoded from the args
// arena one slice at a time, only for the slices the query reaches (`slice_id = ...` reaches one).

#include "core/sql/tables.h"

#include <algorithm>

namespace tracedesk::core::sql {

namespace {

// ---- args -------------------------------------------------------------------------------------

const std::vector<SqlColumn> kArgsColumns = {
    {"slice_id", "INTEGER", "slices.id"},
    {"key", "TEXT", "arg name (own args, then side-column values, then the event kind's stats)"},
    {"value", "", "INTEGER, REAL or TEXT as stored"},
};

class ArgsCursor : public SqlCursor
{
public:
    explicit ArgsCursor(const SqlContext &context)
        : m_ctx(context)
    {}

    void filter(int, const char *idxStr, int argc, sqlite3_value **argv) override
    {
        IntRange ids;
        for (int k = 0; idxStr && idxStr[0] && idxStr[1] && k < argc; ++k, idxStr += 2)
            ids.apply(static_cast<unsigned char>(idxStr[1]), argv[k]);
        const int64_t total = int64_t(m_ctx.ids().total());
        m_next = std::max<int64_t>(0, ids.lo);
        m_last = std::min<int64_t>(total - 1, ids.hi);
        m_rowid = 0;
        m_args.clear();
        m_arg = 0;
        m_slice = m_next - 1;
        loadNextSlice();
    }

    void next() override
    {
        ++m_rowid;
        if (++m_arg >= m_args.size())
            loadNextSlice();
    }

    bool eof() const override { return m_arg >= m_args.size(); }
    int64_t rowid() const override { return m_rowid; }

    void column(sqlite3_context *ctx, int column) override
    {
        const ArgValue &v = m_args[m_arg];
        const Trace &trace = m_ctx.trace();
        if (column == 0) {
            sqlite3_result_int64(ctx, m_slice);
        } else if (column == 1) {
            const std::string_view s = trace.string(v.key);
            resultStaticText(ctx, s.data(), s.size());
        } else {
            switch (v.type) {
            case ArgType::Int:
            case ArgType::Bool:
                sqlite3_result_int64(ctx, v.i);
                break;
            case ArgType::UInt:
                if (v.u > uint64_t(INT64_MAX))
                    sqlite3_result_double(ctx, double(v.u));
                else
                    sqlite3_result_int64(ctx, int64_t(v.u));
                break;
            case ArgType::Double:
                sqlite3_result_double(ctx, v.d);
                break;
            case ArgType::String:
            case ArgType::Bytes:
                resultStaticText(ctx, v.s.data(), v.s.size());
                break;
            case ArgType::StringRef: {
                const std::string_view s = trace.string(v.str);
                resultStaticText(ctx, s.data(), s.size());
                break;
            }
            }
        }
    }

private:
    // Decodes the args of the next slice that has any.
    void loadNextSlice()
    {
        m_args.clear();
        m_arg = 0;
        const Trace &trace = m_ctx.trace();
        while (m_args.empty() && ++m_slice <= m_last) {
            const auto ref = m_ctx.ids().refOf(m_slice);
            if (!ref)
                break;
            trace.forEachArg(*ref, [&](const ArgValue &v) { m_args.push_back(v); });
        }
    }

    const SqlContext &m_ctx;
    int64_t m_next = 0;
    int64_t m_last = -1;
    int64_t m_slice = -1;
    int64_t m_rowid = 0;
    std::vector<ArgValue> m_args;
    size_t m_arg = 0;
};

// A table whose first integer column is narrowed by =, <, <=, >, >= (argv in idxStr pairs).
void bestIndexOnFirstColumn(sqlite3_index_info *info, double total, double perValue)
{
    std::string idx;
    int argv = 0;
    bool eq = false, range = false;
    for (int c = 0; c < info->nConstraint; ++c) {
        const auto &cons = info->aConstraint[c];
        if (!cons.usable || cons.iColumn != 0)
            continue;
        const unsigned char op = cons.op;
        if (op != SQLITE_INDEX_CONSTRAINT_EQ && op != SQLITE_INDEX_CONSTRAINT_GT &&
            op != SQLITE_INDEX_CONSTRAINT_GE && op != SQLITE_INDEX_CONSTRAINT_LT &&
            op != SQLITE_INDEX_CONSTRAINT_LE)
            continue;
        eq |= op == SQLITE_INDEX_CONSTRAINT_EQ;
        range = true;
        info->aConstraintUsage[c].argvIndex = ++argv;
        idx += 'k';
        idx += char(op);
    }
    const double rows = std::max(1.0, eq ? perValue : range ? total / 4 : total);
    info->estimatedRows = sqlite3_int64(rows);
    info->estimatedCost = rows + 1;
    if (!idx.empty()) {
        info->idxStr = sqlite3_mprintf("%s", idx.c_str());
        info->needToFreeIdxStr = 1;
    }
}

class ArgsTable : public SqlTable
{
public:
    explicit ArgsTable(const SqlContext &context)
        : m_ctx(context)
    {}
    const char *name() const override { return "args"; }
    const char *doc() const override
    {
        return "the args of a slice, decoded on demand (use WHERE slice_id = ...)";
    }
    const std::vector<SqlColumn> &columns() const override { return kArgsColumns; }
    // A guess of a few args per slice; decoding costs more than reading a column.
    double fullScanRows() const override { return 4.0 * double(m_ctx.ids().total()) + 1; }
    void bestIndex(sqlite3_index_info *info) const override
    {
        bestIndexOnFirstColumn(info, fullScanRows(), 4);
    }
    std::unique_ptr<SqlCursor> open() const override { return std::make_unique<ArgsCursor>(m_ctx); }

private:
    const SqlContext &m_ctx;
};

// ---- counters ---------------------------------------------------------------------------------

const std::vector<SqlColumn> kCounterColumns = {
    {"track", "INTEGER", "tracks.id of the counter track"},
    {"ts", "INTEGER", "sample time, ps from the trace's start"},
    {"value", "REAL", "sample value"},
};

class CountersCursor : public SqlCursor
{
public:
    explicit CountersCursor(const SqlContext &context)
        : m_ctx(context)
    {}

    void filter(int, const char *idxStr, int argc, sqlite3_value **argv) override
    {
        IntRange tracks;
        for (int k = 0; idxStr && idxStr[0] && idxStr[1] && k < argc; ++k, idxStr += 2)
            tracks.apply(static_cast<unsigned char>(idxStr[1]), argv[k]);
        const int64_t n = int64_t(m_ctx.trace().tracks.size());
        m_track = std::max<int64_t>(0, tracks.lo);
        m_lastTrack = std::min<int64_t>(n - 1, tracks.hi);
        m_index = 0;
        m_rowid = 0;
        skipEmpty();
    }
    void next() override
    {
        ++m_index;
        ++m_rowid;
        skipEmpty();
    }
    bool eof() const override { return m_track > m_lastTrack; }
    int64_t rowid() const override { return m_rowid; }
    void column(sqlite3_context *ctx, int column) override
    {
        const CounterSeries &c = m_ctx.trace().tracks[size_t(m_track)].counter;
        if (column == 0)
            sqlite3_result_int64(ctx, m_track);
        else if (column == 1)
            sqlite3_result_int64(ctx, c.time[m_index] - m_ctx.origin());
        else
            sqlite3_result_double(ctx, c.value[m_index]);
    }

private:
    void skipEmpty()
    {
        const Trace &trace = m_ctx.trace();
        while (m_track <= m_lastTrack && m_index >= trace.tracks[size_t(m_track)].counter.size()) {
            ++m_track;
            m_index = 0;
        }
    }

    const SqlContext &m_ctx;
    int64_t m_track = 0;
    int64_t m_lastTrack = -1;
    size_t m_index = 0;
    int64_t m_rowid = 0;
};

class CountersTable : public SqlTable
{
public:
    explicit CountersTable(const SqlContext &context)
        : m_ctx(context)
    {}
    const char *name() const override { return "counters"; }
    const char *doc() const override { return "counter samples (WHERE track = ... narrows)"; }
    const std::vector<SqlColumn> &columns() const override { return kCounterColumns; }
    double fullScanRows() const override { return double(m_ctx.trace().counterSampleCount()) + 1; }
    void bestIndex(sqlite3_index_info *info) const override
    {
        const double tracks = std::max<double>(1, double(m_ctx.trace().tracks.size()));
        bestIndexOnFirstColumn(info, fullScanRows(), fullScanRows() / tracks);
    }
    std::unique_ptr<SqlCursor> open() const override
    {
        return std::make_unique<CountersCursor>(m_ctx);
    }

private:
    const SqlContext &m_ctx;
};

// ---- flows ------------------------------------------------------------------------------------

const std::vector<SqlColumn> kFlowColumns = {
    {"id", "INTEGER", "index of the flow"},
    {"flow_id", "INTEGER", "the file's flow / correlation id"},
    {"from_id", "INTEGER", "slices.id of the source (e.g. a launch)"},
    {"to_id", "INTEGER", "slices.id of the target (e.g. a kernel)"},
    {"category", "TEXT", "flow category"},
};

class FlowsCursor : public SqlCursor
{
public:
    explicit FlowsCursor(const SqlContext &context)
        : m_ctx(context)
    {}
    void filter(int, const char *idxStr, int argc, sqlite3_value **argv) override
    {
        IntRange ids;
        for (int k = 0; idxStr && idxStr[0] && idxStr[1] && k < argc; ++k, idxStr += 2)
            ids.apply(static_cast<unsigned char>(idxStr[1]), argv[k]);
        const int64_t n = int64_t(m_ctx.trace().flows.size());
        m_index = std::max<int64_t>(0, ids.lo);
        m_last = std::min<int64_t>(n - 1, ids.hi);
    }
    void next() override { ++m_index; }
    bool eof() const override { return m_index > m_last; }
    int64_t rowid() const override { return m_index; }
    void column(sqlite3_context *ctx, int column) override
    {
        const Trace &trace = m_ctx.trace();
        const Flow &f = trace.flows[size_t(m_index)];
        switch (column) {
        case 0:
            sqlite3_result_int64(ctx, m_index);
            break;
        case 1:
            sqlite3_result_int64(ctx, int64_t(f.id));
            break;
        case 2:
        case 3: {
            const SliceRef s = column == 2 ? f.from : f.to;
            if (trace.valid(s))
                sqlite3_result_int64(ctx, m_ctx.ids().idOf(s));
            else
                sqlite3_result_null(ctx);
            break;
        }
        default: {
            const std::string_view s = trace.string(f.category);
            resultStaticText(ctx, s.data(), s.size());
        }
        }
    }

private:
    const SqlContext &m_ctx;
    int64_t m_index = 0;
    int64_t m_last = -1;
};

class FlowsTable : public SqlTable
{
public:
    explicit FlowsTable(const SqlContext &context)
        : m_ctx(context)
    {}
    const char *name() const override { return "flows"; }
    const char *doc() const override { return "arrows between slices (launch -> GPU activity)"; }
    const std::vector<SqlColumn> &columns() const override { return kFlowColumns; }
    double fullScanRows() const override { return double(m_ctx.trace().flows.size()) + 1; }
    void bestIndex(sqlite3_index_info *info) const override
    {
        bestIndexOnFirstColumn(info, fullScanRows(), 1);
    }
    std::unique_ptr<SqlCursor> open() const override
    {
        return std::make_unique<FlowsCursor>(m_ctx);
    }

private:
    const SqlContext &m_ctx;
};

} // namespace

std::unique_ptr<SqlTable> makeArgsTable(const SqlContext &context)
{
    return std::make_unique<ArgsTable>(context);
}

std::unique_ptr<SqlTable> makeCountersTable(const SqlContext &context)
{
    return std::make_unique<CountersTable>(context);
}

std::unique_ptr<SqlTable> makeFlowsTable(const SqlContext &context)
{
    return std::make_unique<FlowsTable>(context);
}

} // namespace tracedesk::core::sql
