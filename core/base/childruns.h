#pragma once

// linkChildRuns(): a tree whose nodes know only their parent (node 0 the root, every other node
// one parent) gets its children as runs of one list: node n's are
// list[firstChild, firstChild + childCount), each run ordered by `less`. A counting sort by
// parent, 4 bytes a node, where a vector of children per node costs 24 bytes and an
// allocation each. Node: any type with uint32_t parent, firstChild and childCount.

#include <algorithm>
#include <cstdint>
#include <vector>

namespace tracedesk::core {

template<typename Node, typename Less>
void linkChildRuns(std::vector<Node> &nodes, std::vector<uint32_t> &list, Less &&less)
{
    list.assign(nodes.empty() ? 0 : nodes.size() - 1, 0);
    for (Node &n : nodes)
        n.childCount = 0;
    for (size_t id = 1; id < nodes.size(); ++id)
        ++nodes[nodes[id].parent].childCount;
    uint32_t at = 0;
    for (Node &n : nodes) {
        n.firstChild = at;
        at += n.childCount;
    }
    std::vector<uint32_t> filled(nodes.size(), 0);
    for (size_t id = 1; id < nodes.size(); ++id) {
        const uint32_t parent = nodes[id].parent;
        list[nodes[parent].firstChild + filled[parent]++] = uint32_t(id);
    }
    for (const Node &n : nodes)
        std::sort(list.begin() + n.firstChild, list.begin() + n.firstChild + n.childCount, less);
}

} // namespace tracedesk::core
