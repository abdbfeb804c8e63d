// TimelineWidget's input: keys, mouse, wheel, tooltips and hit testing.

#include "views/timeline/timelinewidget.h"
#include "views/timeline/shortcutshelp.h"

#include "views/common/planetitle.h"
#include "views/common/qtconvert.h"

#include <QHelpEvent>
#include <QKeyEvent>
#include <QContextMenuEvent>
#include <QMenu>
#include <QMouseEvent>
#include <QToolTip>
#include <QWheelEvent>

#include <algorithm>
#include <cmath>

namespace tracedesk::views {

namespace {

constexpr double kZoomStep = 0.8;       // W: the window shrinks to 80 %
constexpr double kPanFraction = 0.1;    // A/D: a tenth of the view (Shift: half)
constexpr int kDragThresholdPx = 4;
constexpr double kPickTolerancePx = 3;

} // namespace

bool TimelineWidget::eventFilter(QObject *watched, QEvent *event)
{
    if (watched != m_canvas->widget())
        return QWidget::eventFilter(watched, event);
    switch (event->type()) {
    case QEvent::Resize:
        m_state->setWidthPx(std::max(1, m_canvas->widget()->width() - kGutterWidth));
        updateScrollBar();
        requestFrame();
        break;
    case QEvent::KeyPress:
        return handleKey(static_cast<QKeyEvent *>(event));
    case QEvent::MouseButtonPress:
    case QEvent::MouseButtonRelease:
    case QEvent::MouseMove:
        return handleMouse(event);
    case QEvent::Leave:
        m_lastMouse = {-1, -1};
        break;
    case QEvent::Wheel:
        return handleWheel(static_cast<QWheelEvent *>(event));
    case QEvent::ContextMenu: {
        auto *context = static_cast<QContextMenuEvent *>(event);
        if (std::unique_ptr<QMenu> menu{contextMenuAt(context->pos())})
            menu->exec(context->globalPos());
        return true;
    }
    case QEvent::ToolTip: {
        auto *help = static_cast<QHelpEvent *>(event);
        const QString text = toolTipAt(help->pos());
        if (text.isEmpty())
            QToolTip::hideText();
        else
            QToolTip::showText(help->globalPos(), text, m_canvas->widget());
        return true;
    }
    default:
        break;
    }
    return QWidget::eventFilter(watched, event);
}

void TimelineWidget::keyPressEvent(QKeyEvent *event)
{
    if (!handleKey(event))
        QWidget::keyPressEvent(event);
}

double TimelineWidget::anchorX() const
{
    const QWidget *canvas = m_canvas->widget();
    if (m_lastMouse.x() >= kGutterWidth && m_lastMouse.x() < canvas->width()
        && m_lastMouse.y() >= 0 && m_lastMouse.y() < canvas->height())
        return m_lastMouse.x();
    return kGutterWidth + (canvas->width() - kGutterWidth) / 2.0;
}

bool TimelineWidget::handleKey(QKeyEvent *event)
{
    const bool shift = event->modifiers() & Qt::ShiftModifier;
    const double width = std::max(1, m_state->widthPx());
    switch (event->key()) {
    case Qt::Key_1: m_state->setTool(TimelineTool::Select); return true;
    case Qt::Key_2: m_state->setTool(TimelineTool::Pan); return true;
    case Qt::Key_3: m_state->setTool(TimelineTool::Zoom); return true;
    case Qt::Key_4: m_state->setTool(TimelineTool::Timing); return true;
    case Qt::Key_W: zoomBy(kZoomStep, anchorX()); return true;
    case Qt::Key_S: zoomBy(1 / kZoomStep, anchorX()); return true;
    case Qt::Key_A: panByPixels(-width * (shift ? 5 : 1) * kPanFraction); return true;
    case Qt::Key_D: panByPixels(width * (shift ? 5 : 1) * kPanFraction); return true;
    case Qt::Key_F:
        if (event->modifiers() & Qt::ControlModifier)
            openSearch();
        else
            frameSelection();
        return true;
    case Qt::Key_Slash: openSearch(); return true;
    case Qt::Key_Question: showTimelineShortcuts(this); return true;
    case Qt::Key_Z:
    case Qt::Key_0: resetZoom(); return true;
    case Qt::Key_M: markSelection(); return true;
    case Qt::Key_Left: stepSelection(core::Direction::Previous); return true;
    case Qt::Key_Right: stepSelection(core::Direction::Next); return true;
    case Qt::Key_Up: setScrollY(scrollY() - TimelineLayout::kRowHeight); return true;
    case Qt::Key_Down: setScrollY(scrollY() + TimelineLayout::kRowHeight); return true;
    case Qt::Key_Escape:
        if (m_state->timing().valid())
            m_state->setTiming({});
        else if (m_state->marked().valid())
            m_state->setMarked({});
        else if (!m_state->highlights().label.isEmpty())
            m_state->clearHighlights();
        else
            m_state->clearSelection();
        return true;
    default:
        return false;
    }
}

AreaRange TimelineWidget::areaBetween(QPointF a, QPointF b) const
{
    AreaRange area;
    const core::TimePs ta = timeAtX(a.x());
    const core::TimePs tb = timeAtX(b.x());
    area.time = {std::min(ta, tb), std::max(ta, tb)};
    const int y0 = int(std::min(a.y(), b.y())) - kRulerHeight + scrollY();
    const int y1 = int(std::max(a.y(), b.y())) - kRulerHeight + scrollY();
    const auto &items = m_layout.items();
    for (size_t i = m_layout.firstItemBelow(y0); i < items.size() && items[i].y <= y1; ++i) {
        if (items[i].kind == LayoutItem::SliceTrack)
            area.tracks.push_back(items[i].track);
    }
    return area;
}

bool TimelineWidget::handleMouse(QEvent *event)
{
    auto *mouse = static_cast<QMouseEvent *>(event);
    const QPointF pos = mouse->position();
    if (event->type() == QEvent::MouseMove)
        m_lastMouse = pos;
    if (!m_trace)
        return false;

    if (event->type() == QEvent::MouseButtonPress) {
        if (mouse->button() != Qt::LeftButton && mouse->button() != Qt::MiddleButton)
            return false;
        m_canvas->widget()->setFocus(Qt::MouseFocusReason);
        m_pressPos = pos;
        m_pressTime = timeAtX(pos.x());
        m_pressT0 = m_state->t0();
        m_pressT1 = m_state->t1();
        m_pressScroll = scrollY();
        if (mouse->button() == Qt::MiddleButton) {
            m_drag = Drag::Pan;
            return true;
        }
        switch (m_state->tool()) {
        case TimelineTool::Select: m_drag = Drag::Pending; break;
        case TimelineTool::Pan: m_drag = Drag::Pan; break;
        case TimelineTool::Zoom: m_drag = Drag::Zoom; break;
        case TimelineTool::Timing:
            m_drag = Drag::Timing;
            m_state->setTiming({});
            break;
        }
        return true;
    }

    if (event->type() == QEvent::MouseMove) {
        const QPointF delta = pos - m_pressPos;
        switch (m_drag) {
        case Drag::None:
        case Drag::Zoom:
            return false;
        case Drag::Pending:
            if (delta.manhattanLength() < kDragThresholdPx)
                return true;
            m_drag = Drag::Area;
            [[fallthrough]];
        case Drag::Area:
            m_areaPreview = areaBetween(m_pressPos, pos);
            requestFrame();
            return true;
        case Drag::Pan: {
            const core::TimePs shift =
                core::TimePs(std::llround(-delta.x() * m_state->viewport().psPerPx()));
            setWindowClamped(m_pressT0 + shift, m_pressT1 + shift);
            setScrollY(m_pressScroll - int(delta.y()));
            return true;
        }
        case Drag::Timing: {
            const core::TimePs t = timeAtX(pos.x());
            m_state->setTiming({std::min(t, m_pressTime), std::max(t, m_pressTime)});
            return true;
        }
        }
        return false;
    }

    // Release.
    const Drag drag = m_drag;
    m_drag = Drag::None;
    const bool moved = (pos - m_pressPos).manhattanLength() >= kDragThresholdPx;
    switch (drag) {
    case Drag::Pending: {
        if (pos.y() >= kRulerHeight) {
            const LayoutHit hit = m_layout.hitTest(int(pos.y()) - kRulerHeight + scrollY());
            if (hit.kind == LayoutHit::Header) {
                setPlaneCollapsed(hit.plane, !planeCollapsed(hit.plane));
                return true;
            }
        }
        m_state->selectSlice(sliceAt(pos));
        return true;
    }
    case Drag::Area:
        m_state->selectArea(areaBetween(m_pressPos, pos));
        return true;
    case Drag::Zoom:
        if (moved) {
            const core::TimePs t = timeAtX(pos.x());
            setWindowClamped(std::min(t, m_pressTime), std::max(t, m_pressTime));
        } else {
            zoomBy(mouse->modifiers() & Qt::ShiftModifier ? 2.0 : 0.5, pos.x());
        }
        return true;
    case Drag::Timing:
        if (!moved)
            m_state->setTiming({});
        return true;
    case Drag::Pan:
    case Drag::None:
        return drag != Drag::None;
    }
    return false;
}

bool TimelineWidget::handleWheel(QWheelEvent *event)
{
    const QPoint angle = event->angleDelta();
    const double steps = (angle.y() != 0 ? angle.y() : angle.x()) / 120.0;
    if (steps == 0)
        return true;
    if (event->modifiers() & Qt::ControlModifier)
        zoomBy(std::pow(kZoomStep, steps), event->position().x());
    else if (event->modifiers() & Qt::ShiftModifier)
        panByPixels(-steps * m_state->widthPx() * kPanFraction);
    else
        setScrollY(scrollY() - int(steps * 3 * TimelineLayout::kRowHeight));
    return true;
}

std::optional<core::SliceRef> TimelineWidget::sliceAt(QPointF pos) const
{
    if (!m_trace || pos.x() < kGutterWidth || pos.y() < kRulerHeight)
        return std::nullopt;
    const LayoutHit hit = m_layout.hitTest(int(pos.y()) - kRulerHeight + scrollY());
    if (hit.kind != LayoutHit::Row)
        return std::nullopt;
    const core::Row &row = m_trace->tracks[hit.track].rows[hit.row];
    if (row.size() == 0)
        return std::nullopt;
    const core::TimePs t = timeAtX(pos.x());
    const core::TimePs tolerance =
        core::TimePs(std::ceil(kPickTolerancePx * m_state->viewport().psPerPx()));
    // The last slice starting at or before t, and the one after it.
    const size_t after = size_t(std::upper_bound(row.start.begin(), row.start.end(), t)
                                - row.start.begin());
    auto ref = [&](size_t i) { return core::SliceRef{hit.track, hit.row, uint32_t(i)}; };
    core::TimePs bestDistance = tolerance + 1;
    std::optional<core::SliceRef> best;
    if (after > 0) {
        const size_t i = after - 1;
        const core::TimePs distance = std::max<core::TimePs>(0, t - row.end(i));
        if (distance < row.duration[i] || distance <= tolerance) {
            bestDistance = distance;
            best = ref(i);
        }
    }
    if (after < row.size() && row.start[after] - t <= tolerance && row.start[after] - t < bestDistance)
        best = ref(after);
    return best;
}

QString TimelineWidget::toolTipAt(QPointF pos) const
{
    if (!m_trace)
        return {};
    const float gx = float(pos.x()) - kGutterWidth;
    const float gy = float(pos.y()) - kRulerHeight;
    auto foldedText = [&](const GeoFolded &f) {
        const core::Row &row = m_trace->tracks[f.track].rows[f.row];
        const core::TimePs span = row.end(f.first + f.count - 1) - row.start[f.first];
        return tr("%1 slices folded (zoom in to see them), span %2")
            .arg(countText(f.count), durationText(span));
    };
    for (const GeoDensity &d : m_geometry.density) {
        if (gx >= d.x && gx < d.x + d.w && gy >= d.y && gy < d.y + d.h) {
            if (d.coverage == core::kNotMeasured) {
                return tr("%1\nthis pixel: %2 slices start here (busy time after indexing)")
                    .arg(foldedText(m_geometry.folded[d.folded]), countText(d.count));
            }
            return tr("%1\nthis pixel: %2% busy, mostly %3; %4 slices start here")
                .arg(foldedText(m_geometry.folded[d.folded]),
                     QString::number(double(d.coverage) * 100, 'f', d.coverage < 0.1f ? 1 : 0),
                     m_builder.kindLabel(d.kind), countText(d.count));
        }
    }
    for (const GeoFolded &f : m_geometry.folded) {
        if (gx >= f.x && gx <= f.x + f.w && gy >= f.y && gy < f.y + f.h)
            return tr("%1\nthis pixel: idle").arg(foldedText(f));
    }
    if (const auto slice = sliceAt(pos)) {
        return tr("%1\n%2").arg(toQString(m_trace->name(*slice)),
                                durationText(m_trace->duration(*slice)));
    }
    if (pos.x() < kGutterWidth && pos.y() >= kRulerHeight) {
        const LayoutHit hit = m_layout.hitTest(int(pos.y()) - kRulerHeight + scrollY());
        if (hit.kind == LayoutHit::Header && hit.plane == kPinnedSection)
            return tr("Pinned tracks");
        if (hit.kind == LayoutHit::Header)
            return planeTitle(*m_trace, hit.plane, true);
        if (hit.kind != LayoutHit::None)
            return toQString(m_trace->string(m_trace->tracks[hit.track].name));
    }
    return {};
}

} // namespace tracedesk::views
