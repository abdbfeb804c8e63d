#include "core/analysis/eventforest.h"
#include "core/base/cancel.h"

#include <algorithm>
#include <map>
#include <queue>
#include <unordered_map>

namespace tracedesk::core::analysis {

namespace {

// XProf's typed host event names that matter here; a slice with one of these names is never a
// kernel launch, whatever stats it carries.
constexpr std::string_view kTypedNames[] = {
    "TraceContext", "SessionRun", "FunctionRun", "RunGraph", "ExecutorState::Process",
    "IteratorGetNextOp::DoCompute", "IteratorGetNextAsOptionalOp::DoCompute",
    "EagerKernelExecute", "EagerExecute", "EagerLocalExecute"};
constexpr std::string_view kLoopOps[] = {"WhileOp-EvalCond", "WhileOp-StartBody", "ForOp",
                                         "ParallelForOp", "ForeverOp"};
constexpr std::string_view kTfDataRuns[] = {
    "InstantiatedCapturedFunction::Run", "InstantiatedCapturedFunction::RunWithBorrowedArgs",
    "InstantiatedCapturedFunction::RunInstantiated", "InstantiatedCapturedFunction::RunAsync"};

bool isTpuPlane(std::string_view name)
{
    return name.starts_with("/device:TPU");
}

struct PairHash
{
    size_t operator()(const std::pair<int64_t, int64_t> &p) const
    {
        return std::hash<int64_t>()(p.first) * 1000003u ^ std::hash<int64_t>()(p.second);
    }
};

} // namespace

EventForest::EventForest(const Trace &trace)
    : m_trace(trace)
{
    for (const EventKind &k : trace.kinds) {
        const std::string_view name = trace.string(k.name);
        for (std::string_view op : kLoopOps)
            m_loopOps = m_loopOps || name == op;
    }
    if (m_loopOps)
        return;
    addNodes();
    std::vector<uint32_t> nestParent(m_slices.size(), kNone);
    nestLines(nestParent);
    std::vector<Edge> edges;
    linkFixedPairs(edges);
    linkContexts(edges);
    findLoops(edges);
    buildAdjacency(nestParent, edges);
}

void EventForest::addNodes()
{
    m_rowBase.resize(m_trace.tracks.size());
    for (uint32_t t = 0; t < m_trace.tracks.size(); ++t) {
        const Track &track = m_trace.tracks[t];
        const Plane &plane = m_trace.planes[track.plane];
        if (plane.kind == PlaneKind::Metadata || isTpuPlane(m_trace.string(plane.name)))
            continue;
        m_rowBase[t].resize(track.rows.size());
        for (uint32_t r = 0; r < track.rows.size(); ++r) {
            m_rowBase[t][r] = uint32_t(m_slices.size());
            for (uint32_t i = 0; i < track.rows[r].size(); ++i)
                m_slices.push_back({t, r, i});
        }
    }
}

uint32_t EventForest::node(SliceRef s) const
{
    if (s.track >= m_rowBase.size() || s.row >= m_rowBase[s.track].size())
        return kNone;
    return m_rowBase[s.track][s.row] + s.index;
}

bool EventForest::findArg(uint32_t node, std::string_view name, ArgValue *out) const
{
    StringId key = kEmptyString;
    if (!m_trace.strings.find(name, &key))
        return false;
    const SliceRef s = m_slices[node];
    const Row &row = m_trace.row(s);
    if (row.argsAt(s.index) != kNoArgs
        && m_trace.tracks[s.track].args.find(row.argsAt(s.index), key, out))
        return true;
    return m_trace.metaArgs.find(m_trace.kinds[row.kind[s.index]].stats, key, out);
}

int64_t EventForest::intStat(uint32_t node, std::string_view name) const
{
    for (int c = 0; c < kSideColumnCount; ++c) {
        const auto column = SideColumn(c);
        if (!sideColumnHoldsString(column) && sideColumnStatName(column) == name) {
            const int64_t v = m_trace.side(m_slices[node], column);
            if (v != kNoValue)
                return v;
        }
    }
    ArgValue v;
    return findArg(node, name, &v) ? v.asInt() : kNoValue;
}

template<typename F>
void EventForest::forAncestors(uint32_t node, F &&f) const
{
    // Breadth-first over the node and its ancestors, each once; stops when f returns true.
    std::queue<uint32_t> queue;
    std::vector<uint32_t> seen{node};
    queue.push(node);
    while (!queue.empty()) {
        const uint32_t n = queue.front();
        queue.pop();
        if (f(n))
            return;
        for (uint32_t p : parents(n)) {
            if (std::find(seen.begin(), seen.end(), p) != seen.end())
                continue;
            seen.push_back(p);
            queue.push(p);
        }
    }
}

int64_t EventForest::contextInt(uint32_t node, std::string_view name) const
{
    int64_t out = kNoValue;
    forAncestors(node, [&](uint32_t n) {
        out = intStat(n, name);
        return out != kNoValue;
    });
    return out;
}

std::string EventForest::contextString(uint32_t node, std::string_view name, bool *found) const
{
    std::string out;
    *found = false;
    forAncestors(node, [&](uint32_t n) {
        ArgValue v;
        if (!findArg(n, name, &v))
            return false;
        out = v.type == ArgType::StringRef ? std::string(m_trace.string(v.str))
              : v.type == ArgType::String  ? std::string(v.s)
                                           : std::to_string(v.asInt());
        *found = true;
        return true;
    });
    return out;
}

bool EventForest::isTfDataStep(int64_t stepId) const
{
    return std::binary_search(m_tfDataSteps.begin(), m_tfDataSteps.end(), stepId);
}

void EventForest::nestLines(std::vector<uint32_t> &nestParent)
{
    StringId asyncKey = kEmptyString, rootKey = kEmptyString, traceContext = kEmptyString;
    const bool hasAsync = m_trace.strings.find("_a", &asyncKey);
    const bool hasRoot = m_trace.strings.find("_r", &rootKey);
    const bool hasTraceContext = m_trace.strings.find("TraceContext", &traceContext);
    // Kind-level values, read once.
    std::vector<int64_t> kindLevel(m_trace.kinds.size(), 0);
    std::vector<uint8_t> kindAsync(m_trace.kinds.size(), 0);
    for (size_t k = 0; k < m_trace.kinds.size(); ++k) {
        ArgValue v;
        const EventKind &kind = m_trace.kinds[k];
        if (hasRoot && m_trace.metaArgs.find(kind.stats, rootKey, &v))
            kindLevel[k] = v.asInt();
        else if (hasTraceContext && kind.name == traceContext)
            kindLevel[k] = 1;
        kindAsync[k] = hasAsync && m_trace.metaArgs.find(kind.stats, asyncKey, &v) && v.asInt();
    }

    struct Item
    {
        TimePs begin, end;
        uint32_t node;
    };
    std::vector<Item> items;
    std::vector<uint32_t> stack;
    for (uint32_t t = 0; t < m_trace.tracks.size(); ++t) {
        if (m_rowBase[t].empty())
            continue;
        checkCancelled();
        const Track &track = m_trace.tracks[t];
        items.clear();
        for (uint32_t r = 0; r < track.rows.size(); ++r) {
            const Row &row = track.rows[r];
            for (uint32_t i = 0; i < row.size(); ++i) {
                const uint32_t n = m_rowBase[t][r] + i;
                int64_t level = kindLevel[row.kind[i]];
                bool async = kindAsync[row.kind[i]];
                if ((hasRoot || hasAsync) && row.argsAt(i) != kNoArgs) {
                    track.args.forEach(row.argsAt(i), [&](const ArgValue &v) {
                        if (hasRoot && v.key == rootKey)
                            level = v.asInt();
                        else if (hasAsync && v.key == asyncKey)
                            async = v.asInt() != 0;
                    });
                }
                if (level > 0)
                    m_roots.push_back({n, level});
                if (!async)
                    items.push_back({row.start[i], row.end(i), n});
            }
        }
        // Line order: by start, the longer first; the shallower row first on equal spans.
        std::sort(items.begin(), items.end(), [](const Item &a, const Item &b) {
            if (a.begin != b.begin)
                return a.begin < b.begin;
            if (a.end != b.end)
                return a.end > b.end;
            return a.node < b.node;
        });
        stack.clear();
        for (const Item &it : items) {
            while (!stack.empty()) {
                const Item &p = items[stack.back()];
                if (p.begin <= it.begin && it.end <= p.end) {
                    nestParent[it.node] = p.node;
                    break;
                }
                stack.pop_back();
            }
            stack.push_back(uint32_t(&it - items.data()));
        }
    }
    std::sort(m_roots.begin(), m_roots.end());
}

void EventForest::linkContexts(std::vector<Edge> &edges)
{
    StringId pt = kEmptyString, p = kEmptyString, ct = kEmptyString, c = kEmptyString;
    const bool producers = m_trace.strings.find("_pt", &pt) && m_trace.strings.find("_p", &p);
    const bool consumers = m_trace.strings.find("_ct", &ct) && m_trace.strings.find("_c", &c);
    if (!producers || !consumers)
        return;
    struct Context
    {
        std::vector<uint32_t> producers, consumers;
    };
    std::map<std::pair<int64_t, int64_t>, Context> contexts;
    for (uint32_t n = 0; n < size(); ++n) {
        const SliceRef s = m_slices[n];
        const ArgsRef ref = m_trace.row(s).argsAt(s.index);
        if (ref == kNoArgs)
            continue;
        int64_t vals[4] = {kNoValue, kNoValue, kNoValue, kNoValue};   // _pt, _p, _ct, _c
        m_trace.tracks[s.track].args.forEach(ref, [&](const ArgValue &v) {
            const int slot =
                v.key == pt ? 0 : v.key == p ? 1 : v.key == ct ? 2 : v.key == c ? 3 : -1;
            if (slot >= 0 && vals[slot] == kNoValue)
                vals[slot] = v.asInt();
        });
        if (vals[0] != kNoValue && vals[1] != kNoValue)
            contexts[{vals[0], vals[1]}].producers.push_back(n);
        if (vals[2] != kNoValue && vals[3] != kNoValue)
            contexts[{vals[2], vals[3]}].consumers.push_back(n);
    }
    for (const auto &[key, ctx] : contexts) {
        // XProf skips a context whose producers and consumers both number 64 or more. A
        // million links from one context only comes from a damaged or hostile file: skipped too,
        // so such a file cannot exhaust memory here.
        if (ctx.producers.size() >= 64 && ctx.consumers.size() >= 64)
            continue;
        if (uint64_t(ctx.producers.size()) * ctx.consumers.size() > (uint64_t(1) << 20))
            continue;
        for (uint32_t parent : ctx.producers) {
            for (uint32_t child : ctx.consumers)
                edges.push_back({parent, child});
        }
    }
}

void EventForest::linkFixedPairs(std::vector<Edge> &edges)
{
    std::vector<uint8_t> typed(m_trace.kinds.size(), 0);
    std::vector<uint8_t> executor(m_trace.kinds.size(), 0), getNext(m_trace.kinds.size(), 0);
    std::vector<uint8_t> tfData(m_trace.kinds.size(), 0);
    for (size_t k = 0; k < m_trace.kinds.size(); ++k) {
        const std::string_view name = m_trace.string(m_trace.kinds[k].name);
        for (std::string_view t : kTypedNames)
            typed[k] = typed[k] || name == t;
        for (std::string_view t : kTfDataRuns)
            tfData[k] = tfData[k] || name == t;
        executor[k] = name == "ExecutorState::Process";
        getNext[k] = name == "IteratorGetNextOp::DoCompute"
                     || name == "IteratorGetNextAsOptionalOp::DoCompute";
    }
    // The last parent seen for a key wins, as in XProf's connect map.
    std::unordered_map<int64_t, uint32_t> launches;
    std::unordered_map<std::pair<int64_t, int64_t>, uint32_t, PairHash> executors;
    std::vector<uint32_t> kernels, iterators;
    for (uint32_t n = 0; n < size(); ++n) {
        const SliceRef s = m_slices[n];
        const uint32_t kind = m_trace.row(s).kind[s.index];
        const bool host = m_trace.planes[m_trace.tracks[s.track].plane].kind == PlaneKind::Host;
        if (executor[kind]) {
            const int64_t id = intStat(n, "id"), iter = intStat(n, "iter_num");
            if (id != kNoValue && iter != kNoValue)
                executors[{id, iter}] = n;
        } else if (getNext[kind]) {
            iterators.push_back(n);
        } else if (tfData[kind]) {
            const int64_t id = intStat(n, "id");
            if (id != kNoValue)
                m_tfDataSteps.push_back(id);
        }
        if (typed[kind])
            continue;
        const int64_t corr = m_trace.side(s, SideColumn::CorrelationId);
        if (corr == kNoValue)
            continue;
        if (host)
            launches[corr] = n;
        else
            kernels.push_back(n);
    }
    std::sort(m_tfDataSteps.begin(), m_tfDataSteps.end());
    for (uint32_t n : kernels) {
        auto it = launches.find(m_trace.side(m_slices[n], SideColumn::CorrelationId));
        if (it != launches.end())
            edges.push_back({it->second, n});
    }
    for (uint32_t n : iterators) {
        const int64_t id = intStat(n, "id"), iter = intStat(n, "iter_num");
        auto it = executors.find({id, iter});
        if (id != kNoValue && iter != kNoValue && it != executors.end())
            edges.push_back({it->second, n});
    }
}

void EventForest::findLoops(std::vector<Edge> &edges)
{
    struct Iteration
    {
        uint32_t first = kNone;
        std::vector<uint32_t> events;
    };
    std::map<int64_t, std::map<int64_t, Iteration>> loops;   // step id -> iter_num -> events
    const auto before = [&](uint32_t a, uint32_t b) {
        return m_trace.start(m_slices[a]) < m_trace.start(m_slices[b]);
    };
    std::vector<uint8_t> executor(m_trace.kinds.size(), 0);
    for (size_t k = 0; k < m_trace.kinds.size(); ++k)
        executor[k] = m_trace.string(m_trace.kinds[k].name) == "ExecutorState::Process";
    for (uint32_t n = 0; n < size(); ++n) {
        if (!executor[m_trace.row(m_slices[n]).kind[m_slices[n].index]])
            continue;
        const int64_t id = intStat(n, "id"), iter = intStat(n, "iter_num");
        if (id == kNoValue || iter == kNoValue || isTfDataStep(id))
            continue;
        Iteration &it = loops[id][iter];
        if (it.first == kNone || before(n, it.first))
            it.first = n;
        it.events.push_back(n);
    }
    std::vector<const Iteration *> iterations;
    for (const auto &[id, loop] : loops) {
        if (loop.size() == 1 && loop.count(0))
            continue;   // a function or session without a loop
        for (const auto &[iter, it] : loop)
            iterations.push_back(&it);
    }
    const auto firstBefore = [&](const Iteration *a, const Iteration *b) {
        return before(a->first, b->first);
    };
    std::stable_sort(iterations.begin(), iterations.end(), firstBefore);
    for (const Iteration *it : iterations) {
        m_loopRoots.push_back(it->first);
        for (uint32_t n : it->events) {
            if (n != it->first)
                edges.push_back({it->first, n});
        }
    }
}

void EventForest::buildAdjacency(const std::vector<uint32_t> &nestParent,
                                 const std::vector<Edge> &edges)
{
    const uint32_t n = size();
    m_childBegin.assign(n + 1, 0);
    m_parentBegin.assign(n + 1, 0);
    for (uint32_t i = 0; i < n; ++i) {
        if (nestParent[i] != kNone) {
            ++m_childBegin[nestParent[i] + 1];
            ++m_parentBegin[i + 1];
        }
    }
    for (const Edge &e : edges) {
        ++m_childBegin[e.parent + 1];
        ++m_parentBegin[e.child + 1];
    }
    for (uint32_t i = 0; i < n; ++i) {
        m_childBegin[i + 1] += m_childBegin[i];
        m_parentBegin[i + 1] += m_parentBegin[i];
    }
    m_children.resize(m_childBegin[n]);
    m_parents.resize(m_parentBegin[n]);
    std::vector<uint32_t> childFill(m_childBegin.begin(), m_childBegin.end() - 1);
    std::vector<uint32_t> parentFill(m_parentBegin.begin(), m_parentBegin.end() - 1);
    // Nesting first, in node order, then the cross-thread edges in the order they were found.
    for (uint32_t i = 0; i < n; ++i) {
        if (nestParent[i] != kNone) {
            m_children[childFill[nestParent[i]]++] = i;
            m_parents[parentFill[i]++] = nestParent[i];
        }
    }
    for (const Edge &e : edges) {
        m_children[childFill[e.parent]++] = e.child;
        m_parents[parentFill[e.child]++] = e.parent;
    }
}

} // namespace tracedesk::core::analysis
