#include "core/analysis/gputime/criticalpath.h"

#include "core/base/cancel.h"

#include <algorithm>
#include <cmath>
#include <tuple>

namespace tracedesk::core::analysis::gputime {

namespace {

using pytorch::kNoIndex;

// Per event, the factor its attributed edges are divided by: its own speed-up, else the nearest
// enclosing operator's, else 1.
std::vector<double> speedUpFactors(const Trace &trace, const CriticalPathGraph &graph,
                                   const std::vector<SpeedUp> &speedUps, size_t *affected)
{
    const size_t n = graph.events.size();
    std::vector<double> own(n, 0.0);
    for (const SpeedUp &s : speedUps) {
        if (!(s.factor > 0) || s.factor == 1)
            continue;
        for (size_t e = 0; e < n; ++e) {
            if (trace.name(graph.events[e].ref) == s.name)
                own[e] = s.factor;
        }
    }
    std::vector<double> factor(n, 0.0); // 0: not resolved yet
    std::vector<uint32_t> chain;
    *affected = 0;
    for (size_t e = 0; e < n; ++e) {
        uint32_t at = uint32_t(e);
        chain.clear();
        double found = 1.0;
        while (at != kNoIndex) {
            if (factor[at] != 0.0) {
                found = factor[at];
                break;
            }
            chain.push_back(at);
            if (own[at] != 0.0) {
                found = own[at];
                break;
            }
            at = graph.events[at].parent;
        }
        for (uint32_t c : chain)
            factor[c] = found;
        *affected += factor[e] != 1.0;
    }
    return factor;
}

const char *boundBy(const PathEdge &edge, const PathEvent &event)
{
    switch (edge.kind) {
    case PathEdgeKind::LaunchDelay:
        return "gpu_kernel_launch_overhead";
    case PathEdgeKind::KernelKernelDelay:
        return "gpu_kernel_kernel_overhead";
    default:
        break;
    }
    if (event.unsyncedWait)
        return "cpu_blocked_on_gpu";
    if (!event.gpu)
        return "cpu_bound";
    return event.communication ? "gpu_communication_bound" : "gpu_compute_bound";
}

// A timed edge's segment kind and the share of the path it adds to.
std::pair<const char *, TimePs CriticalPath::*> segmentKind(const PathEdge &edge,
                                                            const PathEvent &event)
{
    if (edge.kind == PathEdgeKind::LaunchDelay)
        return {"launch", &CriticalPath::launch};
    if (edge.kind == PathEdgeKind::KernelKernelDelay)
        return {"wait", &CriticalPath::wait};
    if (event.unsyncedWait)
        return {"sync", &CriticalPath::sync};
    return event.gpu ? std::pair{"gpu", &CriticalPath::gpu} : std::pair{"cpu", &CriticalPath::cpu};
}

} // namespace

CriticalPath criticalPath(const Trace &trace, const CriticalPathGraph &graph,
                          const std::vector<SpeedUp> &speedUps)
{
    if (!graph.error.empty()) {
        CriticalPath refused;
        refused.error = graph.error;
        return refused;
    }
    CriticalPath out;
    const uint32_t n = graph.nodeCount();
    if (n == 0)
        return out;
    const std::vector<double> factor = speedUpFactors(trace, graph, speedUps, &out.affectedEvents);
    std::vector<TimePs> weight(graph.edges.size());
    for (size_t i = 0; i < graph.edges.size(); ++i) {
        const PathEdge &e = graph.edges[i];
        const bool scaled =
            e.kind == PathEdgeKind::Operator && e.event != kNoIndex && factor[e.event] != 1.0;
        weight[i] = scaled ? TimePs(std::llround(double(e.weight) / factor[e.event])) : e.weight;
    }

    // Edges by source node, then a topological order (Kahn), relaxing as nodes come out.
    std::vector<uint32_t> offsets(n + 1, 0);
    std::vector<uint32_t> indegree(n, 0);
    for (const PathEdge &e : graph.edges) {
        ++offsets[e.from + 1];
        ++indegree[e.to];
    }
    for (uint32_t v = 0; v < n; ++v)
        offsets[v + 1] += offsets[v];
    std::vector<uint32_t> bySource(graph.edges.size());
    {
        std::vector<uint32_t> fill(offsets.begin(), offsets.end() - 1);
        for (uint32_t i = 0; i < graph.edges.size(); ++i)
            bySource[fill[graph.edges[i].from]++] = i;
    }
    std::vector<uint32_t> order;
    order.reserve(n);
    for (uint32_t v = 0; v < n; ++v) {
        if (indegree[v] == 0)
            order.push_back(v);
    }
    std::vector<TimePs> dist(n, 0);
    std::vector<uint32_t> via(n, kNoIndex); // edge reaching the node on its longest path
    for (size_t head = 0; head < order.size(); ++head) {
        if (head % 65536 == 0)
            checkCancelled();
        const uint32_t u = order[head];
        for (uint32_t k = offsets[u]; k < offsets[u + 1]; ++k) {
            const uint32_t i = bySource[k];
            const uint32_t v = graph.edges[i].to;
            if (via[v] == kNoIndex || dist[u] + weight[i] > dist[v]) {
                dist[v] = dist[u] + weight[i];
                via[v] = i;
            }
            if (--indegree[v] == 0)
                order.push_back(v);
        }
    }
    if (order.size() < n) {
        out.error = "the dependency graph has a cycle (" + std::to_string(n - order.size()) +
                    " nodes on or after one); the trace's events contradict each other";
        return out;
    }
    uint32_t last = order.front();
    for (uint32_t v : order) {
        if (dist[v] > dist[last])
            last = v;
    }
    out.length = dist[last];
    std::vector<uint32_t> edges;
    for (uint32_t v = last; via[v] != kNoIndex; v = graph.edges[via[v]].from)
        edges.push_back(via[v]);
    std::reverse(edges.begin(), edges.end());
    out.nodes.push_back(edges.empty() ? last : graph.edges[edges.front()].from);
    for (uint32_t i : edges) {
        out.nodes.push_back(graph.edges[i].to);
        const PathEdge &e = graph.edges[i];
        const TimePs w = weight[i];
        if (w <= 0 || (e.kind != PathEdgeKind::Operator && e.kind != PathEdgeKind::LaunchDelay &&
                       e.kind != PathEdgeKind::KernelKernelDelay))
            continue;
        const bool delay = e.kind != PathEdgeKind::Operator;
        const uint32_t event = delay ? e.to / 2 : e.event;
        if (event == kNoIndex)
            continue;
        const PathEvent &ev = graph.events[event];
        const auto [kind, total] = segmentKind(e, ev);
        out.*total += w;
        if (!out.segments.empty() && out.segments.back().event == event &&
            out.segments.back().kind == kind) {
            out.segments.back().weight += w;
            continue;
        }
        PathSegment s;
        s.name = std::string(trace.name(ev.ref));
        s.kind = kind;
        s.boundBy = boundBy(e, ev);
        s.ref = ev.ref;
        s.start = graph.nodeTime(e.from);
        s.weight = w;
        s.event = event;
        out.segments.push_back(std::move(s));
    }
    return out;
}

std::vector<SliceRef> pathSlices(const CriticalPathGraph &graph, const CriticalPath &path)
{
    std::vector<uint32_t> events;
    for (uint32_t node : path.nodes)
        events.push_back(node / 2);
    std::sort(events.begin(), events.end());
    events.erase(std::unique(events.begin(), events.end()), events.end());
    std::stable_sort(events.begin(), events.end(), [&](uint32_t a, uint32_t b) {
        return graph.events[a].start < graph.events[b].start;
    });
    std::vector<SliceRef> out;
    for (uint32_t e : events)
        out.push_back(graph.events[e].ref);
    return out;
}

std::vector<Flow> pathHops(const CriticalPathGraph &graph, const CriticalPath &path)
{
    std::vector<Flow> out;
    for (size_t i = 1; i < path.nodes.size(); ++i) {
        const SliceRef from = graph.events[path.nodes[i - 1] / 2].ref;
        const SliceRef to = graph.events[path.nodes[i] / 2].ref;
        if (from.track != to.track)
            out.push_back({from, to, 0, kEmptyString});
    }
    return out;
}

std::optional<TimeWindow> annotationWindow(const Trace &trace, const pytorch::KinetoIndex &index,
                                           std::string_view text, size_t instance)
{
    std::vector<const pytorch::KinetoNode *> matches;
    for (const pytorch::KinetoNode &node : index.nodes) {
        if ((node.role == SliceRole::CpuOp || node.role == SliceRole::UserAnnotation) &&
            trace.name(node.ref).find(text) != std::string_view::npos)
            matches.push_back(&node);
    }
    std::stable_sort(matches.begin(), matches.end(),
                     [](const auto *a, const auto *b) { return a->start < b->start; });
    if (instance >= matches.size())
        return std::nullopt;
    const pytorch::KinetoNode &node = *matches[instance];
    return TimeWindow{node.start, node.end, std::string(trace.name(node.ref))};
}

} // namespace tracedesk::core::analysis::gputime
