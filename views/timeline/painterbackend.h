#pragma once

// QPainter drawing of a TimelineGeometry, used by the painter canvas for everything and by the
// OpenGL canvas for what sits on top of its quads (text, lines, overlays).

#include "views/timeline/timelinecanvas.h"
#include "views/timeline/timelinetheme.h"

#include <QWidget>

class QPainter;

namespace tracedesk::views {

// A filled axis-aligned box in canvas pixels, already clipped to where it may show.
struct Quad
{
    float x, y, w, h;
    QRgb colour;
};

// Background bands, slices and folded runs (density columns) as quads, in drawing order.
void collectQuads(const TimelineGeometry &g, QSize canvas, const TimelineTheme &theme,
                  std::vector<Quad> &out);
// Everything else: gutter names, ruler, labels, counters, flows, overlays.
void paintOverlay(QPainter &p, const TimelineGeometry &g, QSize canvas,
                  const TimelineTheme &theme);

class PainterCanvas : public QWidget, public TimelineCanvas
{
    Q_OBJECT

public:
    explicit PainterCanvas(FrameSource *source, QWidget *parent = nullptr);

    QWidget *widget() override { return this; }
    bool usesOpenGL() const override { return false; }

protected:
    void paintEvent(QPaintEvent *event) override;

private:
    FrameSource *m_source;
    std::vector<Quad> m_quads;
};

} // namespace tracedesk::views
