#include "core/sql/columnaggregate.h"

#include <algorithm>
#include <limits>
#include <thread>

namespace tracedesk::core::sql {

namespace {

constexpr uint64_t kExactDouble = uint64_t(1) << 53;
constexpr uint64_t kSaturated = std::numeric_limits<uint64_t>::max();

// One column's running sums for one kind (then one group). The sum wraps; it is only read when
// the magnitudes' sum shows that no order of the terms could overflow.
struct FieldSums
{
    uint64_t sum = 0;
    uint64_t magnitude = 0; // sum of |v|, saturating
    int64_t min = std::numeric_limits<int64_t>::max();
    int64_t max = std::numeric_limits<int64_t>::min();

    void add(int64_t v)
    {
        sum += uint64_t(v);
        const uint64_t m = v < 0 ? uint64_t(0) - uint64_t(v) : uint64_t(v);
        magnitude = magnitude + m < magnitude ? kSaturated : magnitude + m;
        min = std::min(min, v);
        max = std::max(max, v);
    }
    void merge(const FieldSums &o)
    {
        sum += o.sum;
        magnitude = magnitude + o.magnitude < magnitude ? kSaturated : magnitude + o.magnitude;
        min = std::min(min, o.min);
        max = std::max(max, o.max);
    }
};

struct Chunk
{
    uint32_t span = 0;
    size_t from = 0, to = 0;
};

// One worker's sums, by kind.
struct Partial
{
    std::vector<uint64_t> count;
    std::vector<std::vector<FieldSums>> fields; // per plan field, per kind
};

class Summer
{
public:
    Summer(const SqlContext &context, std::vector<SliceField> fields)
        : m_ctx(context)
        , m_fields(std::move(fields))
    {}

    void sum(const Chunk &c, Partial &out) const
    {
        const SliceIds::RowSpan &span = m_ctx.ids().rows()[c.span];
        const Row &row = m_ctx.trace().tracks[span.track].rows[span.row];
        row.kind.visit([&](auto kinds) {
            for (size_t i = c.from; i < c.to; ++i)
                ++out.count[size_t(kinds.at(i))];
            for (size_t f = 0; f < m_fields.size(); ++f)
                sumField(m_fields[f], span, row, c, kinds, out.fields[f]);
        });
    }

private:
    template<typename Kinds>
    void sumField(SliceField field, const SliceIds::RowSpan &span, const Row &row, const Chunk &c,
                  const Kinds &kinds, std::vector<FieldSums> &out) const
    {
        const int64_t origin = m_ctx.origin();
        auto each = [&](auto &&valueAt) {
            for (size_t i = c.from; i < c.to; ++i)
                out[size_t(kinds.at(i))].add(valueAt(i));
        };
        switch (field) {
        case SliceField::Id:
            return each([&](size_t i) { return int64_t(span.base + i); });
        case SliceField::Track:
            return each([&](size_t) { return int64_t(span.track); });
        case SliceField::Depth:
            return each([&](size_t) { return int64_t(span.row); });
        case SliceField::Ts:
            return each([&](size_t i) { return row.start[i] - origin; });
        case SliceField::Dur:
            return row.duration.visit([&](auto d) { each([&](size_t i) { return d.at(i); }); });
        case SliceField::End:
            return row.duration.visit([&](auto d) {
                each([&](size_t i) { return row.start[i] + d.at(i) - origin; });
            });
        case SliceField::None:
            return;
        }
    }

