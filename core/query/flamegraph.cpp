#include "core/query/flamegraph.h"

#include "core/base/childruns.h"
#include "core/base/idtable.h"
#include "core/model/kindlabel.h"

#include "core/query/framecalls.h"
#include "core/query/search.h"
#include "core/query/viewportquery.h"

#include <algorithm>
#include <deque>
#include <unordered_map>

namespace tracedesk::core {

namespace {

constexpr uint32_t kNone = std::numeric_limits<uint32_t>::max();
constexpr uint32_t kCancelPollMask = 4095;

// Interns child nodes by (parent node, name index), the key read from the node: 4 bytes a
// frame, where a hash map node cost about 40.
class NodeTable
{
public:
    explicit NodeTable(std::vector<FlameNode> &nodes)
        : m_nodes(nodes)
    {}

    uint32_t child(uint32_t parent, uint32_t name)
    {
        size_t slot = 0;
        const uint32_t found = m_ids.find(hash(parent, name), [&](uint32_t id) {
            return m_nodes[id].parent == parent && m_nodes[id].name == name;
        }, &slot);
        if (found != IdTable::kNone)
            return found;
        const auto id = uint32_t(m_nodes.size());
        FlameNode n;
        n.name = name;
        n.parent = parent;
        n.depth = m_nodes[parent].depth + 1;
        m_nodes.push_back(n);
        m_ids.add(id, slot, [&](uint32_t other) {
            return hash(m_nodes[other].parent, m_nodes[other].name);
        });
        return id;
    }

private:
    static size_t hash(uint32_t parent, uint32_t name)
    {
        const uint64_t h = (uint64_t(parent) << 32 | name) * 0x9E3779B97F4A7C15ull;
        return size_t(h ^ (h >> 32));
    }

    std::vector<FlameNode> &m_nodes;
    IdTable m_ids;
};

// The latest slice of a row of the track being walked: a candidate caller while it holds the
// slices that start after it. `from`-`to` is the part it counts; `covered` is where its last
// child's counted part ends, so children taken from different rows never count the same time
// twice.
struct RowLatest
{
    TimePs start = 0;
    TimePs end = 0;
    TimePs from = 0;
    TimePs to = 0;
    TimePs covered = 0;
    uint32_t node = kNone; // kNone: the row has no slice in the graph yet

    bool holds(TimePs t) const { return t < end || start == t; }
};

// How many rows above a slice its caller is looked for in: a stack layout puts the caller a
// row or a few above; the bound keeps input that overlaps without nesting (thousands of rows
// of staggered spans) linear.
constexpr uint32_t kCallerRows = 256;

// Picks the caller of a slice `s`-`e` on `row` among the latest slices of the rows above it
// (a row's slices do not overlap, so only its latest can hold `s`): the innermost that holds
// the whole slice; when none does (input that overlaps without nesting), the one holding its
// start that keeps most of its counted time. -1: a top frame.
int pickCaller(const std::vector<RowLatest> &latest, uint32_t row, TimePs s, TimePs e)
{
    int fallback = -1;
    TimePs kept = -1;
    const uint32_t top = row > kCallerRows ? row - kCallerRows : 0;
    for (uint32_t j = row; j-- > top;) {
        const RowLatest &o = latest[j];
        if (o.node == kNone || !o.holds(s))
            continue;
        if (e <= o.end)
            return int(j);
        const TimePs overlap = std::max<TimePs>(0, std::min(e, o.to) - std::max(s, o.from));
        if (overlap > kept) {
            kept = overlap;
            fallback = int(j);
        }
    }
    return fallback;
}

// Walks one track's slices in scope in start order (a lower row first at equal starts), so
// each slice's possible callers are the latest slices of the rows above.
class TrackSweep
{
public:
    TrackSweep(const Track &track, TimePs t0, TimePs t1)
        : m_track(track)
    {
        m_at.resize(track.rows.size());
        m_last.resize(track.rows.size());
        for (uint32_t r = 0; r < track.rows.size(); ++r) {
            const IndexRange range = overlappingRange(track.rows[r], t0, t1);
            m_at[r] = range.first;
            m_last[r] = range.last;
            if (range.first < range.last)
                m_heap.push_back({track.rows[r].start[range.first], r});
        }
        std::make_heap(m_heap.begin(), m_heap.end(), later);
    }

