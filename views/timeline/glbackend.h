#pragma once

// The OpenGL canvas: background bands, slices and folded-run columns as instanced quads (one
// vertex array, one instance buffer, GLSL 330 core or 300 es), then text, lines and overlays
// painted with QPainter into an image that is blended on top as one texture. Create it only where openGLAvailable() holds: Qt 6.4's QOpenGLWidget
// crashes on platforms without OpenGL support (offscreen).

#include "views/timeline/painterbackend.h"

#include <QImage>
#include <QOpenGLBuffer>
#include <QOpenGLExtraFunctions>
#include <QOpenGLShaderProgram>
#include <QOpenGLVertexArrayObject>
#include <QOpenGLWidget>

#include <memory>

namespace tracedesk::views {

class GlCanvas : public QOpenGLWidget, public TimelineCanvas, protected QOpenGLExtraFunctions
{
    Q_OBJECT

public:
    explicit GlCanvas(FrameSource *source, QWidget *parent = nullptr);
    ~GlCanvas() override;

    QWidget *widget() override { return this; }
    bool usesOpenGL() const override { return true; }

protected:
    void initializeGL() override;
    void paintGL() override;

private:
    void releaseGl();

    FrameSource *m_source;
    std::vector<Quad> m_quads;
    std::vector<float> m_instances;
    std::unique_ptr<QOpenGLShaderProgram> m_program;
    std::unique_ptr<QOpenGLShaderProgram> m_overlayProgram;
    QOpenGLVertexArrayObject m_vao;
    QOpenGLVertexArrayObject m_overlayVao;
    GLuint m_overlayTexture = 0;
    QImage m_overlay;
    QOpenGLBuffer m_corners{QOpenGLBuffer::VertexBuffer};
    QOpenGLBuffer m_instanceBuffer{QOpenGLBuffer::VertexBuffer};
    bool m_ready = false;
};

} // namespace tracedesk::views
