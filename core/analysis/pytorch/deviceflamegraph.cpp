#include "core/analysis/pytorch/deviceflamegraph.h"

#include <algorithm>
#include <map>
#include <string>
#include <unordered_map>

namespace tracedesk::core::analysis::pytorch {

namespace {

// Interns names and child frames (parent frame, name) of the merged graph.
class GraphBuilder
{
public:
    explicit GraphBuilder(FlameGraph &graph)
        : m_graph(graph)
    {
        m_graph.names.emplace_back();
        m_graph.nodes.emplace_back();
    }

    uint32_t child(uint32_t parent, std::string_view name)
    {
        const uint32_t id = nameId(name);
        const uint64_t key = uint64_t(parent) << 32 | id;
        const auto [it, inserted] = m_children.try_emplace(key, uint32_t(m_graph.nodes.size()));
        if (inserted) {
            FlameNode n;
            n.name = id;
            n.parent = parent;
            n.depth = m_graph.nodes[parent].depth + 1;
            m_graph.nodes.push_back(n);
        }
        return it->second;
    }

private:
    uint32_t nameId(std::string_view name)
    {
        const auto [it, inserted] =
            m_names.try_emplace(std::string(name), uint32_t(m_graph.names.size()));
        if (inserted)
            m_graph.names.emplace_back(name);
        return it->second;
    }

    FlameGraph &m_graph;
    std::unordered_map<std::string, uint32_t> m_names;
    std::unordered_map<uint64_t, uint32_t> m_children;
};

} // namespace

FlameGraph deviceTimeFlameGraph(const Trace &trace, const OperatorTree &tree,
                                const GraphCaptureAttribution *capture)
{
    const KinetoIndex &index = *tree.index;
    FlameGraph graph;
    GraphBuilder builder(graph);
    const bool withCapture = capture && capture->hasCapture;
    // Parents come before children in the tree, so each node's frame exists before its
    // children's.
    std::vector<uint32_t> frameOf(tree.nodes.size(), 0);
    for (uint32_t id = 0; id < tree.nodes.size(); ++id) {
        const OpNode &node = tree.nodes[id];
        if (node.mergedInto != kNoIndex)
            continue;
        const bool root = node.nodeClass == OpNodeClass::Root;
        const uint32_t parentFrame = root ? 0 : frameOf[node.parent];
        const std::string name = root ? "thread " + std::to_string(index.threads[node.thread].tid)
                                      : std::string(tree.nodeName(trace, id));
        const uint32_t frame = builder.child(parentFrame, name);
        frameOf[id] = frame;
        graph.nodes[frame].count += root ? 0 : 1;
        // Own GPU time: the node's self device time, less what a capture names elsewhere.
        TimePs self = node.deviceSelf;
        if (withCapture) {
            std::map<std::string_view, std::pair<TimePs, uint64_t>> byCapture;
            for (uint32_t r : node.runtimes) {
                for (uint32_t a : index.activitiesOf(r)) {
                    const std::string_view op = capture->captureOperator(a);
                    if (op.empty())
                        continue;
                    auto &[time, count] = byCapture[op];
                    time += index.activities[a].end - index.activities[a].start;
                    ++count;
                }
            }
            for (const auto &[op, tc] : byCapture) {
                const uint32_t c =
                    builder.child(frame, std::string(kCapturedFramePrefix) + std::string(op));
                graph.nodes[c].self += tc.first;
                graph.nodes[c].count += tc.second;
                self -= tc.first;
            }
        }
        graph.nodes[frame].self += self;
    }
    // Walls: a frame's self plus its children's walls (children have larger indices).
    for (uint32_t f = uint32_t(graph.nodes.size()); f-- > 1;) {
        FlameNode &n = graph.nodes[f];
        n.wall += n.self;
        graph.nodes[n.parent].wall += n.wall;
    }
    FlameNode &root = graph.nodes.front();
    root.self = 0;
    linkFlameChildren(graph);
    return graph;
}

} // namespace tracedesk::core::analysis::pytorch