    // The next slice's row and index; false when every row is done.
    bool next(uint32_t &row, size_t &index)
    {
        if (m_heap.empty())
            return false;
        std::pop_heap(m_heap.begin(), m_heap.end(), later);
        row = m_heap.back().second;
        index = m_at[row]++;
        if (m_at[row] < m_last[row]) {
            m_heap.back().first = m_track.rows[row].start[m_at[row]];
            std::push_heap(m_heap.begin(), m_heap.end(), later);
        } else {
            m_heap.pop_back();
        }
        return true;
    }

private:
    static bool later(const std::pair<TimePs, uint32_t> &a, const std::pair<TimePs, uint32_t> &b)
    {
        return a > b;
    }

    const Track &m_track;
    std::vector<size_t> m_at, m_last;
    std::vector<std::pair<TimePs, uint32_t>> m_heap; // next start per row, earliest on top
};

} // namespace

void linkFlameChildren(FlameGraph &graph)
{
    linkChildRuns(graph.nodes, graph.childList, [&](uint32_t a, uint32_t b) {
        return graph.names[graph.nodes[a].name] < graph.names[graph.nodes[b].name];
    });
}

std::vector<std::string> FlameGraph::stack(uint32_t node) const
{
    std::vector<std::string> out;
    while (node != 0 && node < nodes.size()) {
        out.push_back(names[nodes[node].name]);
        node = nodes[node].parent;
    }
    std::reverse(out.begin(), out.end());
    return out;
}

std::vector<uint32_t> FlameGraph::find(std::string_view text) const
{
    std::vector<uint32_t> out;
    if (text.empty())
        return out;
    std::vector<uint8_t> matching(names.size(), 0);
    for (size_t i = 1; i < names.size(); ++i)
        matching[i] = containsIgnoringCase(names[i], text) ? 1 : 0;
    for (uint32_t n = 1; n < nodes.size(); ++n) {
        if (matching[nodes[n].name])
            out.push_back(n);
    }
    return out;
}

Result<FlameGraph> buildFlameGraph(const Trace &trace, const FlameScope &scope,
                                   const std::atomic<bool> *cancel)
{
    FlameGraph graph;
    graph.names.emplace_back();
    graph.nodes.emplace_back();
    NodeTable table(graph.nodes);
    // Frames are named by their label (an HLO op's name, not its instruction text), numbered
    // names folded when asked; kinds that end up with one text share frames. Each kind's text
    // is resolved once. A text is known by its id in the trace's (unique) strings when it is
    // one; only texts that are not (folded names, labels cut from a longer name that the trace
    // does not hold alone) are keyed by text. A trace of 640k distinct names so holds two
    // flat arrays while the graph is built, not two hash tables of them.
    const size_t stringCount = trace.strings.size();
    std::vector<uint32_t> resolved(stringCount, kNone);  // a kind's name id: its frame name
    std::vector<uint32_t> byString(stringCount, kNone);  // a text's string id: its frame name
    std::unordered_map<std::string_view, uint32_t> byText; // texts the trace does not hold
    std::deque<std::string> folds;
    // `id`: the text's string id when already known, else kNone and it is looked up.
    auto nameOfText = [&](std::string_view text, StringId id) {
        if (id == kNone && !trace.strings.find(text, &id))
            id = kNone;
        if (id != kNone) {
            if (byString[id] == kNone) {
                byString[id] = uint32_t(graph.names.size());
                graph.names.emplace_back(text);
            }
            return byString[id];
        }
        const auto [f, added] = byText.try_emplace(text, uint32_t(graph.names.size()));
        if (added)
            graph.names.emplace_back(text);
        return f->second;
    };
    auto nameIndex = [&](StringId id) {
        if (id >= stringCount)
            return nameOfText({}, kNone);
        if (resolved[id] == kNone) {
            const std::string_view full = trace.string(id);
            std::string_view text = sliceLabel(full);
            StringId same = text.size() == full.size() ? id : StringId(kNone);
            if (scope.foldNumbered) {
                if (std::optional<std::string> folded = foldedNumberedName(text)) {
                    text = folds.emplace_back(std::move(*folded));
                    same = kNone;
                }
            }
            resolved[id] = nameOfText(text, same);
        }
        return resolved[id];
    };

    std::vector<uint32_t> tracks = scope.tracks;
    if (tracks.empty()) {
        for (uint32_t t = 0; t < trace.tracks.size(); ++t)
            tracks.push_back(t);
    }
    std::sort(tracks.begin(), tracks.end());
    tracks.erase(std::unique(tracks.begin(), tracks.end()), tracks.end());

    uint64_t seen = 0;
    std::vector<RowLatest> latest; // per row of the track
    for (uint32_t t : tracks) {
        if (t >= trace.tracks.size())
            continue;
        const Track &track = trace.tracks[t];
        TrackSweep sweep(track, scope.t0, scope.t1);
        latest.assign(track.rows.size(), RowLatest{});
        uint32_t r = 0;
        size_t i = 0;
        while (sweep.next(r, i)) {
            if ((++seen & kCancelPollMask) == 0 && cancel && cancel->load())
                return Result<FlameGraph>::cancelled();
            const Row &row = track.rows[r];
            const TimePs s = row.start[i];
            const TimePs e = row.end(i);
            // What counts is the part inside the window and inside the caller, after the
            // caller's earlier children.
            TimePs from = std::max(s, scope.t0), to = std::min(e, scope.t1);
            uint32_t parent = kNone;
            if (const int k = pickCaller(latest, r, s, e); k >= 0) {
                RowLatest &caller = latest[size_t(k)];
                parent = caller.node;
                from = std::max({from, caller.from, caller.covered});
                to = std::min(to, caller.to);
                caller.covered = std::max(caller.covered, std::max(from, to));
            }
            const StringId name = trace.kinds[row.kind[i]].name;
            if (parent == kNone) {
                if (scope.rootName && name != *scope.rootName) {
                    latest[r] = RowLatest{};
                    continue;
                }
                parent = 0;
            }
            const uint32_t node = table.child(parent, nameIndex(name));
            FlameNode &n = graph.nodes[node];
            n.wall += std::max<TimePs>(0, to - from);
            ++n.count;
            latest[r] = {s, e, from, std::max(from, to), from, node};
        }
    }
    if (cancel && cancel->load())
        return Result<FlameGraph>::cancelled();
    // Children are clipped to their callers, so wall minus the children's wall is never negative.
    for (FlameNode &n : graph.nodes)
        n.self = n.wall;
    for (size_t n = 1; n < graph.nodes.size(); ++n) {
        FlameNode &caller = graph.nodes[graph.nodes[n].parent];
        if (graph.nodes[n].parent == 0)
            caller.wall += graph.nodes[n].wall;
        else
            caller.self -= graph.nodes[n].wall;
    }
    graph.nodes.front().self = 0;
    linkFlameChildren(graph);
    return graph;
}

FlameGraph invertFlameGraph(const FlameGraph &graph)
{
    FlameGraph out;
    out.names = graph.names;
    out.inverted = true;
    out.nodes.emplace_back();
    NodeTable table(out.nodes);
    for (uint32_t n = 1; n < graph.nodes.size(); ++n) {
        const FlameNode &from = graph.nodes[n];
        if (from.self == 0 && from.count == 0)
            continue;
        uint32_t at = 0;
        for (uint32_t k = n; k != 0; k = graph.nodes[k].parent) {
            at = table.child(at, graph.nodes[k].name);
            FlameNode &to = out.nodes[at];
            to.self += from.self;
            to.wall += from.self;
            to.count += from.count;
        }
        out.nodes.front().self += from.self;
        out.nodes.front().wall += from.self;
    }
    linkFlameChildren(out);
    return out;
}

FrameCalls frameCalls(const FlameGraph &graph, std::string_view name)
{
    return frameCallsIn(graph, graph.names, name);
}

namespace {

class DiffBuilder
{
public:
    DiffBuilder(const FlameGraph &a, const FlameGraph &b)
        : m_a(a)
        , m_b(b)
    {
        m_out.names.emplace_back();
        m_out.nodes.emplace_back();
    }

