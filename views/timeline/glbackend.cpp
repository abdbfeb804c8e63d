#include "views/timeline/glbackend.h"

#include <QGuiApplication>
#include <QOffscreenSurface>
#include <QOpenGLContext>
#include <QOpenGLFunctions>
#include <QPainter>
#include <QVector2D>

#if defined(__has_feature)
#if __has_feature(address_sanitizer)
#define TRACEDESK_ASAN 1
#endif
#endif
#if defined(__SANITIZE_ADDRESS__) && !defined(TRACEDESK_ASAN)
#define TRACEDESK_ASAN 1
#endif

#ifdef TRACEDESK_ASAN
#include <dlfcn.h>
#include <link.h>

#include <cstring>
#include <string>
#include <vector>
#endif

namespace tracedesk::views {

namespace {

#ifdef TRACEDESK_ASAN
// Sanitizer builds only. Mesa unloads its DRI driver when the X display closes, before the
// exit-time leak check. State the driver keeps for the life of the process (a bare
// QOpenGLWidget program has it too) then loses its only references, the driver's globals, and
// LeakSanitizer reports it from an unknown module that no suppression can name. With the
// drivers kept mapped that state stays reachable, so the check sees only our own allocations.
void keepGlDriversMapped()
{
    std::vector<std::string> drivers;
    // Collected first: dlopen must not run inside dl_iterate_phdr, which holds the loader lock.
    dl_iterate_phdr(
        [](dl_phdr_info *info, size_t, void *out) {
            if (info->dlpi_name && std::strstr(info->dlpi_name, "_dri.so"))
                static_cast<std::vector<std::string> *>(out)->emplace_back(info->dlpi_name);
            return 0;
        },
        &drivers);
    for (const std::string &path : drivers)
        dlopen(path.c_str(), RTLD_NOW | RTLD_NOLOAD | RTLD_NODELETE);
}
#endif

// Per instance: rect (x, y, w, h) in logical pixels and colour (r, g, b, a).
const char kVertexBody[] = R"(
layout(location = 0) in vec2 corner;
layout(location = 1) in vec4 rect;
layout(location = 2) in vec4 colour;
uniform vec2 canvasSize;
out vec4 vColour;
void main()
{
    vec2 p = rect.xy + corner * rect.zw;
    gl_Position = vec4(p.x / canvasSize.x * 2.0 - 1.0, 1.0 - p.y / canvasSize.y * 2.0, 0.0, 1.0);
    vColour = colour;
}
)";

const char kFragmentBody[] = R"(
in vec4 vColour;
out vec4 fragColour;
void main()
{
    fragColour = vColour;
}
)";

const char kFragmentPrecision[] = "precision mediump float;\n";

// The overlay image covers the canvas; its first row is the top.
const char kOverlayVertex[] = R"(
layout(location = 0) in vec2 corner;
out vec2 uv;
void main()
{
    gl_Position = vec4(corner.x * 2.0 - 1.0, 1.0 - corner.y * 2.0, 0.0, 1.0);
    uv = corner;
}
)";

const char kOverlayFragment[] = R"(
in vec2 uv;
uniform sampler2D overlay;
out vec4 fragColour;
void main()
{
    fragColour = texture(overlay, uv);
}
)";

} // namespace

namespace {

struct GlProbe
{
    bool available = false;
    bool software = false;
};

const GlProbe &glProbe()
{
    static const GlProbe probe = [] {
        GlProbe p;
        const QString platform = QGuiApplication::platformName();
        if (platform == QLatin1String("offscreen") || platform == QLatin1String("minimal")
            || platform == QLatin1String("vnc"))
            return p;
        QOpenGLContext context;
        if (!context.create())
            return p;
        QOffscreenSurface surface;
        surface.setFormat(context.format());
        surface.create();
        if (!surface.isValid() || !context.makeCurrent(&surface))
            return p;
        const auto *renderer =
            reinterpret_cast<const char *>(context.functions()->glGetString(GL_RENDERER));
        const QString name = QString::fromLatin1(renderer ? renderer : "").toLower();
        p.software = name.contains(QLatin1String("llvmpipe"))
                     || name.contains(QLatin1String("softpipe"))
                     || name.contains(QLatin1String("swrast"))
                     || name.contains(QLatin1String("software"));
        context.doneCurrent();
#ifdef TRACEDESK_ASAN
        keepGlDriversMapped();
#endif
        p.available = true;
        return p;
    }();
    return probe;
}

} // namespace

