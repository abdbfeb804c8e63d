#pragma once

// HloGraphView: draws a laid-out HLO neighbourhood (core hlograph.h + graphvizlayout.h) in a
// zoomable, pannable scene: boxes filled by their share of op time (the same colours as the DOT
// export), the chosen op outlined, edges as Graphviz's splines with their shapes, expanded
// fusions in dashed clusters. The wheel zooms around the cursor, dragging pans, a click on a
// node emits nodeClicked with the instruction's name. GUI thread only.

#include "core/analysis/hlograph.h"
#include "core/graph/graphvizlayout.h"

#include <QGraphicsView>

#include <map>

namespace tracedesk::views {

class HloGraphView : public QGraphicsView
{
    Q_OBJECT

public:
    explicit HloGraphView(QWidget *parent = nullptr);

    void setGraph(const core::analysis::HloGraph &graph, const core::graph::GraphLayout &layout,
                  const std::map<std::string, double> &timeShare);
    void clearGraph();

    int nodeCount() const { return int(m_nodeNames.size()); }
    // Where node `name` is drawn, in view coordinates (for tests that click it); null if absent.
    QPoint nodePosition(const QString &name) const;
    // The fill of node `name` as drawn.
    QColor nodeColour(const QString &name) const;

signals:
    void nodeClicked(const QString &name);

protected:
    void wheelEvent(QWheelEvent *event) override;
    void mousePressEvent(QMouseEvent *event) override;
    void mouseReleaseEvent(QMouseEvent *event) override;

private:
    std::map<QString, QGraphicsItem *> m_nodeNames;
    QPoint m_pressAt;
};

} // namespace tracedesk::views
