// The `slices` table: every slice of the store, read in place. A scan visits the rows (depths)
// of the tracks in id order; `track`, `id`, `ts` and `end` constraints narrow it to a contiguous
// range of rows and, in each row, to an index range found by binary search (a row's starts and
// ends are both sorted, see model/track.h). So a time window costs one binary search per row
// plus the slices it returns, never a scan of the trace.

#include "core/sql/groupedscan.h"
#include "core/sql/groupsplit.h"
#include "core/sql/tables.h"

#include <algorithm>
#include <cmath>

namespace tracedesk::core::sql {

namespace {

enum Col {
    kId,
    kTrack,
    kDepth,
    kTs,
    kDur,
    kEnd,
    kName,
    kCategory,
    kRole,
    kSelfTime,
    kParentId,
    kStep,
    kCorrelation,
    kGroupId,
    kHloOp,
    kProgram,
    kFlops,
    kBytes,
    kBytesAccessed,
    kExternalId,
    kStream
};

const std::vector<SqlColumn> kColumns = {
    {"id", "INTEGER", "slice id (track by track, depth by depth, in start order)"},
    {"track", "INTEGER", "tracks.id"},
    {"depth", "INTEGER", "nesting depth, 0 = top level"},
    {"ts", "INTEGER", "start, ps from the trace's start (the timeline's 0)"},
    {"dur", "INTEGER", "duration, ps (0 for an instant)"},
    {"end", "INTEGER", "ts + dur, ps"},
    {"name", "TEXT", "event name"},
    {"category", "TEXT", "category as the file wrote it (Chrome JSON cat)"},
    {"role", "TEXT", "kernel, memcpy, memset, cpu_op, runtime, user_annotation, ... or ''"},
    {"self_time", "INTEGER", "dur minus the time of the slices directly nested in it, ps"},
    {"parent_id", "INTEGER", "id of the enclosing slice one depth up, NULL at depth 0"},
    {"step", "INTEGER", "steps.id of the step whose span holds ts, NULL outside steps"},
    {"correlation", "INTEGER", "correlation id (launch <-> GPU activity)"},
    {"group_id", "INTEGER", "XSpace group id (step group)"},
    {"hlo_op", "TEXT", "HLO op name (XSpace)"},
    {"program", "INTEGER", "XLA program id (XSpace)"},
    {"flops", "INTEGER", "FLOPs (XSpace)"},
    {"bytes", "INTEGER", "bytes of a memcpy / memset / memory event"},
    {"bytes_accessed", "INTEGER", "bytes accessed (XSpace)"},
    {"external_id", "INTEGER", "Kineto external id (the op a launch / GPU activity belongs to)"},
    {"stream", "INTEGER", "GPU stream of a GPU activity (Kineto)"},
};

// idxNum flags: stream the slices grouped by name / category (for GROUP BY).
constexpr int kGroupByName = 1;
constexpr int kGroupByCategory = 2;
constexpr int kGroupDescending = 4;

struct Bounds
{
    IntRange id, track, ts, end;
};

// Index of the first i in [0, n) with key(i) >= v (keys non-decreasing).
template<typename Key> size_t lowerBound(size_t n, int64_t v, Key &&key)
{
    size_t lo = 0, hi = n;
    while (lo < hi) {
        const size_t mid = lo + (hi - lo) / 2;
        if (key(mid) < v)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

class SlicesCursor : public SqlCursor
{
public:
    explicit SlicesCursor(const SqlContext &context)
        : m_ctx(context)
    {}

    void filter(int idxNum, const char *idxStr, int argc, sqlite3_value **argv) override
    {
        m_grouped.reset();
        if (idxNum & (kGroupByName | kGroupByCategory)) {
            m_grouped = std::make_unique<GroupedSliceScan>(
                m_ctx.trace(), m_ctx.ids(),
                idxNum & kGroupByName ? GroupKey::Name : GroupKey::Category,
                (idxNum & kGroupDescending) != 0, m_ctx.groupPart());
            m_groupedDone = false;
            nextGrouped();
            return;
        }
        Bounds b;
        for (int k = 0; idxStr && idxStr[0] && idxStr[1] && k < argc; ++k, idxStr += 2) {
            const unsigned char op = static_cast<unsigned char>(idxStr[1]);
            switch (idxStr[0]) {
            case 'i':
                b.id.apply(op, argv[k]);
                break;
            case 't':
                b.track.apply(op, argv[k]);
                break;
            case 's':
                b.ts.apply(op, argv[k]);
                break;
            case 'e':
                b.end.apply(op, argv[k]);
                break;
            default:
                break;
            }
        }
        // SQL times count from the trace's start; the rows hold store times.
        b.ts = b.ts.shifted(m_ctx.origin());
        b.end = b.end.shifted(m_ctx.origin());
        m_bounds = b;
        const SliceIds &ids = m_ctx.ids();
        m_span = 0;
        m_spanEnd = 0;
        if (b.id.empty() || b.track.empty() || b.ts.empty() || b.end.empty() || b.track.hi < 0 ||
            b.track.lo >= int64_t(ids.trackCount())) {
            m_index = m_indexEnd = 0;
            return;
        }
        const uint32_t firstTrack = uint32_t(std::max<int64_t>(0, b.track.lo));
        const uint32_t lastTrack =
            uint32_t(std::min<int64_t>(int64_t(ids.trackCount()) - 1, b.track.hi));
        m_span = ids.trackBegin(firstTrack);
        m_spanEnd = ids.trackBegin(lastTrack + 1);
        m_index = m_indexEnd = 0;
        --m_span; // enterSpan() starts at the next one
        advanceSpan();
    }

    void next() override
    {
        if (m_grouped)
            nextGrouped();
        else if (++m_index >= m_indexEnd)
            advanceSpan();
    }

    bool eof() const override { return m_grouped ? m_groupedDone : m_span >= m_spanEnd; }

    int64_t rowid() const override { return int64_t(currentSpan().base + m_index); }

    void column(sqlite3_context *ctx, int column) override
    {
        const Trace &trace = m_ctx.trace();
        const SliceIds::RowSpan &span = currentSpan();
        const Row &row = currentRow();
        const size_t i = m_index;
        switch (column) {
        case kId:
            sqlite3_result_int64(ctx, int64_t(span.base + i));
            return;
        case kTrack:
            sqlite3_result_int64(ctx, span.track);
            return;
        case kDepth:
            sqlite3_result_int64(ctx, span.row);
            return;
        case kTs:
            sqlite3_result_int64(ctx, row.start[i] - m_ctx.origin());
            return;
        case kDur:
            sqlite3_result_int64(ctx, row.duration[i]);
            return;
        case kEnd:
            sqlite3_result_int64(ctx, row.end(i) - m_ctx.origin());
            return;
        case kName: {
            // Grouped scans serve a name's slices one after another: look its text up once.
            const uint32_t kind = uint32_t(row.kind[i]);
            if (kind != m_nameKind) {
                m_nameKind = kind;
                m_name = trace.string(trace.kinds[kind].name);
            }
            resultStaticText(ctx, m_name.data(), m_name.size());
            return;
        }
        case kCategory: {
            const std::string_view s = trace.string(trace.kinds[row.kind[i]].category);
            resultStaticText(ctx, s.data(), s.size());
            return;
        }
        case kRole: {
            const char *s = sliceRoleName(trace.kinds[row.kind[i]].role);
            sqlite3_result_text(ctx, s, -1, SQLITE_STATIC);
            return;
        }
        case kSelfTime:
            sqlite3_result_int64(ctx, selfTime(span, row, i));
            return;
        case kParentId: {
            const int64_t parent = parentId(span, row, i);
            if (parent < 0)
                sqlite3_result_null(ctx);
            else
                sqlite3_result_int64(ctx, parent);
            return;
        }
        case kStep: {
            const auto step = m_ctx.stepAt(row.start[i]);
            if (step)
                sqlite3_result_int64(ctx, int64_t(*step));
            else
                sqlite3_result_null(ctx);
            return;
        }
        case kCorrelation:
            return side(ctx, SideColumn::CorrelationId);
        case kGroupId:
            return side(ctx, SideColumn::GroupId);
        case kHloOp:
            return side(ctx, SideColumn::HloOp);
        case kProgram:
            return side(ctx, SideColumn::ProgramId);
        case kFlops:
            return side(ctx, SideColumn::Flops);
        case kBytes:
            return side(ctx, SideColumn::Bytes);
        case kBytesAccessed:
            return side(ctx, SideColumn::BytesAccessed);
        case kExternalId:
            return side(ctx, SideColumn::ExternalId);
        case kStream:
            return side(ctx, SideColumn::Stream);
        default:
            sqlite3_result_null(ctx);
            return;
        }
    }

private:
    void nextGrouped()
    {
        uint32_t span = 0, index = 0;
        m_groupedDone = !m_grouped->next(&span, &index);
        m_span = span;
        m_index = index;
    }

    const SliceIds::RowSpan &currentSpan() const { return m_ctx.ids().rows()[m_span]; }

    const Row &currentRow()
    {
        if (m_span != m_rowSpan || !m_row) {
            const SliceIds::RowSpan &span = currentSpan();
            m_row = &m_ctx.trace().tracks[span.track].rows[span.row];
            m_rowSpan = m_span;
        }
        return *m_row;
    }

    // Moves to the next row span with slices inside the bounds.
    void advanceSpan()
    {
        const SliceIds &ids = m_ctx.ids();
        const Trace &trace = m_ctx.trace();
        while (++m_span < m_spanEnd) {
            const SliceIds::RowSpan &span = ids.rows()[m_span];
            const Row &row = trace.tracks[span.track].rows[span.row];
            const int64_t n = int64_t(row.size());
            // id bounds, as indices of this row
            // Saturating: a bound far outside the ids (e.g. id < -2^63 + 5) must not overflow.
            const auto relative = [&](int64_t id) {
                int64_t r = 0;
                return __builtin_sub_overflow(id, int64_t(span.base), &r)
                           ? (id < 0 ? INT64_MIN : INT64_MAX)
                           : r;
            };
            int64_t lo = std::max<int64_t>(0, relative(m_bounds.id.lo));
            int64_t hi = n;
            if (m_bounds.id.hi != INT64_MAX) {
                const int64_t last = relative(m_bounds.id.hi);
                hi = last < 0 ? 0 : std::min<int64_t>(n, last + 1);
            }
            if (lo >= hi)
                continue;
            if (m_bounds.ts.lo != INT64_MIN)
                lo = std::max<int64_t>(lo,
                                       int64_t(lowerBound(size_t(n), m_bounds.ts.lo,
                                                          [&](size_t k) { return row.start[k]; })));
            if (m_bounds.ts.hi != INT64_MAX && m_bounds.ts.hi < INT64_MAX)
                hi = std::min<int64_t>(hi,
                                       int64_t(lowerBound(size_t(n), m_bounds.ts.hi + 1,
                                                          [&](size_t k) { return row.start[k]; })));
            if (m_bounds.end.lo != INT64_MIN)
                lo = std::max<int64_t>(lo,
                                       int64_t(lowerBound(size_t(n), m_bounds.end.lo,
                                                          [&](size_t k) { return row.end(k); })));
            if (m_bounds.end.hi != INT64_MAX)
                hi = std::min<int64_t>(hi,
                                       int64_t(lowerBound(size_t(n), m_bounds.end.hi + 1,
                                                          [&](size_t k) { return row.end(k); })));
            if (lo < hi) {
                m_index = size_t(lo);
                m_indexEnd = size_t(hi);
                return;
            }
        }
    }

    void side(sqlite3_context *ctx, SideColumn column) const
    {
        const SliceIds::RowSpan &span = currentSpan();
        const int64_t v = m_ctx.trace().side({span.track, span.row, uint32_t(m_index)}, column);
        if (v == kNoValue) {
            sqlite3_result_null(ctx);
        } else if (sideColumnHoldsString(column)) {
            const std::string_view s = m_ctx.trace().string(StringId(v));
            resultStaticText(ctx, s.data(), s.size());
        } else {
            sqlite3_result_int64(ctx, v);
        }
    }

    int64_t selfTime(const SliceIds::RowSpan &span, const Row &row, size_t i) const
    {
        const Track &track = m_ctx.trace().tracks[span.track];
        const TimePs start = row.start[i], end = row.end(i);
        TimePs self = row.duration[i];
        if (span.row + 1 >= track.rows.size() || self <= 0)
            return self;
        const Row &child = track.rows[span.row + 1];
        size_t k = lowerBound(child.size(), start, [&](size_t j) { return child.start[j]; });
        for (; k < child.size() && child.start[k] < end; ++k)
            self -= std::max<TimePs>(0, std::min(child.end(k), end) - child.start[k]);
        return std::max<TimePs>(0, self);
    }

    int64_t parentId(const SliceIds::RowSpan &span, const Row &row, size_t i) const
    {
        if (span.row == 0)
            return -1;
        const Row &up = m_ctx.trace().tracks[span.track].rows[span.row - 1];
        const TimePs start = row.start[i];
        // The last slice of the row above starting at or before this one.
        const size_t k = lowerBound(up.size(), start + 1, [&](size_t j) { return up.start[j]; });
        if (k == 0)
            return -1;
        if (up.end(k - 1) < row.end(i))
            return -1;
        return m_ctx.ids().idOf({span.track, span.row - 1, uint32_t(k - 1)});
    }

    const SqlContext &m_ctx;
    Bounds m_bounds;
    uint32_t m_span = 0;
    uint32_t m_spanEnd = 0;
    size_t m_index = 0;
    size_t m_indexEnd = 0;
    // column()'s lookups of the current row and of the last name served.
    const Row *m_row = nullptr;
    uint32_t m_rowSpan = 0;
    uint32_t m_nameKind = UINT32_MAX;
    std::string_view m_name;
    std::unique_ptr<GroupedSliceScan> m_grouped;
    bool m_groupedDone = true;
};

class SlicesTable : public SqlTable
{
public:
    explicit SlicesTable(const SqlContext &context)
        : m_ctx(context)
    {}

    const char *name() const override { return "slices"; }
    const char *doc() const override
    {
        return "every slice (instants included); WHERE on id, track, ts and end uses the "
               "store's sorted rows";
    }
    const std::vector<SqlColumn> &columns() const override { return kColumns; }
    double fullScanRows() const override { return double(m_ctx.ids().total()); }
    std::unique_ptr<SqlCursor> open() const override
    {
        return std::make_unique<SlicesCursor>(m_ctx);
    }

    void bestIndex(sqlite3_index_info *info) const override
    {
        const Trace &trace = m_ctx.trace();
        const double total = std::max(1.0, fullScanRows());
        const double rowSpans = std::max<double>(1, double(m_ctx.ids().rows().size()));
        std::string idx;
        int argv = 0;
        // Known constant values (NULL when the value comes from a join) refine the estimate.
        Bounds known;
        bool idEq = false, trackEq = false, tsLo = false, tsHi = false, endLo = false,
             endHi = false;
        for (int c = 0; c < info->nConstraint; ++c) {
            const auto &cons = info->aConstraint[c];
            if (!cons.usable)
                continue;
            const unsigned char op = cons.op;
            const bool eq = op == SQLITE_INDEX_CONSTRAINT_EQ;
            const bool lower = op == SQLITE_INDEX_CONSTRAINT_GT || op == SQLITE_INDEX_CONSTRAINT_GE;
            const bool upper = op == SQLITE_INDEX_CONSTRAINT_LT || op == SQLITE_INDEX_CONSTRAINT_LE;
            if (!eq && !lower && !upper)
                continue;
            char code = 0;
            IntRange *range = nullptr;
            switch (cons.iColumn) {
            case kId:
                code = 'i';
                range = &known.id;
                idEq |= eq;
                break;
            case kTrack:
                code = 't';
                range = &known.track;
                trackEq |= eq;
                break;
            case kTs:
                code = 's';
                range = &known.ts;
                tsLo |= eq || lower;
                tsHi |= eq || upper;
                break;
            case kEnd:
                code = 'e';
                range = &known.end;
                endLo |= eq || lower;
                endHi |= eq || upper;
                break;
            default:
                continue;
            }
            info->aConstraintUsage[c].argvIndex = ++argv;
            info->aConstraintUsage[c].omit = 0; // SQLite re-checks: bounds are a superset
            idx += code;
            idx += char(op);
            sqlite3_value *value = nullptr;
            if (sqlite3_vtab_rhs_value(info, c, &value) == SQLITE_OK && value)
                range->apply(op, value);
        }
        double rows = total;
        double searches = 0;
        if (idEq) {
            rows = 1;
            searches = 1;
        } else {
            double spans = rowSpans;
            if (trackEq) {
                const auto &r = known.track;
                if (r.lo == r.hi && r.lo >= 0 && r.lo < int64_t(trace.tracks.size())) {
                    rows = double(trace.tracks[size_t(r.lo)].sliceCount);
                    spans = double(trace.tracks[size_t(r.lo)].rows.size());
                } else {
                    rows = total / std::max<double>(1, double(trace.tracks.size()));
                    spans = rowSpans / std::max<double>(1, double(trace.tracks.size()));
                }
            }
            const bool bothTs = (tsLo || endLo) && (tsHi || endHi);
            if (tsLo || tsHi || endLo || endHi) {
                const double span = std::max<double>(1, double(trace.end - trace.begin));
                const int64_t lo = std::max(known.ts.lo, known.end.lo);
                const int64_t hi = std::min(known.ts.hi, known.end.hi);
                double fraction = bothTs ? 0.01 : 0.25; // values unknown (a join)
                if (lo != INT64_MIN && hi != INT64_MAX)
                    fraction = hi < lo ? 0 : std::min(1.0, (double(hi) - double(lo) + 1) / span);
                else if (lo != INT64_MIN)
                    fraction = std::clamp((span - double(lo)) / span, 0.0, 1.0);
                else if (hi != INT64_MAX)
                    fraction = std::clamp(double(hi) / span, 0.0, 1.0);   // SQL times start at 0
                rows *= fraction;
                searches = spans;
            }
        }
        rows = std::max(1.0, rows);
        info->estimatedRows = sqlite3_int64(rows);
        info->estimatedCost = rows + searches * 20;
        if (idEq)
            info->idxFlags |= SQLITE_INDEX_SCAN_UNIQUE;
        info->idxNum = 0;
        // Rows come in id order (so track order too): ORDER BY id / track needs no sort, and
        // GROUP BY track no grouping. GROUP BY / ORDER BY name or category over the whole
        // table streams the slices sorted by it (groupedscan.h) instead of a SQLite sort.
        if (info->nOrderBy == 1) {
            const auto &order = info->aOrderBy[0];
            if ((order.iColumn == kId || order.iColumn == kTrack) && !order.desc) {
                info->orderByConsumed = 1;
            } else if (argv == 0 && (order.iColumn == kName || order.iColumn == kCategory)) {
                info->orderByConsumed = 1;
                info->idxNum = (order.iColumn == kName ? kGroupByName : kGroupByCategory) |
                               (order.desc ? kGroupDescending : 0);
                // Names the plan in the statement's program, where groupsplit.h looks for it.
                info->idxStr = const_cast<char *>(kGroupedScanPlan);
                info->needToFreeIdxStr = 0;
                info->estimatedCost = rows * 1.2 + 1000;
            }
        }
        if (!idx.empty()) {
            info->idxStr = sqlite3_mprintf("%s", idx.c_str());
            info->needToFreeIdxStr = 1;
        }
    }

private:
    const SqlContext &m_ctx;
};

} // namespace

std::unique_ptr<SqlTable> makeSlicesTable(const SqlContext &context)
{
    return std::make_unique<SlicesTable>(context);
}

} // namespace tracedesk::core::sql
