#pragma once

// FlameTree: what the icicle widget draws, whichever graph it came from (a top-down or
// bottom-up core::FlameGraph, or a core::FlameDiff), plus the pure layout of one frame of it.
//
// Layout: the focused node spans the whole width; its ancestors are drawn full width above it
// (to click back to), its descendants proportionally to their width below, each child after
// its earlier siblings inside its parent. Row r holds the nodes of depth r (the root, "all", is
// row 0). Nodes narrower than minPx are left out with their subtrees, so a frame costs
// what is visible, not the size of the tree.

#include "core/query/flamegraph.h"

#include <QString>

#include <memory>
#include <span>
#include <string>
#include <vector>

namespace tracedesk::views {

struct FlameTree
{
    // Names are shared with the graph the tree was made from and read as text on demand: a
    // trace with 640k distinct names would otherwise hold each twice, once as UTF-16.
    using Names = std::shared_ptr<const std::vector<std::string>>;

    struct Node
    {
        uint32_t name = 0; // index into names
        uint32_t parent = 0;
        uint32_t depth = 0;
        uint32_t childCount = 0;
        uint32_t firstChild = 0; // into childList; a node's children are adjacent there
        // Wall time (A + B in a differential tree; self time in an inverted one, where the two
        // are equal): also the frame's width, what the layout divides.
        core::TimePs wall = 0;
        core::TimePs self = 0;
        uint64_t count = 0;
    };
    // A differential tree's wall time of each node in A and in B.
    struct SideWalls
    {
        core::TimePs a = 0;
        core::TimePs b = 0;
    };
    Names names; // names[0] is the root's ""
    std::vector<Node> nodes;
    std::vector<uint32_t> childList;
    std::vector<SideWalls> sides; // per node, differential trees only
    bool inverted = false;
    bool differential = false;
    uint32_t maxDepth = 0;

    bool empty() const { return nodes.size() <= 1; }
    size_t nameCount() const { return names ? names->size() : 0; }
    // Name `index` as text; the root's reads "all".
    QString nameText(uint32_t index) const;
    QString nameOf(uint32_t node) const { return nameText(nodes[node].name); }
    SideWalls sidesOf(uint32_t node) const
    {
        return node < sides.size() ? sides[node] : SideWalls{};
    }
    std::span<const uint32_t> children(uint32_t node) const
    {
        const Node &n = nodes[node];
        return {childList.data() + n.firstChild, n.childCount};
    }
    // The root first, down to `node`.
    std::vector<uint32_t> pathTo(uint32_t node) const;

    // `names`, when given, are the graph's names held elsewhere (the same indices, e.g. those
    // of the top-down graph an inverted one was made from); else the tree copies them.
    static FlameTree fromGraph(const core::FlameGraph &graph, Names names = {});
    static FlameTree fromDiff(const core::FlameDiff &diff);
};

struct FlameRect
{
    uint32_t node = 0;
    double x = 0;
    double w = 0;
    uint32_t row = 0;
    bool ancestor = false; // above the focus: drawn dimmed
};

std::vector<FlameRect> layoutFlame(const FlameTree &tree, uint32_t focus, double widthPx,
                                   double minPx = 0.5);

} // namespace tracedesk::views
