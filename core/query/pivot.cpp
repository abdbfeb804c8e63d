#include "core/query/pivot.h"

#include "core/base/childruns.h"
#include "core/base/idtable.h"
#include "core/query/viewportquery.h"

#include <algorithm>
#include <bit>
#include <cstdio>
#include <cstring>
#include <functional>
#include <limits>
#include <string_view>
#include <tuple>
#include <unordered_map>

namespace tracedesk::core {

namespace {

constexpr uint32_t kCancelPollMask = 4095;

size_t childHash(uint32_t parent, const PivotValue &value)
{
    uint64_t h = value.bits * 0x9E3779B97F4A7C15ull;
    h ^= (uint64_t(parent) << 8 | uint64_t(value.type)) + 0x632BE59BD9B4E019ull + (h << 6) +
         (h >> 2);
    return size_t(h ^ (h >> 29));
}

// Reads a slice's key at each level. Raw-text arg values (not interned) go to `text`, which
// returns the bits the value is known by.
class KeyReader
{
public:
    KeyReader(const Trace &trace, const std::vector<PivotKey> &levels)
        : m_trace(trace)
        , m_levels(levels)
        , m_argKeys(levels.size(), kEmptyString)
        , m_argKnown(levels.size(), false)
    {
        for (size_t l = 0; l < levels.size(); ++l) {
            if (levels[l].kind == PivotKeyKind::Arg)
                m_argKnown[l] = trace.strings.find(levels[l].arg, &m_argKeys[l]);
        }
    }

    template<typename Text>
    PivotValue valueOf(SliceRef ref, uint32_t level, Text &&text) const
    {
        const PivotKey &key = m_levels[level];
        switch (key.kind) {
        case PivotKeyKind::Name:
            return {PivotValueType::String, m_trace.kind(ref).name};
        case PivotKeyKind::Category:
            return {PivotValueType::String, m_trace.kind(ref).category};
        case PivotKeyKind::Track:
            return {PivotValueType::Track, ref.track};
        case PivotKeyKind::Arg:
            break;
        }
        if (!m_argKnown[level])
            return {};
        PivotValue out;
        bool found = false;
        m_trace.forEachArg(ref, [&](const ArgValue &v) {
            if (found || v.key != m_argKeys[level])
                return;
            found = true;
            out = argValue(v, text);
        });
        return out;
    }

private:
    template<typename Text>
    PivotValue argValue(const ArgValue &v, Text &text) const
    {
        switch (v.type) {
        case ArgType::StringRef:
            return {PivotValueType::String, v.str};
        case ArgType::String:
        case ArgType::Bytes: {
            // Interned strings are the common case; raw text is looked up, then kept locally.
            StringId id = kEmptyString;
            if (m_trace.strings.find(v.s, &id))
                return {PivotValueType::String, id};
            return {PivotValueType::Text, text(v.s)};
        }
        case ArgType::Double:
            return {PivotValueType::Double, std::bit_cast<uint64_t>(v.d)};
        case ArgType::UInt:
            if (v.u > uint64_t(std::numeric_limits<int64_t>::max()))
                return {PivotValueType::Double, std::bit_cast<uint64_t>(double(v.u))};
            return {PivotValueType::Int, v.u};
        case ArgType::Int:
        case ArgType::Bool:
            return {PivotValueType::Int, uint64_t(v.i)};
        }
        return {};
    }

    const Trace &m_trace;
    const std::vector<PivotKey> &m_levels;
    std::vector<StringId> m_argKeys;
    std::vector<bool> m_argKnown;
};

class PivotBuilder
{
public:
    PivotBuilder(const Trace &trace, const PivotOptions &options)
        : m_trace(trace)
        , m_options(options)
        , m_keys(trace, options.levels)
    {
        m_result.levels = options.levels;
        m_result.area = options.area;
        m_result.nodes.emplace_back();
    }

    // False when cancelled.
    bool add(uint32_t track, uint32_t row, uint32_t index)
    {
        if ((++m_seen & kCancelPollMask) == 0 && m_options.cancel && m_options.cancel->load())
            return false;
        const SliceRef ref{track, row, index};
        const TimePs duration = m_trace.tracks[track].rows[row].duration[index];
        const TimePs self = selfTime(m_trace, ref);
        uint32_t node = 0;
        m_result.nodes[0].stats.add(duration, self);
        for (uint32_t l = 0; l < m_options.levels.size(); ++l) {
            node = child(node, l, m_keys.valueOf(ref, l, [this](std::string_view text) {
                return internText(text);
            }));
            m_result.nodes[node].stats.add(duration, self);
        }
        if (m_options.keepSlices)
            m_leaf.push_back(node);
        return true;
    }