bool openGLAvailable()
{
    return glProbe().available;
}

bool openGLIsSoftware()
{
    return glProbe().software;
}

TimelineCanvas *createTimelineCanvas(FrameSource *source, QWidget *parent)
{
    const QString forced = qEnvironmentVariable("TRACEDESK_TIMELINE_BACKEND");
    const bool useGl = forced == QLatin1String("gl")
                           ? openGLAvailable()
                           : forced != QLatin1String("painter") && openGLAvailable()
                                 && !openGLIsSoftware();
    if (useGl)
        return new GlCanvas(source, parent);
    return new PainterCanvas(source, parent);
}

GlCanvas::GlCanvas(FrameSource *source, QWidget *parent)
    : QOpenGLWidget(parent), m_source(source)
{
    setObjectName(QStringLiteral("TimelineCanvas"));
    setMouseTracking(true);
    setFocusPolicy(Qt::StrongFocus);
}

GlCanvas::~GlCanvas()
{
    // The base destructor destroys the context, which would call back into a half-destroyed
    // object; release here and stop listening first.
    if (QOpenGLContext *ctx = context()) {
        disconnect(ctx, nullptr, this, nullptr);
        makeCurrent();
        releaseGl();
        doneCurrent();
    }
}

void GlCanvas::releaseGl()
{
    m_instanceBuffer.destroy();
    m_corners.destroy();
    m_vao.destroy();
    m_overlayVao.destroy();
    if (m_overlayTexture)
        glDeleteTextures(1, &m_overlayTexture);
    m_overlayTexture = 0;
    m_program.reset();
    m_overlayProgram.reset();
    m_ready = false;
}

void GlCanvas::initializeGL()
{
    initializeOpenGLFunctions();
    connect(context(), &QOpenGLContext::aboutToBeDestroyed, this, [this] {
        makeCurrent();
        releaseGl();
        doneCurrent();
    });
    const bool es = context()->isOpenGLES();
    const QByteArray version = es ? "#version 300 es\n" : "#version 330 core\n";
    const QByteArray precision = es ? QByteArray(kFragmentPrecision) : QByteArray();
    auto build = [&](QOpenGLShaderProgram &program, const char *vertex, const char *fragment) {
        return program.addShaderFromSourceCode(QOpenGLShader::Vertex, version + vertex)
               && program.addShaderFromSourceCode(QOpenGLShader::Fragment,
                                                  version + precision + fragment)
               && program.link();
    };
    m_program = std::make_unique<QOpenGLShaderProgram>();
    m_overlayProgram = std::make_unique<QOpenGLShaderProgram>();
    if (!build(*m_program, kVertexBody, kFragmentBody)
        || !build(*m_overlayProgram, kOverlayVertex, kOverlayFragment)) {
        qWarning("timeline: the OpenGL shaders failed to build: %s %s",
                 qPrintable(m_program->log()), qPrintable(m_overlayProgram->log()));
        m_program.reset();
        m_overlayProgram.reset();
        return;
    }
    static const float corners[] = {0, 0, 1, 0, 0, 1, 1, 1};
    m_corners.create();
    m_corners.bind();
    m_corners.allocate(corners, sizeof(corners));
    m_corners.release();

    m_vao.create();
    {
        QOpenGLVertexArrayObject::Binder binder(&m_vao);
        m_corners.bind();
        glEnableVertexAttribArray(0);
        glVertexAttribPointer(0, 2, GL_FLOAT, GL_FALSE, 0, nullptr);
        m_instanceBuffer.create();
        m_instanceBuffer.setUsagePattern(QOpenGLBuffer::StreamDraw);
        m_instanceBuffer.bind();
        const int stride = 8 * sizeof(float);
        glEnableVertexAttribArray(1);
        glVertexAttribPointer(1, 4, GL_FLOAT, GL_FALSE, stride, nullptr);
        glVertexAttribDivisor(1, 1);
        glEnableVertexAttribArray(2);
        glVertexAttribPointer(2, 4, GL_FLOAT, GL_FALSE, stride,
                              reinterpret_cast<void *>(4 * sizeof(float)));
        glVertexAttribDivisor(2, 1);
    }
    m_overlayVao.create();
    {
        QOpenGLVertexArrayObject::Binder binder(&m_overlayVao);
        m_corners.bind();
        glEnableVertexAttribArray(0);
        glVertexAttribPointer(0, 2, GL_FLOAT, GL_FALSE, 0, nullptr);
    }
    m_corners.release();
    glGenTextures(1, &m_overlayTexture);
    glBindTexture(GL_TEXTURE_2D, m_overlayTexture);
    glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MIN_FILTER, GL_NEAREST);
    glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MAG_FILTER, GL_NEAREST);
    glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_WRAP_S, GL_CLAMP_TO_EDGE);
    glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_WRAP_T, GL_CLAMP_TO_EDGE);
    glBindTexture(GL_TEXTURE_2D, 0);
    m_ready = true;
}

