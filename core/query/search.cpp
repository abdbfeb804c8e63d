#include "core/query/search.h"

#include "core/base/parallel.h"

#include <algorithm>
#include <array>
#include <limits>
#include <thread>

namespace tracedesk::core {

namespace {

constexpr size_t kChunk = 16 * 1024;   // slices between cancellation polls

char lower(char c)
{
    return (c >= 'A' && c <= 'Z') ? char(c - 'A' + 'a') : c;
}

struct Unit
{
    uint32_t track;
    uint32_t row;
    uint64_t count = 0;
    std::vector<uint32_t> hits;   // row indices, at most cap
};

struct SortEntry
{
    TimePs start;
    uint32_t unit;
    uint32_t pos;
};

TimePs startOf(const Trace &trace, const Unit &unit, size_t k)
{
    return trace.tracks[unit.track].rows[unit.row].start[unit.hits[k]];
}

// Hits of `unit` with start <= t (they are in start order).
size_t countAtMost(const Trace &trace, const Unit &unit, TimePs t)
{
    size_t lo = 0, hi = unit.hits.size();
    while (lo < hi) {
        const size_t mid = lo + (hi - lo) / 2;
        if (startOf(trace, unit, mid) <= t)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

// The earliest `cap` hits of all units, in (unit, position) order. Each unit's hits are sorted
// by start, so a cutoff time found by bisection selects them without merging: everything
// before the cutoff, then hits at the cutoff in unit order until the cap is reached.
void collectEarliest(const Trace &trace, const std::vector<Unit> &units, size_t cap,
                     std::vector<SortEntry> &out)
{
    std::vector<size_t> take(units.size());
    size_t available = 0;
    TimePs lo = std::numeric_limits<TimePs>::max(), hi = std::numeric_limits<TimePs>::min();
    for (size_t u = 0; u < units.size(); ++u) {
        const Unit &unit = units[u];
        take[u] = unit.hits.size();
        available += take[u];
        if (!unit.hits.empty()) {
            lo = std::min(lo, startOf(trace, unit, 0));
            hi = std::max(hi, startOf(trace, unit, unit.hits.size() - 1));
        }
    }
    if (available > cap) {
        auto total = [&](TimePs t) {
            size_t n = 0;
            for (const Unit &unit : units)
                n += countAtMost(trace, unit, t);
            return n;
        };
        // The smallest t with at least `cap` hits at or before it.
        while (lo < hi) {
            const TimePs mid = lo + TimePs((uint64_t(hi) - uint64_t(lo)) / 2);
            if (total(mid) >= cap)
                hi = mid;
            else
                lo = mid + 1;
        }
        size_t before = 0;
        for (size_t u = 0; u < units.size(); ++u) {
            take[u] = lo == std::numeric_limits<TimePs>::min() ? 0 : countAtMost(trace, units[u], lo - 1);
            before += take[u];
        }
        size_t remaining = cap - std::min(cap, before);
        for (size_t u = 0; u < units.size(); ++u) {
            const size_t ties = countAtMost(trace, units[u], lo) - take[u];
            const size_t extra = std::min(ties, remaining);
            take[u] += extra;
            remaining -= extra;
        }
    }
    out.clear();
    out.reserve(std::min(cap, available));
    for (size_t u = 0; u < units.size(); ++u) {
        for (size_t k = 0; k < take[u]; ++k)
            out.push_back({startOf(trace, units[u], k), uint32_t(u), uint32_t(k)});
    }
}

// Stable LSD radix sort on start, 8 bits at a time, skipping bytes every key shares.
void radixSortByStart(std::vector<SortEntry> &v)
{
    if (v.size() < 64) {
        std::stable_sort(v.begin(), v.end(),
                         [](const SortEntry &a, const SortEntry &b) { return a.start < b.start; });
        return;
    }
    TimePs low = v.front().start;
    for (const SortEntry &e : v)
        low = std::min(low, e.start);
    auto key = [low](const SortEntry &e) { return uint64_t(e.start) - uint64_t(low); };
    std::vector<std::array<size_t, 256>> histogram(8);
    for (auto &h : histogram)
        h.fill(0);
    for (const SortEntry &e : v) {
        const uint64_t k = key(e);
        for (int b = 0; b < 8; ++b)
            ++histogram[b][(k >> (8 * b)) & 0xff];
    }
    std::vector<SortEntry> scratch(v.size());
    for (int b = 0; b < 8; ++b) {
        auto &h = histogram[b];
        if (h[(key(v.front()) >> (8 * b)) & 0xff] == v.size())
            continue;   // every key has the same byte here
        size_t sum = 0;
        for (size_t &count : h) {
            const size_t c = count;
            count = sum;
            sum += c;
        }
        for (const SortEntry &e : v)
            scratch[h[(key(e) >> (8 * b)) & 0xff]++] = e;
        v.swap(scratch);
    }
}

bool cancelled(const SearchOptions &options)
{
    return options.cancel && options.cancel->load(std::memory_order_relaxed);
}

// Op mode on rows that keep the HLO / framework op per slice: a slice matches through its kind
// or through one of those string columns.
struct SideMatch
{
    const std::vector<uint8_t> *strings = nullptr;   // per StringId: 1 when it names the op
    std::array<const PackedInts *, 2> columns{};
};

void scanRowWithSide(const Row &row, const uint8_t *table, const SideMatch &side,
                     const SearchOptions &options, Unit &unit)
{
    const PackedInts &kind = row.kind;
    const size_t n = row.size();
    const std::vector<uint8_t> &strings = *side.strings;
    auto hit = [&](size_t i) {
        if (table[kind[i]])
            return true;
        for (const PackedInts *column : side.columns) {
            if (column && !column->empty()) {
                const int64_t v = (*column)[i];
                if (v >= 0 && size_t(v) < strings.size() && strings[size_t(v)])
                    return true;
            }
        }
        return false;
    };
    for (size_t base = 0; base < n; base += kChunk) {
        if (cancelled(options))
            return;
        const size_t end = std::min(n, base + kChunk);
        for (size_t i = base; i < end; ++i) {
            if (!hit(i))
                continue;
            ++unit.count;
            if (unit.hits.size() < options.cap)
                unit.hits.push_back(uint32_t(i));
        }
    }
}

// Scans one row. `single` is the only matching kind id when there is exactly one, which
// turns the table lookup into a compare the compiler vectorises.
template<typename Kinds>
void scanKinds(const Kinds &kind, size_t n, const uint8_t *table, int64_t single,
               const SearchOptions &options, Unit &unit)
{
    for (size_t base = 0; base < n; base += kChunk) {
        if (cancelled(options))
            return;
        const size_t end = std::min(n, base + kChunk);
        uint32_t found = 0;
        if (single >= 0) {
            const auto id = uint32_t(single);
            for (size_t i = base; i < end; ++i)
                found += kind[i] == int64_t(id);
        } else {
            for (size_t i = base; i < end; ++i)
                found += table[kind[i]];
        }
        if (found == 0)
            continue;
        unit.count += found;
        for (size_t i = base; i < end && unit.hits.size() < options.cap; ++i) {
            if (table[kind[i]])
                unit.hits.push_back(uint32_t(i));
        }
    }
}

void scanRow(const Row &row, const uint8_t *table, int64_t single, const SearchOptions &options,
             Unit &unit)
{
    row.kind.visit([&](auto kind) { scanKinds(kind, row.size(), table, single, options, unit); });
}

} // namespace

bool containsIgnoringCase(std::string_view haystack, std::string_view needle)
{
    if (needle.empty())
        return true;
    if (needle.size() > haystack.size())
        return false;
    const char first = lower(needle.front());
    for (size_t i = 0; i + needle.size() <= haystack.size(); ++i) {
        if (lower(haystack[i]) != first)
            continue;
        size_t k = 1;
        while (k < needle.size() && lower(haystack[i + k]) == lower(needle[k]))
            ++k;
        if (k == needle.size())
            return true;
    }
    return false;
}

std::vector<uint8_t> matchingKinds(const Trace &trace, std::string_view query)
{
    std::vector<uint8_t> table(trace.kinds.size(), 0);
    if (query.empty())
        return table;
    for (size_t k = 0; k < trace.kinds.size(); ++k) {
        const EventKind &kind = trace.kinds[k];
        table[k] = containsIgnoringCase(trace.string(kind.name), query)
                   || (kind.displayName != kind.name
                       && containsIgnoringCase(trace.string(kind.displayName), query));
    }
    return table;
}

bool matchesOp(std::string_view name, std::string_view op)
{
    if (op.empty() || name.size() < op.size() || name.compare(0, op.size(), op) != 0)
        return false;
    return name.size() == op.size() || name[op.size()] == ':';
}

Result<SearchResult> searchSlices(const Trace &trace, std::string_view query,
                                  const SearchOptions &options)
{
    SearchResult result;
    const bool opMode = options.mode == SearchMode::Op;
    std::vector<uint8_t> table;
    std::vector<uint8_t> strings;   // op mode: per StringId, names the op
    if (opMode) {
        strings.assign(trace.strings.size(), 0);
        for (size_t id = 0; id < strings.size(); ++id) {
            const std::string_view name = trace.strings.view(StringId(id));
            bool match = matchesOp(name, query);
            for (size_t a = 0; !match && a < options.alsoOps.size(); ++a)
                match = matchesOp(name, options.alsoOps[a]);
            strings[id] = match;
        }
        auto named = [&](int64_t id) {
            return id >= 0 && size_t(id) < strings.size() && strings[size_t(id)];
        };
        table.assign(trace.kinds.size(), 0);
        for (size_t k = 0; k < trace.kinds.size(); ++k) {
            const EventKind &kind = trace.kinds[k];
            table[k] = named(kind.name) || named(kind.displayName)
                       || named(kind.side[size_t(SideColumn::HloOp)])
                       || named(kind.side[size_t(SideColumn::FrameworkOp)]);
        }
    } else {
        table = matchingKinds(trace, query);
    }
    const bool anyString = opMode && std::find(strings.begin(), strings.end(), 1) != strings.end();
    const auto matched = size_t(std::count(table.begin(), table.end(), uint8_t(1)));
    if (matched == 0 && !anyString)
        return cancelled(options) ? Result<SearchResult>::cancelled() : Result(std::move(result));
    const int64_t single = matched == 1
                               ? int64_t(std::find(table.begin(), table.end(), 1) - table.begin())
                               : -1;

    std::vector<Unit> units;
    for (uint32_t t = 0; t < trace.tracks.size(); ++t) {
        for (uint32_t r = 0; r < trace.tracks[t].rows.size(); ++r) {
            if (trace.tracks[t].rows[r].size() > 0)
                units.push_back(Unit{t, r, 0, {}});
        }
    }
    auto rowOf = [&](const Unit &u) -> const Row & { return trace.tracks[u.track].rows[u.row]; };
    std::vector<uint32_t> order(units.size());
    for (uint32_t u = 0; u < order.size(); ++u)
        order[u] = u;
    std::sort(order.begin(), order.end(), [&](uint32_t a, uint32_t b) {
        return rowOf(units[a]).size() > rowOf(units[b]).size();
    });

    parallelFor(order.size(), options.threads, [&](unsigned, size_t k) {
        if (cancelled(options))
            return false;
        Unit &unit = units[order[k]];
        const Row &row = rowOf(unit);
        const auto &hloOps = row.side[size_t(SideColumn::HloOp)];
        const auto &frameworkOps = row.side[size_t(SideColumn::FrameworkOp)];
        if (anyString && (!hloOps.empty() || !frameworkOps.empty())) {
            SideMatch side;
            side.strings = &strings;
            side.columns = {&hloOps, &frameworkOps};
            scanRowWithSide(row, table.data(), side, options, unit);
        } else if (matched > 0) {
            scanRow(row, table.data(), single, options, unit);
        }
        return true;
    });
    if (cancelled(options))
        return Result<SearchResult>::cancelled();

    std::vector<SortEntry> entries;
    for (const Unit &unit : units)
        result.total += unit.count;
    collectEarliest(trace, units, options.cap, entries);
    radixSortByStart(entries);
    result.refs.reserve(entries.size());
    for (const SortEntry &e : entries) {
        const Unit &unit = units[e.unit];
        result.refs.push_back(SliceRef{unit.track, unit.row, unit.hits[e.pos]});
    }
    return result;
}

} // namespace tracedesk::core
