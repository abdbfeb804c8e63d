#include "views/panels/graphviewer/hlographview.h"

#include "core/analysis/hlodot.h"

#include <QApplication>
#include <QGraphicsPathItem>
#include <QGraphicsRectItem>
#include <QGraphicsSimpleTextItem>
#include <QFontMetricsF>
#include <QMouseEvent>
#include <QWheelEvent>

#include <cmath>

namespace tracedesk::views {

using core::analysis::HloGraph;
using core::graph::GraphLayout;

namespace {

constexpr int kNameRole = 0;   // QGraphicsItem::data key holding a node's instruction name

// Lines of text, each centred on `centre`'s x, the block centred on its y. Scene units are the
// layout's points, so fonts are sized in them (as Graphviz measured the labels).
void centredText(QGraphicsScene *scene, const QString &text, const QFont &font, QPointF centre,
                 const QColor &colour, const QString &name = {})
{
    const QStringList lines = text.split(QLatin1Char('\n'));
    const double lineHeight = QFontMetricsF(font).height();
    double y = centre.y() - lineHeight * double(lines.size()) / 2;
    for (const QString &line : lines) {
        auto *item = scene->addSimpleText(line, font);
        item->setBrush(colour);
        item->setPos(centre.x() - item->boundingRect().width() / 2, y);
        item->setAcceptedMouseButtons(Qt::NoButton);
        if (!name.isEmpty())
            item->setData(kNameRole, name);
        y += lineHeight;
    }
}

} // namespace

HloGraphView::HloGraphView(QWidget *parent) : QGraphicsView(parent)
{
    setScene(new QGraphicsScene(this));
    setRenderHints(QPainter::Antialiasing | QPainter::TextAntialiasing);
    setDragMode(QGraphicsView::ScrollHandDrag);
    setTransformationAnchor(QGraphicsView::AnchorUnderMouse);
    setBackgroundBrush(Qt::white);
}

void HloGraphView::clearGraph()
{
    scene()->clear();
    m_nodeNames.clear();
}

void HloGraphView::setGraph(const HloGraph &graph, const GraphLayout &layout,
                            const std::map<std::string, double> &timeShare)
{
    clearGraph();
    // The DOT text's font sizes (hlodot.cpp), in layout points.
    QFont font(QStringLiteral("DejaVu Sans"));
    font.setPixelSize(10);
    QFont small = font;
    small.setPixelSize(8);
    const QColor ink(0x22, 0x22, 0x22);
    for (const core::graph::LaidOutCluster &c : layout.clusters) {
        auto *box = scene()->addRect(QRectF(c.x, c.y, c.width, c.height),
                                     QPen(QColor(0x88, 0x88, 0x88), 1, Qt::DashLine));
        box->setZValue(-2);
        auto *label = scene()->addSimpleText(QString::fromStdString(c.label), small);
        label->setBrush(QColor(0x55, 0x55, 0x55));
        label->setPos(c.x + 4, c.y + 2);
    }
    const QPen edgePen(QColor(0x66, 0x66, 0x66), 1);
    for (const core::graph::LaidOutEdge &e : layout.edges) {
        if (e.points.size() < 4)
            continue;
        QPainterPath path(QPointF(e.points[0], e.points[1]));
        // Graphviz gives a cubic B-spline as a start point and triples of control points.
        for (size_t i = 2; i + 6 <= e.points.size(); i += 6)
            path.cubicTo(e.points[i], e.points[i + 1], e.points[i + 2], e.points[i + 3],
                         e.points[i + 4], e.points[i + 5]);
        auto *line = scene()->addPath(path, edgePen);
        line->setZValue(-1);
        if (e.arrowAtHead) {
            const QPointF tip(e.arrowX, e.arrowY);
            const QPointF from = path.currentPosition();
            const QPointF d = tip - from;
            const double len = std::hypot(d.x(), d.y());
            if (len > 0) {
                const QPointF u = d / len, n(-u.y(), u.x());
                QPolygonF head({tip, from + n * 3.5, from - n * 3.5});
                scene()->addPolygon(head, edgePen, QBrush(QColor(0x66, 0x66, 0x66)));
            }
        }
    }
    // Edge labels: the shape each edge carries, matched to the graph's edges by endpoints.
    std::map<std::pair<std::string, std::string>, std::string> shapes;
    for (const core::analysis::HloGraphEdge &e : graph.edges)
        shapes[{"n" + std::to_string(e.from), "n" + std::to_string(e.to)}] = e.shape;
    for (const core::graph::LaidOutEdge &e : layout.edges) {
        if (e.labelX == 0 && e.labelY == 0)
            continue;
        const auto it = shapes.find({e.tail, e.head});
        if (it == shapes.end())
            continue;
        QString text = QString::fromStdString(it->second);
        if (text.size() > 32)
            text = text.left(29) + QStringLiteral("...");
        centredText(scene(), text, small, QPointF(e.labelX, e.labelY), QColor(0x55, 0x55, 0x55));
    }
    for (const core::graph::LaidOutNode &n : layout.nodes) {
        if (n.id.size() < 2 || n.id[0] != 'n')
            continue;
        const size_t index = std::stoul(n.id.substr(1));
        if (index >= graph.nodes.size())
            continue;
        const core::analysis::HloGraphNode &node = graph.nodes[index];
        const auto share = timeShare.find(node.name);
        const double s = share == timeShare.end() ? 0.0 : share->second;
        const QColor fill(QString::fromStdString(core::analysis::hloShareColour(s)));
        const QRectF rect(n.x - n.width / 2, n.y - n.height / 2, n.width, n.height);
        QPainterPath outline;
        outline.addRoundedRect(rect, 6, 6);
        QPen pen(node.isCentre ? QColor(0x1f, 0x77, 0xb4) : QColor(0x44, 0x44, 0x44),
                 node.isCentre ? 3 : 1);
        auto *box = scene()->addPath(outline, pen, fill);
        const QString name = QString::fromStdString(node.name);
        box->setData(kNameRole, name);
        box->setCursor(Qt::PointingHandCursor);
        QString tip = QStringLiteral("%1\n%2 %3").arg(name, QString::fromStdString(node.opcode),
                                                        QString::fromStdString(node.shape));
        if (!node.source.empty())
            tip += QStringLiteral("\n") + QString::fromStdString(node.source);
        if (s > 0)
            tip += tr("\n%1 % of op time").arg(100.0 * s, 0, 'f', 1);
        box->setToolTip(tip);
        QString shape = QString::fromStdString(node.shape);
        if (shape.size() > 48)
            shape = shape.left(45) + QStringLiteral("...");
        QString label = name + QStringLiteral("\n") + QString::fromStdString(node.opcode)
                        + QStringLiteral("  ") + shape;
        if (s > 0)
            label += tr("\n%1 % of op time").arg(100.0 * s, 0, 'f', 1);
        centredText(scene(), label, font, rect.center(), ink, name);
        m_nodeNames[name] = box;
    }
    scene()->setSceneRect(QRectF(-20, -20, layout.width + 40, layout.height + 40));
    resetTransform();
    fitInView(sceneRect(), Qt::KeepAspectRatio);
    // Never magnify a small graph past its natural size; large ones start fitted.
    if (transform().m11() > 1.0)
        resetTransform();
    for (const auto &node : graph.nodes) {
        const auto it = m_nodeNames.find(QString::fromStdString(node.name));
        if (node.isCentre && it != m_nodeNames.end())
            centerOn(it->second);
    }
}

QPoint HloGraphView::nodePosition(const QString &name) const
{
    const auto it = m_nodeNames.find(name);
    if (it == m_nodeNames.end())
        return {};
    return mapFromScene(it->second->sceneBoundingRect().center());
}

QColor HloGraphView::nodeColour(const QString &name) const
{
    const auto it = m_nodeNames.find(name);
    if (it == m_nodeNames.end())
        return {};
    return static_cast<QGraphicsPathItem *>(it->second)->brush().color();
}

void HloGraphView::wheelEvent(QWheelEvent *event)
{
    const double factor = std::pow(1.0015, event->angleDelta().y());
    scale(factor, factor);
    event->accept();
}

void HloGraphView::mousePressEvent(QMouseEvent *event)
{
    m_pressAt = event->pos();
    QGraphicsView::mousePressEvent(event);
}

void HloGraphView::mouseReleaseEvent(QMouseEvent *event)
{
    QGraphicsView::mouseReleaseEvent(event);
    // A click, not the end of a drag.
    if (event->button() != Qt::LeftButton
        || (event->pos() - m_pressAt).manhattanLength() > QApplication::startDragDistance())
        return;
    for (QGraphicsItem *item : items(event->pos())) {
        const QString name = item->data(kNameRole).toString();
        if (!name.isEmpty()) {
            emit nodeClicked(name);
            return;
        }
    }
}

} // namespace tracedesk::views