    // Reserves the leaf of every slice add() will see (the walk's exact count).
    void expect(size_t slices)
    {
        if (m_options.keepSlices)
            m_leaf.reserve(slices);
    }

    // After finish(): the walk again, slice by slice in add()'s order, placing each slice
    // in its leaf's range.
    void place(uint32_t position) { m_result.slices[m_offset[m_leaf[position]]++] = position; }
    void addWalkRow(const PivotResult::WalkRow &row) { m_result.walkRows.push_back(row); }
    PivotResult take()
    {
        std::vector<uint32_t>().swap(m_leaf);
        return std::move(m_result);
    }

    void finish()
    {
        m_children.clear();
        std::vector<PivotNode> &nodes = m_result.nodes;
        linkChildRuns(nodes, m_result.childList, [&](uint32_t a, uint32_t b) {
            const PivotNode &x = nodes[a], &y = nodes[b];
            if (x.stats.wallTotal != y.stats.wallTotal)
                return x.stats.wallTotal > y.stats.wallTotal;
            if (x.value.type != y.value.type)
                return x.value.type < y.value.type;
            return x.value.bits < y.value.bits;
        });
        if (!m_options.keepSlices)
            return;
        // Leaves in depth-first order get consecutive ranges; a counting sort places slices.
        std::vector<uint32_t> &offset = m_offset;
        offset.assign(nodes.size(), 0);
        uint32_t next = 0;
        std::function<void(uint32_t)> visit = [&](uint32_t id) {
            PivotNode &n = nodes[id];
            n.sliceBegin = next;
            if (n.childCount == 0) {
                offset[id] = next;
                next += uint32_t(n.stats.count);
            }
            for (uint32_t c : m_result.children(id))
                visit(c);
            nodes[id].sliceEnd = next;
        };
        visit(0);
        m_result.slices.resize(m_leaf.size());
    }

private:
    uint32_t child(uint32_t parent, uint32_t level, PivotValue value)
    {
        const std::vector<PivotNode> &nodes = m_result.nodes;
        size_t slot = 0;
        const uint32_t found = m_children.find(childHash(parent, value), [&](uint32_t id) {
            return nodes[id].parent == parent && nodes[id].value == value;
        }, &slot);
        if (found != IdTable::kNone)
            return found;
        PivotNode n;
        n.parent = parent;
        n.level = level + 1;
        n.value = value;
        const auto id = uint32_t(m_result.nodes.size());
        m_result.nodes.push_back(n);
        m_children.add(id, slot, [&](uint32_t other) {
            return childHash(m_result.nodes[other].parent, m_result.nodes[other].value);
        });
        return id;
    }

    uint64_t internText(std::string_view text)
    {
        const auto [it, inserted] =
            m_text.try_emplace(std::string(text), m_result.textValues.size());
        if (inserted)
            m_result.textValues.push_back(it->first);
        return it->second;
    }