    FlameDiff build()
    {
        m_out.nodes[0].wallA = m_a.root().wall;
        m_out.nodes[0].wallB = m_b.root().wall;
        merge(0, 0, 0);
        return std::move(m_out);
    }

private:
    // Adds A's node `na` and B's node `nb` (kNone when absent) under diff node `at`, whose
    // values are already set, by merging their children by name.
    void merge(uint32_t at, uint32_t na, uint32_t nb)
    {
        const std::span<const uint32_t> ca = na == kNone ? std::span<const uint32_t>()
                                                         : m_a.children(na);
        const std::span<const uint32_t> cb = nb == kNone ? std::span<const uint32_t>()
                                                         : m_b.children(nb);
        size_t i = 0, j = 0;
        while (i < ca.size() || j < cb.size()) {
            const std::string_view nameA = i < ca.size() ? m_a.nameOf(ca[i]) : std::string_view();
            const std::string_view nameB = j < cb.size() ? m_b.nameOf(cb[j]) : std::string_view();
            uint32_t childA = kNone, childB = kNone;
            if (j >= cb.size() || (i < ca.size() && nameA < nameB))
                childA = ca[i++];
            else if (i >= ca.size() || nameB < nameA)
                childB = cb[j++];
            else {
                childA = ca[i++];
                childB = cb[j++];
            }
            const std::string_view name = childA != kNone ? m_a.nameOf(childA) : m_b.nameOf(childB);
            DiffNode n;
            n.name = nameIndex(name);
            n.parent = at;
            n.depth = m_out.nodes[at].depth + 1;
            if (childA != kNone) {
                n.wallA = m_a.nodes[childA].wall;
                n.selfA = m_a.nodes[childA].self;
            }
            if (childB != kNone) {
                n.wallB = m_b.nodes[childB].wall;
                n.selfB = m_b.nodes[childB].self;
            }
            const uint32_t id = uint32_t(m_out.nodes.size());
            m_out.nodes.push_back(std::move(n));
            m_out.nodes[at].children.push_back(id);
            merge(id, childA, childB);
        }
    }

    uint32_t nameIndex(std::string_view name)
    {
        const auto [it, inserted] =
            m_names.try_emplace(std::string(name), uint32_t(m_out.names.size()));
        if (inserted)
            m_out.names.push_back(it->first);
        return it->second;
    }

    const FlameGraph &m_a;
    const FlameGraph &m_b;
    FlameDiff m_out;
    std::unordered_map<std::string, uint32_t> m_names;
};

} // namespace

std::optional<std::string> foldedNumberedName(std::string_view name)
{
    const size_t hash = name.rfind('#');
    if (hash == std::string_view::npos || hash + 1 == name.size())
        return std::nullopt;
    for (size_t i = hash + 1; i < name.size(); ++i) {
        if (name[i] < '0' || name[i] > '9')
            return std::nullopt;
    }
    return std::string(name.substr(0, hash + 1)) + '*';
}

FlameDiff diffFlameGraphs(const FlameGraph &a, const FlameGraph &b)
{
    return DiffBuilder(a, b).build();
}

} // namespace tracedesk::core
