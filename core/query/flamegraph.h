#pragma once

// Flame graphs: slices merged by their stack of names.
//
// Design note: a slice's caller is the innermost slice on a row above that holds its whole
// span. Each track's slices in scope are swept in start order (a k-way merge of its rows, which
// are sorted and non-overlapping), keeping each row's latest slice: only that one can hold a
// later start, so the caller is the nearest row above whose latest slice holds the whole slice,
// looked for in at most 256 rows (a stack layout puts it one or a few rows up; the bound keeps
// thousands of rows of staggered spans linear). Memory does not grow with the trace. Each slice is mapped to a
// node of the merged tree: the child, named like the slice, of its caller's node (one hash
// lookup keyed by parent node and name). A node's wall time is the sum of its slices' durations,
// each clipped to the scope's window, to its caller's counted span and past its caller's
// earlier children, so a node is never narrower than its children together; its self time is
// its wall time minus its children's. Widths are integer picoseconds, exact.
//
// Input that overlaps without nesting: a Python-stack trace's `record_function` range starts
// inside the short `__enter__` frames and outlives them, placed on a row below them. Its
// caller is the frame above those that holds all of it, so the range and everything under it
// keep their time (taking the slice that holds its start on the row just above would clip the
// range to an 8 us frame). A slice that no slice above holds whole (a GPU-side annotation
// sticking out of another) goes under the one holding its start that keeps most of its time,
// clipped to it.
//
// Scopes: every slice of some tracks overlapping a window (an area selection, a track, the
// whole trace), counted for its part inside the window, so a graph of an area says where that
// window's time went; or every instance of one name with everything below it: there the
// outermost instances are the roots and slices outside an instance are not part of the graph.
//
// The self-time view is the inverted (bottom-up) tree: each top-down node's self time is added
// along its stack read from the frame up to the root, so a root frame's width is the self time
// of everything with that name, and its children are its callers.
//
// A graph keeps its names as text, so graphs of two traces merge by stack for a differential
// graph (interned ids differ between traces).
//
// Thread rules: pure functions of the immutable store; any thread. The cancel flag is polled
// every few thousand slices; a cancelled build returns Result::cancelled().

#include "core/base/result.h"
#include "core/model/trace.h"

#include <atomic>
#include <optional>
#include <span>
#include <string>
#include <vector>

namespace tracedesk::core {

struct FlameScope
{
    std::vector<uint32_t> tracks; // empty: every track
    TimePs t0 = std::numeric_limits<TimePs>::min();
    TimePs t1 = std::numeric_limits<TimePs>::max();
    std::optional<StringId> rootName; // only instances of this name and their descendants
    // Numbered instances (`ProfilerStep#1009`, any name ending in `#<digits>`) as one frame
    // (`ProfilerStep#*`), so the steps of two runs meet in a differential graph.
    bool foldNumbered = false;
};

// `name` without its `#<digits>` suffix, as `<prefix>#*`; nullopt when it has none.
std::optional<std::string> foldedNumberedName(std::string_view name);

// 48 bytes: a 100M-event graph has 640k nodes.
struct FlameNode
{
    uint32_t name = 0;   // index into FlameGraph::names; 0 is the root's ""
    uint32_t parent = 0; // the root is its own parent
    uint32_t depth = 0;  // 0 for the root
    uint32_t firstChild = 0; // the children: FlameGraph::childList[firstChild, + childCount)
    uint32_t childCount = 0;
    TimePs wall = 0;     // clipped to the caller, see the design note
    TimePs self = 0;
    uint64_t count = 0;  // slices merged into this node
};

struct FlameGraph
{
    std::vector<std::string> names; // names[0] is ""
    std::vector<FlameNode> nodes;   // nodes[0] is the root; its wall sums the top frames
    std::vector<uint32_t> childList; // every node's children, one run each, by name ascending
    bool inverted = false;          // bottom-up: widths are self time, children are callers

    const FlameNode &root() const { return nodes.front(); }
    std::span<const uint32_t> children(uint32_t node) const
    {
        return {childList.data() + nodes[node].firstChild, nodes[node].childCount};
    }
    std::string_view nameOf(uint32_t node) const { return names[nodes[node].name]; }
    // The node's width: wall time, or self time in an inverted graph.
    TimePs width(uint32_t node) const { return inverted ? nodes[node].self : nodes[node].wall; }
    // Names from the top frame down to `node` (the root excluded).
    std::vector<std::string> stack(uint32_t node) const;
    // The nodes whose name contains `text`, any ASCII case (an empty text matches none).
    std::vector<uint32_t> find(std::string_view text) const;
};

// Fills `graph.childList` and each node's run from the nodes' parents (every node but the root
// has one), each run by name ascending: what a builder calls once its nodes are final.
void linkFlameChildren(FlameGraph &graph);

Result<FlameGraph> buildFlameGraph(const Trace &trace, const FlameScope &scope,
                                   const std::atomic<bool> *cancel = nullptr);

// The bottom-up tree of a (top-down) graph.
FlameGraph invertFlameGraph(const FlameGraph &graph);

// One caller or callee of a frame, aggregated over every stack.
struct FrameEdge
{
    std::string name; // "" for the root (a top frame has no caller)
    TimePs wall = 0;
    uint64_t count = 0;
};

struct FrameCalls
{
    std::string name;
    TimePs wall = 0; // the frame's outermost occurrences (recursion counted once)
    TimePs self = 0; // every occurrence
    uint64_t count = 0;
    std::vector<FrameEdge> callers; // wall of the frame under each caller, descending
    std::vector<FrameEdge> callees; // wall of each callee under the frame, descending
};

// Callers and callees of every node named `name` in a top-down graph.
FrameCalls frameCalls(const FlameGraph &graph, std::string_view name);

// Differential graph: the merged stacks of A and B. Widths are A + B, so a stack that only one
// side has still shows, and children always fit their parent; delta() says what changed.
struct DiffNode
{
    uint32_t name = 0;
    uint32_t parent = 0;
    uint32_t depth = 0;
    TimePs wallA = 0;
    TimePs wallB = 0;
    TimePs selfA = 0;
    TimePs selfB = 0;
    std::vector<uint32_t> children; // by name, ascending

    TimePs delta() const { return wallB - wallA; }
};

struct FlameDiff
{
    std::vector<std::string> names;
    std::vector<DiffNode> nodes; // nodes[0] is the root

    TimePs width(uint32_t node) const { return nodes[node].wallA + nodes[node].wallB; }
};

FlameDiff diffFlameGraphs(const FlameGraph &a, const FlameGraph &b);

} // namespace tracedesk::core
