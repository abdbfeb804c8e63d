#include "views/flamegraph/flametree.h"

#include "views/common/qtconvert.h"

#include <algorithm>

namespace tracedesk::views {

std::vector<uint32_t> FlameTree::pathTo(uint32_t node) const
{
    std::vector<uint32_t> path;
    if (node >= nodes.size())
        return path;
    for (uint32_t n = node; n != 0; n = nodes[n].parent)
        path.push_back(n);
    path.push_back(0);
    std::reverse(path.begin(), path.end());
    return path;
}

namespace {

std::span<const uint32_t> childrenOf(const core::FlameGraph &graph, uint32_t node)
{
    return graph.children(node);
}

std::span<const uint32_t> childrenOf(const core::FlameDiff &diff, uint32_t node)
{
    return diff.nodes[node].children;
}

// What a plain and a differential graph share: names and each node's place in the tree and
// width; `fill` adds the node's own times.
template<typename Graph, typename Fill>
FlameTree treeOf(const Graph &graph, FlameTree::Names names, Fill &&fill)
{
    FlameTree tree;
    tree.names = names ? std::move(names) : std::make_shared<const std::vector<std::string>>(
                                                graph.names);
    tree.nodes.reserve(graph.nodes.size());
    size_t links = 0;
    for (uint32_t i = 0; i < graph.nodes.size(); ++i)
        links += childrenOf(graph, i).size();
    tree.childList.reserve(links);
    for (uint32_t i = 0; i < graph.nodes.size(); ++i) {
        const auto &from = graph.nodes[i];
        const std::span<const uint32_t> children = childrenOf(graph, i);
        FlameTree::Node n;
        n.name = from.name;
        n.parent = from.parent;
        n.depth = from.depth;
        n.firstChild = uint32_t(tree.childList.size());
        n.childCount = uint32_t(children.size());
        tree.childList.insert(tree.childList.end(), children.begin(), children.end());
        fill(from, n);
        tree.maxDepth = std::max(tree.maxDepth, n.depth);
        tree.nodes.push_back(n);
    }
    return tree;
}

} // namespace

QString FlameTree::nameText(uint32_t index) const
{
    if (index == 0)
        return QObject::tr("all");
    return names && index < names->size() ? toQString((*names)[index]) : QString();
}

FlameTree FlameTree::fromGraph(const core::FlameGraph &graph, Names names)
{
    FlameTree tree = treeOf(graph, std::move(names), [](const core::FlameNode &from, Node &n) {
        n.wall = from.wall;
        n.self = from.self;
        n.count = from.count;
    });
    tree.inverted = graph.inverted;
    return tree;
}

FlameTree FlameTree::fromDiff(const core::FlameDiff &diff)
{
    FlameTree tree = treeOf(diff, {}, [](const core::DiffNode &from, Node &n) {
        n.wall = from.wallA + from.wallB;
        n.self = from.selfA + from.selfB;
    });
    tree.sides.reserve(diff.nodes.size());
    for (const core::DiffNode &n : diff.nodes)
        tree.sides.push_back({n.wallA, n.wallB});
    tree.differential = true;
    return tree;
}

std::vector<FlameRect> layoutFlame(const FlameTree &tree, uint32_t focus, double widthPx,
                                   double minPx)
{
    std::vector<FlameRect> out;
    if (tree.nodes.empty() || focus >= tree.nodes.size() || widthPx <= 0)
        return out;
    const std::vector<uint32_t> path = tree.pathTo(focus);
    for (size_t i = 0; i + 1 < path.size(); ++i)
        out.push_back({path[i], 0, widthPx, tree.nodes[path[i]].depth, true});
    const core::TimePs focusWidth = tree.nodes[focus].wall;
    if (focusWidth <= 0) {
        out.push_back({focus, 0, widthPx, tree.nodes[focus].depth, false});
        return out;
    }
    const double scale = widthPx / double(focusWidth);
    // Depth first with an explicit stack: trees can be deep.
    struct Item
    {
        uint32_t node;
        double x;
    };
    std::vector<Item> stack{{focus, 0}};
    while (!stack.empty()) {
        const Item item = stack.back();
        stack.pop_back();
        const FlameTree::Node &n = tree.nodes[item.node];
        const double w = double(n.wall) * scale;
        if (w < minPx && item.node != focus)
            continue;
        out.push_back({item.node, item.x, w, n.depth, false});
        double x = item.x;
        for (uint32_t c : tree.children(item.node)) {
            stack.push_back({c, x});
            x += double(tree.nodes[c].wall) * scale;
        }
    }
    return out;
}

} // namespace tracedesk::views
