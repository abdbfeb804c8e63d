#pragma once

// Graph layout by Graphviz's `dot` engine (the engine XProf's graph viewer uses), through its C
// library. layoutDot() returns where each node, edge and cluster goes, in points with the
// origin at the top left and y down (Graphviz's own y points up); renderDot() returns the
// drawing in one of Graphviz's output formats ("svg", "dot", "plain").
//
// Graphviz keeps global state, so calls are serialised here; any thread may call.

#include "core/base/result.h"

#include <string>
#include <vector>

namespace tracedesk::core::graph {

struct LaidOutNode
{
    std::string id;
    double x = 0, y = 0;        // centre
    double width = 0, height = 0;
};

struct LaidOutEdge
{
    std::string tail, head;
    std::vector<double> points;   // x0, y0, x1, y1, ...: a cubic B-spline's control points
    bool arrowAtHead = false;
    double arrowX = 0, arrowY = 0;   // the arrow's tip when arrowAtHead
    double labelX = 0, labelY = 0;   // the label's centre; 0, 0 when there is none
};

struct LaidOutCluster
{
    std::string label;
    double x = 0, y = 0, width = 0, height = 0;   // top left and size
};

struct GraphLayout
{
    double width = 0, height = 0;
    std::vector<LaidOutNode> nodes;
    std::vector<LaidOutEdge> edges;
    std::vector<LaidOutCluster> clusters;
};

Result<GraphLayout> layoutDot(const std::string &dot);
Result<std::string> renderDot(const std::string &dot, const std::string &format);

} // namespace tracedesk::core::graph
