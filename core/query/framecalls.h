#pragma once

// frameCallsIn(): frameCalls() (flamegraph.h) over any top-down graph laid out as a FlameGraph
// is: `nodes` with name, parent, wall, self and count, the root first; children(n); names
// indexed by a node's name. A view that keeps its own copy of a graph's nodes can answer for
// callers and callees from it and let the graph go.

#include "core/query/flamegraph.h"

#include <algorithm>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace tracedesk::core {

template<typename Graph>
FrameCalls frameCallsIn(const Graph &graph, const std::vector<std::string> &names,
                        std::string_view name)
{
    FrameCalls calls;
    calls.name = std::string(name);
    const auto found = std::find(names.begin() + 1, names.end(), name);
    if (name.empty() || found == names.end())
        return calls;
    const uint32_t id = uint32_t(found - names.begin());
    std::unordered_map<uint32_t, FrameEdge> callers, callees;
    for (uint32_t n = 1; n < graph.nodes.size(); ++n) {
        const auto &node = graph.nodes[n];
        if (node.name != id)
            continue;
        calls.self += node.self;
        calls.count += node.count;
        bool outermost = true;
        for (uint32_t k = node.parent; k != 0; k = graph.nodes[k].parent)
            outermost = outermost && graph.nodes[k].name != id;
        if (outermost)
            calls.wall += node.wall;
        FrameEdge &caller = callers[graph.nodes[node.parent].name];
        caller.wall += node.wall;
        caller.count += node.count;
        for (uint32_t c : graph.children(n)) {
            FrameEdge &callee = callees[graph.nodes[c].name];
            callee.wall += graph.nodes[c].wall;
            callee.count += graph.nodes[c].count;
        }
    }
    auto listOf = [&](std::unordered_map<uint32_t, FrameEdge> &edges) {
        std::vector<FrameEdge> list;
        for (auto &[nameId, edge] : edges) {
            edge.name = names[nameId];
            list.push_back(std::move(edge));
        }
        std::sort(list.begin(), list.end(), [](const FrameEdge &a, const FrameEdge &b) {
            return a.wall != b.wall ? a.wall > b.wall : a.name < b.name;
        });
        return list;
    };
    calls.callers = listOf(callers);
    calls.callees = listOf(callees);
    return calls;
}

} // namespace tracedesk::core
