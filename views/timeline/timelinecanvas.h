#pragma once

// The seam between the timeline widget and its drawing backends. A canvas is a widget that,
// when it paints, asks its FrameSource for the geometry of the current frame at its size and
// draws it: the OpenGL canvas with instanced quads plus QPainter text on top, the painter
// canvas with QPainter alone (for platforms without OpenGL, e.g. offscreen, and image tests).
// The canvas forwards no input itself; the timeline widget filters its events.

#include "views/timeline/timelinegeometry.h"

#include <QSize>

class QWidget;

namespace tracedesk::views {

// Frame layout shared by every backend: a gutter of track names on the left, a time ruler on
// top, the time area (where the geometry's origin sits) below and to the right of both.
inline constexpr int kGutterWidth = 190;
inline constexpr int kRulerHeight = 24;

class FrameSource
{
public:
    virtual ~FrameSource() = default;
    // The geometry for a canvas of this size, rebuilt only when something changed.
    virtual const TimelineGeometry &frame(QSize canvasSize) = 0;
};

class TimelineCanvas
{
public:
    virtual ~TimelineCanvas() = default;
    virtual QWidget *widget() = 0;
    virtual bool usesOpenGL() const = 0;
};

// True when a QOpenGLWidget can work here: a platform that supports it and a context that
// becomes current on an offscreen surface. Probed once; needs a QGuiApplication.
bool openGLAvailable();
// True when that context is a software rasterizer (llvmpipe, softpipe, swrast): there a
// QOpenGLWidget makes every repaint of the window a software composition on the CPU cores the
// analyses use, so the QPainter canvas is the faster choice.
bool openGLIsSoftware();

// The OpenGL canvas when available on a hardware renderer, else the QPainter canvas.
// TRACEDESK_TIMELINE_BACKEND=painter forces QPainter; =gl forces OpenGL wherever it works.
TimelineCanvas *createTimelineCanvas(FrameSource *source, QWidget *parent);

} // namespace tracedesk::views