    const Trace &m_trace;
    const PivotOptions &m_options;
    KeyReader m_keys;
    PivotResult m_result;
    // The groups by (parent, key), the key read from the node: 4 bytes a group, where a hash
    // map node cost about 50 (a 100M-event pivot has 1.3M groups).
    IdTable m_children;
    std::unordered_map<std::string, uint64_t> m_text;
    // The leaf of each slice in walk order: 4 bytes a slice rather than its address too.
    std::vector<uint32_t> m_leaf;
    std::vector<uint32_t> m_offset;
    uint64_t m_seen = 0;
};

std::string numberText(double v)
{
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.17g", v);
    return buf;
}

// Every slice of the scope (the area, or the whole trace), in one fixed order; false when
// `visit` says stop.
template<typename Visit>
bool walkScope(const Trace &trace, const std::optional<AreaSelection> &area, Visit &&visit)
{
    std::vector<uint32_t> tracks;
    if (area) {
        tracks = area->tracks;
        std::sort(tracks.begin(), tracks.end());
        tracks.erase(std::unique(tracks.begin(), tracks.end()), tracks.end());
    } else {
        for (uint32_t t = 0; t < trace.tracks.size(); ++t)
            tracks.push_back(t);
    }
    for (uint32_t t : tracks) {
        if (t >= trace.tracks.size())
            continue;
        const Track &track = trace.tracks[t];
        for (uint32_t r = 0; r < track.rows.size(); ++r) {
            const Row &row = track.rows[r];
            IndexRange range{0, row.size()};
            if (area)
                range = overlappingRange(row, area->t0, area->t1);
            for (size_t i = range.first; i < range.last; ++i) {
                if (!visit(t, r, uint32_t(i)))
                    return false;
            }
        }
    }
    return true;
}

} // namespace

void PivotStats::add(TimePs duration, TimePs self)
{
    minDuration = count ? std::min(minDuration, duration) : duration;
    maxDuration = count ? std::max(maxDuration, duration) : duration;
    ++count;
    wallTotal += duration;
    selfTotal += self;
}

Result<PivotResult> computePivot(const Trace &trace, const PivotOptions &options)
{
    auto walk = [&](auto &&visit) { return walkScope(trace, options.area, visit); };
    // Counted first: the leaves get their exact room, and a scope past the limit (or too large
    // for 4-byte positions) keeps no slices.
    uint64_t slices = 0;
    PivotOptions adjusted = options;
    walk([&](uint32_t, uint32_t, uint32_t) { return ++slices, true; });
    if (slices > std::min<uint64_t>(options.keepSlicesLimit, UINT32_MAX))
        adjusted.keepSlices = false;
    PivotBuilder builder(trace, adjusted);
    builder.expect(size_t(slices));
    if (!walk([&](uint32_t t, uint32_t r, uint32_t i) { return builder.add(t, r, i); }))
        return Result<PivotResult>::cancelled();
    if (options.cancel && options.cancel->load())
        return Result<PivotResult>::cancelled();
    builder.finish();
    if (adjusted.keepSlices) {
        uint32_t position = 0;
        uint32_t lastTrack = UINT32_MAX, lastRow = UINT32_MAX, lastIndex = 0;
        walk([&](uint32_t t, uint32_t r, uint32_t i) {
            // A new walk row where the walk moves to another row or skips within one.
            if (t != lastTrack || r != lastRow || i != lastIndex + 1)
                builder.addWalkRow({position, t, r, i});
            lastTrack = t;
            lastRow = r;
            lastIndex = i;
            builder.place(position++);
            return true;
        });
    }
    return builder.take();
}

SliceRef PivotResult::sliceAt(uint32_t position) const
{
    auto it = std::upper_bound(walkRows.begin(), walkRows.end(), uint64_t(position),
                               [](uint64_t p, const WalkRow &w) { return p < w.first; });
    const WalkRow &w = *std::prev(it);
    return {w.track, w.row, w.index + uint32_t(position - w.first)};
}

std::vector<SliceRef> PivotResult::slicesOf(uint32_t node) const
{
    std::vector<SliceRef> out;
    if (slices.empty())
        return out;
    const PivotNode &n = nodes[node];
    out.reserve(n.sliceEnd - n.sliceBegin);
    for (size_t k = n.sliceBegin; k < n.sliceEnd; ++k)
        out.push_back(sliceAt(slices[k]));
    return out;
}

Result<std::vector<SliceRef>> findPivotSlices(const Trace &trace, const PivotResult &result,
                                              uint32_t node, size_t limit,
                                              const std::atomic<bool> *cancel)
{
    std::vector<SliceRef> out;
    if (node >= result.nodes.size() || limit == 0)
        return out;
    // The group's key at each level, outermost first.
    std::vector<PivotValue> path(result.nodes[node].level);
    for (uint32_t n = node; n != 0; n = result.nodes[n].parent)
        path[result.nodes[n].level - 1] = result.nodes[n].value;
    const KeyReader keys(trace, result.levels);
    std::unordered_map<std::string_view, uint64_t> textBits;
    for (size_t k = 0; k < result.textValues.size(); ++k)
        textBits.emplace(result.textValues[k], k);
    // Raw text the result never saw cannot match any group's value.
    const auto text = [&](std::string_view t) {
        const auto it = textBits.find(t);
        return it == textBits.end() ? UINT64_MAX : it->second;
    };
    const auto earlier = [&](const SliceRef &a, const SliceRef &b) {
        const TimePs sa = trace.start(a), sb = trace.start(b);
        if (sa != sb)
            return sa < sb;
        return std::tie(a.track, a.row, a.index) < std::tie(b.track, b.row, b.index);
    };
    // The `limit` earliest so far, as a max-heap on `earlier`.
    uint64_t seen = 0;
    const bool finished = walkScope(trace, result.area, [&](uint32_t t, uint32_t r, uint32_t i) {
        if ((++seen & kCancelPollMask) == 0 && cancel && cancel->load())
            return false;
        const SliceRef ref{t, r, i};
        for (uint32_t l = 0; l < path.size(); ++l) {
            if (!(keys.valueOf(ref, l, text) == path[l]))
                return true;
        }
        if (out.size() < limit) {
            out.push_back(ref);
            std::push_heap(out.begin(), out.end(), earlier);
        } else if (earlier(ref, out.front())) {
            std::pop_heap(out.begin(), out.end(), earlier);
            out.back() = ref;
            std::push_heap(out.begin(), out.end(), earlier);
        }
        return true;
    });
    if (!finished)
        return Result<std::vector<SliceRef>>::cancelled();
    std::sort_heap(out.begin(), out.end(), earlier);
    return out;
}

std::string pivotLabel(const Trace &trace, const PivotResult &result, uint32_t node)
{
    if (node >= result.nodes.size())
        return {};
    const PivotNode &n = result.nodes[node];
    if (n.level == 0)
        return "All";
    const PivotKey &key = result.levels[n.level - 1];
    const PivotValue &v = n.value;
    std::string text;
    switch (v.type) {
    case PivotValueType::Missing:
        return "(no " + key.arg + ")";
    case PivotValueType::String:
        text = std::string(trace.string(StringId(v.bits)));
        break;
    case PivotValueType::Text:
        text = v.bits < result.textValues.size() ? result.textValues[v.bits] : std::string();
        break;
    case PivotValueType::Track: {
        if (v.bits >= trace.tracks.size())
            return {};
        const Track &t = trace.tracks[v.bits];
        const std::string_view plane = t.plane < trace.planes.size()
                                           ? trace.string(trace.planes[t.plane].name)
                                           : std::string_view();
        text = std::string(plane) + " / " + std::string(trace.string(t.name));
        break;
    }
    case PivotValueType::Int:
        return std::to_string(int64_t(v.bits));
    case PivotValueType::Double:
        return numberText(std::bit_cast<double>(v.bits));
    }
    return text.empty() ? "(empty)" : text;
}

namespace {

void appendCsvField(std::string &out, std::string_view field)
{
    if (field.find_first_of(",\"\n\r") == std::string_view::npos) {
        out += field;
        return;
    }
    out += '"';
    for (char c : field) {
        if (c == '"')
            out += '"';
        out += c;
    }
    out += '"';
}

} // namespace

std::string pivotToCsv(const Trace &trace, const PivotResult &result)
{
    std::string out;
    for (const PivotKey &key : result.levels) {
        appendCsvField(out, pivotKeyText(key));
        out += ',';
    }
    out += "count,total_ps,average_ps,min_ps,max_ps,self_ps\n";
    std::vector<std::string> path(result.levels.size());
    std::function<void(uint32_t)> visit = [&](uint32_t id) {
        const PivotNode &n = result.nodes[id];
        if (n.level > 0) {
            path[n.level - 1] = pivotLabel(trace, result, id);
            for (size_t l = 0; l < path.size(); ++l) {
                if (l < n.level)
                    appendCsvField(out, path[l]);
                out += ',';
            }
            char buf[160];
            std::snprintf(buf, sizeof buf, "%llu,%lld,%.1f,%lld,%lld,%lld\n",
                          static_cast<unsigned long long>(n.stats.count),
                          static_cast<long long>(n.stats.wallTotal), n.stats.averageDuration(),
                          static_cast<long long>(n.stats.minDuration),
                          static_cast<long long>(n.stats.maxDuration),
                          static_cast<long long>(n.stats.selfTotal));
            out += buf;
        }
        for (uint32_t c : result.children(id))
            visit(c);
    };
    if (!result.nodes.empty())
        visit(0);
    return out;
}

std::string pivotKeyText(const PivotKey &key)
{
    switch (key.kind) {
    case PivotKeyKind::Name:
        return "name";
    case PivotKeyKind::Category:
        return "category";
    case PivotKeyKind::Track:
        return "track";
    case PivotKeyKind::Arg:
        return "arg:" + key.arg;
    }
    return {};
}

std::optional<PivotKey> parsePivotKey(std::string_view text)
{
    if (text == "name")
        return PivotKey{PivotKeyKind::Name, {}};
    if (text == "category")
        return PivotKey{PivotKeyKind::Category, {}};
    if (text == "track")
        return PivotKey{PivotKeyKind::Track, {}};
    if (text.starts_with("arg:") && text.size() > 4)
        return PivotKey{PivotKeyKind::Arg, std::string(text.substr(4))};
    return std::nullopt;
}

} // namespace tracedesk::core