void GlCanvas::paintGL()
{
    const TimelineGeometry &g = m_source->frame(size());
    const TimelineTheme theme = TimelineTheme::forPalette(palette());
    collectQuads(g, size(), theme, m_quads);
    const QColor bg = QColor::fromRgb(theme.background);
    glClearColor(bg.redF(), bg.greenF(), bg.blueF(), 1.0f);
    glClear(GL_COLOR_BUFFER_BIT);
    if (!m_ready)
        return;
    glDisable(GL_DEPTH_TEST);
    glDisable(GL_SCISSOR_TEST);
    glDisable(GL_BLEND);
    if (!m_quads.empty()) {
        m_instances.resize(m_quads.size() * 8);
        float *out = m_instances.data();
        for (const Quad &q : m_quads) {
            *out++ = q.x;
            *out++ = q.y;
            *out++ = q.w;
            *out++ = q.h;
            *out++ = qRed(q.colour) / 255.0f;
            *out++ = qGreen(q.colour) / 255.0f;
            *out++ = qBlue(q.colour) / 255.0f;
            *out++ = qAlpha(q.colour) / 255.0f;
        }
        m_program->bind();
        m_program->setUniformValue("canvasSize", QVector2D(width(), height()));
        QOpenGLVertexArrayObject::Binder binder(&m_vao);
        m_instanceBuffer.bind();
        m_instanceBuffer.allocate(m_instances.data(), int(m_instances.size() * sizeof(float)));
        glDrawArraysInstanced(GL_TRIANGLE_STRIP, 0, 4, GLsizei(m_quads.size()));
        m_instanceBuffer.release();
        m_program->release();
    }

    // Text, lines and overlays: QPainter's raster engine into an image, blended on top as one
    // texture. (QPainter's own GL engine draws nothing on Mesa llvmpipe with Qt 6.4 here.)
    const qreal dpr = devicePixelRatioF();
    const QSize pixels = (QSizeF(size()) * dpr).toSize();
    if (m_overlay.size() != pixels) {
        m_overlay = QImage(pixels, QImage::Format_RGBA8888_Premultiplied);
        m_overlay.setDevicePixelRatio(dpr);
    }
    m_overlay.fill(Qt::transparent);
    {
        QPainter p(&m_overlay);
        p.setFont(font());
        paintOverlay(p, g, size(), theme);
    }
    glBindTexture(GL_TEXTURE_2D, m_overlayTexture);
    glPixelStorei(GL_UNPACK_ALIGNMENT, 4);
    glTexImage2D(GL_TEXTURE_2D, 0, GL_RGBA, pixels.width(), pixels.height(), 0, GL_RGBA,
                 GL_UNSIGNED_BYTE, m_overlay.constBits());
    glEnable(GL_BLEND);
    glBlendFunc(GL_ONE, GL_ONE_MINUS_SRC_ALPHA);
    m_overlayProgram->bind();
    m_overlayProgram->setUniformValue("overlay", 0);
    glActiveTexture(GL_TEXTURE0);
    {
        QOpenGLVertexArrayObject::Binder binder(&m_overlayVao);
        glDrawArrays(GL_TRIANGLE_STRIP, 0, 4);
    }
    m_overlayProgram->release();
    glBindTexture(GL_TEXTURE_2D, 0);
    glDisable(GL_BLEND);
}

} // namespace tracedesk::views
