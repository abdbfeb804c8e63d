#include "core/sql/columnaggregate.h"

#include "core/base/parallel.h"

#include <algorithm>
#include <limits>

namespace tracedesk::core::sql {

namespace {

constexpr uint64_t kExactDouble = uint64_t(1) << 53;
constexpr uint64_t kSaturated = std::numeric_limits<uint64_t>::max();

uint64_t saturatingAdd(uint64_t a, uint64_t b)
{
    return a + b < a ? kSaturated : a + b;
}

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
        magnitude = saturatingAdd(magnitude, v < 0 ? uint64_t(0) - uint64_t(v) : uint64_t(v));
        min = std::min(min, v);
        max = std::max(max, v);
    }
    void merge(const FieldSums &o)
    {
        sum += o.sum;
        magnitude = saturatingAdd(magnitude, o.magnitude);
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
    std::vector<uint32_t> selected;             // a chunk's slices that pass the WHERE
};

// The slices of a chunk a pass visits: all of them, or those a WHERE selected.
struct AllIn
{
    size_t from = 0, to = 0;
    template<typename F>
    void forEach(F &&f) const
    {
        for (size_t i = from; i < to; ++i)
            f(i);
    }
};
struct Selected
{
    const std::vector<uint32_t> &at;
    template<typename F>
    void forEach(F &&f) const
    {
        for (uint32_t i : at)
            f(size_t(i));
    }
};

// Calls f(valueAt) with the row's values of `field` as a function of the slice's index, read
// through the stored column's typed view: one switch per chunk, not per slice.
template<typename F>
void visitField(SliceField field, const SliceIds::RowSpan &span, const Row &row, int64_t origin,
                F &&f)
{
    switch (field) {
    case SliceField::Id:
        return f([&](size_t i) { return int64_t(span.base + i); });
    case SliceField::Track:
        return f([&](size_t) { return int64_t(span.track); });
    case SliceField::Depth:
        return f([&](size_t) { return int64_t(span.row); });
    case SliceField::Ts:
        return f([&](size_t i) { return row.start[i] - origin; });
    case SliceField::Dur:
        return row.duration.visit([&](auto d) { f([&](size_t i) { return d.at(i); }); });
    case SliceField::End:
        return row.duration.visit(
            [&](auto d) { f([&](size_t i) { return row.start[i] + d.at(i) - origin; }); });
    case SliceField::None:
        return;
    }
}

bool compare(int64_t v, Compare op, int64_t with)
{
    switch (op) {
    case Compare::Eq:
        return v == with;
    case Compare::Ne:
        return v != with;
    case Compare::Lt:
        return v < with;
    case Compare::Le:
        return v <= with;
    case Compare::Gt:
        return v > with;
    case Compare::Ge:
        return v >= with;
    }
    return false;
}

// Whether each kind passes the plan's tests of name, category and role (empty: no such test).
std::vector<uint8_t> kindsPassing(const Trace &trace, const std::vector<KindTest> &tests)
{
    if (tests.empty())
        return {};
    std::vector<uint8_t> pass(trace.kinds.size(), 1);
    for (size_t k = 0; k < trace.kinds.size(); ++k) {
        const EventKind &kind = trace.kinds[k];
        for (const KindTest &test : tests) {
            const std::string_view text = test.field == KindField::Name ? trace.string(kind.name)
                                          : test.field == KindField::Category
                                              ? trace.string(kind.category)
                                              : std::string_view(sliceRoleName(kind.role));
            const bool listed =
                std::find(test.values.begin(), test.values.end(), text) != test.values.end();
            if (listed == test.negated)
                pass[k] = 0;
        }
    }
    return pass;
}

class Summer
{
public:
    Summer(const SqlContext &context, std::vector<SliceField> fields, const AggregatePlan &plan)
        : m_ctx(context)
        , m_fields(std::move(fields))
        , m_tests(plan.sliceTests)
        , m_kindPass(kindsPassing(context.trace(), plan.kindTests))
    {}