    const SqlContext &m_ctx;
    std::vector<SliceField> m_fields;
};

std::vector<Chunk> chunksOf(const SliceIds &ids, const Trace &trace, size_t chunkSlices)
{
    std::vector<Chunk> chunks;
    for (uint32_t s = 0; s < ids.rows().size(); ++s) {
        const auto &span = ids.rows()[s];
        const size_t n = trace.tracks[span.track].rows[span.row].size();
        for (size_t from = 0; from < n; from += chunkSlices)
            chunks.push_back({s, from, std::min(n, from + chunkSlices)});
    }
    return chunks;
}

// SQLite's order of two values of one result column: integers, doubles, or text as bytes.
int compareCells(const SqlCell &a, const SqlCell &b)
{
    if (const auto *x = std::get_if<int64_t>(&a))
        return *x < std::get<int64_t>(b) ? -1 : *x > std::get<int64_t>(b) ? 1 : 0;
    if (const auto *x = std::get_if<double>(&a))
        return *x < std::get<double>(b) ? -1 : *x > std::get<double>(b) ? 1 : 0;
    return std::get<std::string>(a).compare(std::get<std::string>(b));
}

} // namespace

std::optional<Result<SqlRows>> runColumnAggregate(const SqlContext &context,
                                                  const AggregatePlan &plan,
                                                  const std::atomic<bool> *cancel,
                                                  unsigned threads,
                                                  size_t chunkSlices)
{
    const Trace &trace = context.trace();
    std::vector<SliceField> fields;
    for (const PlanValue &v : plan.values)
        if (v.field != SliceField::None &&
            std::find(fields.begin(), fields.end(), v.field) == fields.end())
            fields.push_back(v.field);
    auto fieldIndex = [&](SliceField f) {
        return size_t(std::find(fields.begin(), fields.end(), f) - fields.begin());
    };

    const std::vector<Chunk> chunks =
        chunksOf(context.ids(), trace, std::max<size_t>(1, chunkSlices));
    threads = std::clamp<unsigned>(threads, 1, unsigned(std::max<size_t>(1, chunks.size())));
    std::vector<Partial> partials(threads);
    for (Partial &p : partials) {
        p.count.assign(trace.kinds.size(), 0);
        p.fields.assign(fields.size(), std::vector<FieldSums>(trace.kinds.size()));
    }
    const Summer summer(context, fields);
    std::atomic<size_t> nextChunk{0};
    std::atomic<bool> stopped{false};
    auto work = [&](Partial &out) {
        for (size_t c; (c = nextChunk.fetch_add(1)) < chunks.size();) {
            if (cancel && cancel->load(std::memory_order_relaxed)) {
                stopped = true;
                return;
            }
            summer.sum(chunks[c], out);
        }
    };
    {
        std::vector<std::jthread> helpers;
        for (unsigned t = 1; t < threads; ++t)
            helpers.emplace_back([&, t] { work(partials[t]); });
        work(partials[0]);
    }
    if (stopped)
        return Result<SqlRows>::cancelled();

    // Kinds folded into groups, in group order.
    const GroupRanks ranks = rankGroups(trace, plan.key);
    std::vector<uint64_t> count(ranks.text.size(), 0);
    std::vector<std::vector<FieldSums>> sums(fields.size(),
                                             std::vector<FieldSums>(ranks.text.size()));
    for (const Partial &p : partials)
        for (size_t k = 0; k < trace.kinds.size(); ++k) {
            const uint32_t r = ranks.ofKind[k];
            count[r] += p.count[k];
            for (size_t f = 0; f < fields.size(); ++f)
                sums[f][r].merge(p.fields[f][k]);
        }

    std::vector<uint32_t> groups;
    for (uint32_t r = 0; r < count.size(); ++r)
        if (count[r] > 0)
            groups.push_back(r);
    SqlRows rows;
    rows.reserve(groups.size());
    for (uint32_t r : groups) {
        std::vector<SqlCell> row;
        row.reserve(plan.values.size());
        for (const PlanValue &v : plan.values) {
            const FieldSums *s =
                v.field == SliceField::None ? nullptr : &sums[fieldIndex(v.field)][r];
            switch (v.fn) {
            case AggregateFn::Key:
                row.emplace_back(std::string(trace.string(ranks.text[r])));
                break;
            case AggregateFn::Count:
                row.emplace_back(int64_t(count[r]));
                break;
            case AggregateFn::Sum:
                if (s->magnitude > uint64_t(std::numeric_limits<int64_t>::max()))
                    return std::nullopt;
                row.emplace_back(int64_t(s->sum));
                break;
            case AggregateFn::Total:
            case AggregateFn::Avg: {
                if (s->magnitude > kExactDouble)
                    return std::nullopt;
                const double total = double(int64_t(s->sum));
                row.emplace_back(v.fn == AggregateFn::Total ? total : total / double(count[r]));
                break;
            }
            case AggregateFn::Min:
                row.emplace_back(s->min);
                break;
            case AggregateFn::Max:
                row.emplace_back(s->max);
                break;
            }
        }
        rows.push_back(std::move(row));
    }

    if (!plan.order.empty())
        std::stable_sort(rows.begin(), rows.end(), [&](const auto &a, const auto &b) {
            for (const PlanOrder &term : plan.order) {
                const int c = compareCells(a[term.value], b[term.value]);
                if (c != 0)
                    return term.descending ? c > 0 : c < 0;
            }
            return false;
        });
    const size_t first = size_t(std::min<uint64_t>(plan.offset, rows.size()));
    const size_t last = plan.limit ? size_t(std::min<uint64_t>(first + *plan.limit, rows.size()))
                                   : rows.size();
    SqlRows out;
    out.reserve(last - first);
    for (size_t k = first; k < last; ++k) {
        rows[k].resize(plan.resultColumns);
        out.push_back(std::move(rows[k]));
    }
    return out;
}

} // namespace tracedesk::core::sql
