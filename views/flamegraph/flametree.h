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
#include <QStringList>

#include <vector>

namespace tracedesk::views {

struct FlameTree
{
    struct Node
    {
        uint32_t name = 0; // index into names
        uint32_t parent = 0;
        uint32_t depth = 0;
        core::TimePs width = 0; // what the layout divides
        core::TimePs wall = 0;  // wall of A + B in a differential tree
        core::TimePs self = 0;
        uint64_t count = 0;
        core::TimePs a = 0; // differential: wall in A and in B
        core::TimePs b = 0;
        std::vector<uint32_t> children;
    };
    QStringList names; // names[0] is the root's label
    std::vector<Node> nodes;
    bool inverted = false;
    bool differential = false;
    uint32_t maxDepth = 0;

    bool empty() const { return nodes.size() <= 1; }
    const QString &nameOf(uint32_t node) const { return names[int(nodes[node].name)]; }
    // The root first, down to `node`.
    std::vector<uint32_t> pathTo(uint32_t node) const;

    static FlameTree fromGraph(const core::FlameGraph &graph);
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