    void sum(const Chunk &c, Partial &out) const
    {
        const SliceIds::RowSpan &span = m_ctx.ids().rows()[c.span];
        const Row &row = m_ctx.trace().tracks[span.track].rows[span.row];
        row.kind.visit([&](auto kinds) {
            if (m_tests.empty() && m_kindPass.empty())
                return sumOver(AllIn{c.from, c.to}, span, row, kinds, out);
            // The WHERE: the kinds' flags, then each slice test narrows the selection in turn.
            std::vector<uint32_t> &selected = out.selected;
            selected.clear();
            for (size_t i = c.from; i < c.to; ++i)
                if (m_kindPass.empty() || m_kindPass[size_t(kinds.at(i))])
                    selected.push_back(uint32_t(i));
            for (const SliceTest &test : m_tests) {
                visitField(test.field, span, row, m_ctx.origin(), [&](auto &&valueAt) {
                    std::erase_if(selected, [&](uint32_t i) {
                        return !compare(valueAt(i), test.op, test.value);
                    });
                });
            }
            sumOver(Selected{selected}, span, row, kinds, out);
        });
    }

private:
    template<typename Indices, typename Kinds>
    void sumOver(const Indices &indices, const SliceIds::RowSpan &span, const Row &row,
                 const Kinds &kinds, Partial &out) const
    {
        indices.forEach([&](size_t i) { ++out.count[size_t(kinds.at(i))]; });
        for (size_t f = 0; f < m_fields.size(); ++f) {
            std::vector<FieldSums> &sums = out.fields[f];
            visitField(m_fields[f], span, row, m_ctx.origin(), [&](auto &&valueAt) {
                indices.forEach([&](size_t i) { sums[size_t(kinds.at(i))].add(valueAt(i)); });
            });
        }
    }

    const SqlContext &m_ctx;
    std::vector<SliceField> m_fields;
    std::vector<SliceTest> m_tests;
    std::vector<uint8_t> m_kindPass;
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

// SQLite's order of two values of one result column: numbers by value (an integer and a double
// compared exactly, as SQLite does), or text as bytes.
int compareCells(const SqlCell &a, const SqlCell &b)
{
    if (const auto *x = std::get_if<std::string>(&a))
        return x->compare(std::get<std::string>(b));
    auto number = [](const SqlCell &c) {
        const auto *i = std::get_if<int64_t>(&c);
        return i ? static_cast<long double>(*i) : static_cast<long double>(std::get<double>(c));
    };
    if (a.index() == b.index() && std::holds_alternative<int64_t>(a))
        return std::get<int64_t>(a) < std::get<int64_t>(b) ? -1
               : std::get<int64_t>(a) > std::get<int64_t>(b) ? 1
                                                              : 0;
    const long double x = number(a), y = number(b);
    return x < y ? -1 : x > y ? 1 : 0;
}

// `value` divided or multiplied by the plan's number, with SQLite's arithmetic: integers stay
// integers (division truncates; a product that overflows becomes a double), anything with a
// double is a double.
SqlCell withNumber(SqlCell value, const PlanValue &v)
{
    if (v.op == 0)
        return value;
    const double n = double(v.number);
    if (const auto *i = std::get_if<int64_t>(&value)) {
        if (!v.realNumber) {
            int64_t product = 0;
            if (v.op == '/')
                return *i / v.number;
            if (!__builtin_mul_overflow(*i, v.number, &product))
                return product;
        }
        return v.op == '/' ? double(*i) / n : double(*i) * n;
    }
    const double d = std::get<double>(value);
    return v.op == '/' ? d / n : d * n;
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
    std::vector<Partial> partials(workerCount(chunks.size(), std::max(1u, threads)));
    for (Partial &p : partials) {
        p.count.assign(trace.kinds.size(), 0);
        p.fields.assign(fields.size(), std::vector<FieldSums>(trace.kinds.size()));
    }
    const Summer summer(context, fields, plan);
    std::atomic<bool> cancelled{false};
    parallelFor(chunks.size(), unsigned(partials.size()), [&](unsigned worker, size_t c) {
        if (cancel && cancel->load(std::memory_order_relaxed)) {
            cancelled = true;
            return false;
        }
        summer.sum(chunks[c], partials[worker]);
        return true;
    });
    if (cancelled)
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
            row.back() = withNumber(std::move(row.back()), v);
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
