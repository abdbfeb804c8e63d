// Graphviz layout and rendering through libgvc; see graphvizlayout.h.

#include "core/graph/graphvizlayout.h"

#include <graphviz/gvc.h>

#include <memory>
#include <mutex>

namespace tracedesk::core::graph {

namespace {

std::mutex &graphvizLock()
{
    static std::mutex lock;
    return lock;
}

// One context and one parsed graph, released in the right order on every path.
class Session
{
public:
    explicit Session(const std::string &dot) : m_gvc(gvContext())
    {
        if (m_gvc)
            m_graph = agmemread(dot.c_str());
    }
    ~Session()
    {
        if (m_graph) {
            if (m_laidOut)
                gvFreeLayout(m_gvc, m_graph);
            agclose(m_graph);
        }
        if (m_gvc)
            gvFreeContext(m_gvc);
    }
    Session(const Session &) = delete;
    Session &operator=(const Session &) = delete;

    Agraph_t *graph() const { return m_graph; }
    GVC_t *context() const { return m_gvc; }
    bool layout()
    {
        m_laidOut = gvLayout(m_gvc, m_graph, "dot") == 0;
        return m_laidOut;
    }

private:
    GVC_t *m_gvc = nullptr;
    Agraph_t *m_graph = nullptr;
    bool m_laidOut = false;
};

void addClusters(Agraph_t *g, double top, std::vector<LaidOutCluster> &out)
{
    for (int i = 1; i <= GD_n_cluster(g); ++i) {
        Agraph_t *c = GD_clust(g)[i];
        const boxf bb = GD_bb(c);
        LaidOutCluster cluster;
        cluster.label = GD_label(c) && GD_label(c)->text ? GD_label(c)->text : "";
        cluster.x = bb.LL.x;
        cluster.y = top - bb.UR.y;
        cluster.width = bb.UR.x - bb.LL.x;
        cluster.height = bb.UR.y - bb.LL.y;
        out.push_back(std::move(cluster));
        addClusters(c, top, out);
    }
}

} // namespace

Result<GraphLayout> layoutDot(const std::string &dot)
{
    std::lock_guard guard(graphvizLock());
    Session s(dot);
    if (!s.context())
        return Error{"Graphviz could not start"};
    if (!s.graph())
        return Error{"Graphviz could not read the graph"};
    if (!s.layout())
        return Error{"Graphviz could not lay out the graph"};
    Agraph_t *g = s.graph();
    const boxf bb = GD_bb(g);
    const double top = bb.UR.y;
    GraphLayout out;
    out.width = bb.UR.x - bb.LL.x;
    out.height = bb.UR.y - bb.LL.y;
    for (Agnode_t *n = agfstnode(g); n; n = agnxtnode(g, n)) {
        LaidOutNode node;
        node.id = agnameof(n);
        node.x = ND_coord(n).x;
        node.y = top - ND_coord(n).y;
        node.width = ND_width(n) * 72.0;    // inches to points
        node.height = ND_height(n) * 72.0;
        out.nodes.push_back(std::move(node));
        for (Agedge_t *e = agfstout(g, n); e; e = agnxtout(g, e)) {
            LaidOutEdge edge;
            edge.tail = agnameof(agtail(e));
            edge.head = agnameof(aghead(e));
            if (const splines *spl = ED_spl(e); spl && spl->size > 0) {
                const bezier &b = spl->list[0];
                for (int i = 0; i < b.size; ++i) {
                    edge.points.push_back(b.list[i].x);
                    edge.points.push_back(top - b.list[i].y);
                }
                if (b.eflag) {
                    edge.arrowAtHead = true;
                    edge.arrowX = b.ep.x;
                    edge.arrowY = top - b.ep.y;
                }
            }
            if (textlabel_t *label = ED_label(e); label && label->set) {
                edge.labelX = label->pos.x;
                edge.labelY = top - label->pos.y;
            }
            out.edges.push_back(std::move(edge));
        }
    }
    addClusters(g, top, out.clusters);
    return out;
}

Result<std::string> renderDot(const std::string &dot, const std::string &format)
{
    std::lock_guard guard(graphvizLock());
    Session s(dot);
    if (!s.context() || !s.graph())
        return Error{"Graphviz could not read the graph"};
    if (!s.layout())
        return Error{"Graphviz could not lay out the graph"};
    char *data = nullptr;
    unsigned int length = 0;
    if (gvRenderData(s.context(), s.graph(), format.c_str(), &data, &length) != 0 || !data)
        return Error{"Graphviz has no '" + format + "' output"};
    std::string out(data, length);
    gvFreeRenderData(data);
    return out;
}

} // namespace tracedesk::core::graph
