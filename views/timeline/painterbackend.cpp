#include "views/timeline/painterbackend.h"

#include "views/timeline/bookmarks.h"

#include <QPainter>
#include <QPainterPath>

#include <algorithm>
#include <cmath>

namespace tracedesk::views {

namespace {

void addClipped(std::vector<Quad> &out, float x, float y, float w, float h, QRgb colour,
                const QRectF &clip)
{
    const float x0 = std::max(x, float(clip.left()));
    const float y0 = std::max(y, float(clip.top()));
    const float x1 = std::min(x + w, float(clip.right()));
    const float y1 = std::min(y + h, float(clip.bottom()));
    if (x1 > x0 && y1 > y0)
        out.push_back({x0, y0, x1 - x0, y1 - y0, colour});
}

QRgb blend(QRgb a, QRgb b, int percentA)
{
    auto mix = [&](int ca, int cb) { return (ca * percentA + cb * (100 - percentA)) / 100; };
    return qRgb(mix(qRed(a), qRed(b)), mix(qGreen(a), qGreen(b)), mix(qBlue(a), qBlue(b)));
}

// Folded runs, per pixel column: a faint tint of the dominant colour over the row says "work
// here", a bar from the bottom says how busy. Neighbouring columns that look the same merge.
void addDensity(std::vector<Quad> &out, const std::vector<GeoDensity> &columns, float gx,
                float gy, QRgb background, const QRectF &clip)
{
    size_t i = 0;
    while (i < columns.size()) {
        const GeoDensity &c = columns[i];
        const float bar = c.coverage > 0 ? std::max(1.0f, std::round(c.coverage * c.h))
                                         : 1.0f;
        float w = c.w;
        size_t j = i + 1;
        for (; j < columns.size(); ++j) {
            const GeoDensity &d = columns[j];
            const float dBar = d.coverage > 0 ? std::max(1.0f, std::round(d.coverage * d.h))
                                              : 1.0f;
            if (d.y != c.y || d.colour != c.colour || dBar != bar || d.x != c.x + w)
                break;
            w += d.w;
        }
        if (bar < c.h)
            addClipped(out, c.x + gx, c.y + gy, w, c.h - bar, blend(c.colour, background, 28),
                       clip);
        addClipped(out, c.x + gx, c.y + gy + c.h - bar, w, bar, c.colour, clip);
        i = j;
    }
}

} // namespace

void collectQuads(const TimelineGeometry &g, QSize canvas, const TimelineTheme &theme,
                  std::vector<Quad> &out)
{
    out.clear();
    const float gx = kGutterWidth;
    const float gy = kRulerHeight;
    const QRectF all(0, gy, canvas.width(), canvas.height() - gy);
    const QRectF time(gx, gy, canvas.width() - gx, canvas.height() - gy);
    out.push_back({0, gy, gx, float(canvas.height()) - gy, theme.gutter});
    for (const GeoBand &b : g.bands) {
        if (b.header)
            addClipped(out, 0, b.y + gy, float(canvas.width()), b.h, theme.header, all);
        else
            addClipped(out, 0, b.y + gy + b.h, float(canvas.width()), 1, theme.line, all);
    }
    for (const GeoRect &r : g.rects)
        addClipped(out, r.x + gx, r.y + gy, r.w, r.h, r.colour, time);
    addDensity(out, g.density, gx, gy, theme.background, time);
    out.push_back({0, 0, float(canvas.width()), gy, theme.ruler});
}

void paintOverlay(QPainter &p, const TimelineGeometry &g, QSize canvas,
                  const TimelineTheme &theme)
{
    const qreal gx = kGutterWidth;
    const qreal gy = kRulerHeight;
    const QRectF time(gx, gy, canvas.width() - gx, canvas.height() - gy);
    const QFontMetricsF fm(p.font());

    // Labels inside slices.
    p.save();
    p.setClipRect(time);
    p.translate(gx, gy);
    for (const GeoLabel &l : g.labels) {
        const QString text = fm.elidedText(l.text, Qt::ElideRight, l.w);
        if (text.isEmpty() || text == QStringLiteral("…"))
            continue;
        p.setPen(QColor(theme.text));
        p.drawText(QRectF(l.x, l.y, l.w, l.h), Qt::AlignVCenter | Qt::AlignLeft, text);
    }
    for (const GeoCounter &c : g.counters) {
        QPainterPath area;
        area.moveTo(c.points.front().x(), c.y + c.h - 2);
        for (const QPointF &pt : c.points)
            area.lineTo(pt);
        area.lineTo(c.points.back().x(), c.y + c.h - 2);
        QColor fill = QColor::fromRgb(c.colour);
        fill.setAlpha(90);
        p.fillPath(area, fill);
        p.setPen(QPen(QColor::fromRgb(c.colour).darker(130), 1));
        p.drawPolyline(c.points.data(), int(c.points.size()));
        p.setPen(QColor(theme.text));
        p.drawText(QRectF(4, c.y, 300, 14), Qt::AlignLeft | Qt::AlignTop,
                   QStringLiteral("%1 – %2").arg(c.minValue, 0, 'g', 4).arg(c.maxValue, 0, 'g', 4));
    }
    p.setRenderHint(QPainter::Antialiasing, true);
    for (const GeoFlow &f : g.flows) {
        p.setPen(QPen(QColor(theme.selection), 1.5));
        QPainterPath path(f.from);
        const qreal dx = std::max<qreal>(20, (f.to.x() - f.from.x()) / 2);
        path.cubicTo(f.from + QPointF(dx, 0), f.to - QPointF(dx, 0), f.to);
        p.drawPath(path);
        QPolygonF head({f.to, f.to + QPointF(-7, -4), f.to + QPointF(-7, 4)});
        p.setBrush(QColor(theme.selection));
        p.drawPolygon(head);
        p.setBrush(Qt::NoBrush);
    }
    p.setRenderHint(QPainter::Antialiasing, false);
    for (const GeoOverlay &o : g.overlays) {
        switch (o.kind) {
        case GeoOverlay::SelectedSlice:
            p.setPen(QPen(QColor(theme.selection), 2));
            p.setBrush(Qt::NoBrush);
            p.drawRect(QRectF(o.x - 1, o.y - 1, o.w + 2, o.h + 2));
            break;
        case GeoOverlay::Highlight:
            p.setPen(QPen(QColor(theme.highlight), 2));
            p.setBrush(Qt::NoBrush);
            p.drawRect(QRectF(o.x - 1, o.y - 1, o.w + 2, o.h + 2));
            break;
        case GeoOverlay::Area:
            p.setPen(QPen(QColor(theme.selection), 1, Qt::DashLine));
            p.setBrush(QColor(26, 86, 219, 40));
            p.drawRect(QRectF(o.x, o.y, o.w, o.h));
            break;
        case GeoOverlay::Marked:
            if (isBookmarkOverlay(o)) {   // a line down the tracks; its flag is on the ruler
                p.setPen(QPen(QColor(16, 150, 105), 1, Qt::DashLine));
                p.drawLine(QPointF(o.x, o.y), QPointF(o.x, o.y + o.h));
                break;
            }
            p.setPen(Qt::NoPen);
            p.setBrush(QColor(16, 185, 129, 35));
            p.drawRect(QRectF(o.x, o.y, o.w, o.h));
            break;
        case GeoOverlay::Timing: {
            p.setPen(QPen(QColor(theme.timing), 1));
            p.setBrush(QColor(217, 119, 6, 30));
            p.drawRect(QRectF(o.x, o.y, o.w, o.h));
            const QRectF box(o.x + o.w / 2 - 50, 4, 100, 18);
            p.fillRect(box, QColor(theme.timing));
            p.setPen(QColor(Qt::white));
            p.drawText(box, Qt::AlignCenter, o.text);
            break;
        }
        }
    }
    p.restore();

    // Gutter: section headers and track names.
    p.save();
    p.setClipRect(QRectF(0, gy, canvas.width(), canvas.height() - gy));
    for (const GeoBand &b : g.bands) {
        QFont f = p.font();
        f.setBold(b.header);
        p.setFont(f);
        p.setPen(QColor(theme.text));
        const qreal width = b.header ? canvas.width() - 24 : gx - 10;
        const QString prefix = b.header ? (b.collapsed ? QStringLiteral("▸ ")
                                                       : QStringLiteral("▾ "))
                                        : QString();
        const QRectF r(b.header ? 6 : 14, b.y + gy, width, std::min<qreal>(b.h, 18));
        p.drawText(r, Qt::AlignVCenter | Qt::AlignLeft,
                   // Thread names differ at their end ("worker 3" / "worker 17"): elide the
                   // middle so both ends stay; the full name is the gutter's tooltip.
                   QFontMetricsF(f).elidedText(prefix + b.text,
                                               b.header ? Qt::ElideRight : Qt::ElideMiddle,
                                               width));
    }
    p.restore();
    p.setPen(QColor(theme.line));
    p.drawLine(QPointF(gx, gy), QPointF(gx, canvas.height()));

    // Ruler.
    p.setPen(QColor(theme.line));
    p.drawLine(QPointF(0, gy - 0.5), QPointF(canvas.width(), gy - 0.5));
    p.save();
    p.setClipRect(QRectF(gx, 0, canvas.width() - gx, gy));
    for (const GeoTick &t : g.ticks) {
        p.setPen(QColor(theme.line));
        p.drawLine(QPointF(gx + t.x, gy - 7), QPointF(gx + t.x, gy));
        // A label cut by the right edge reads as a different number: leave it out.
        if (gx + t.x + 3 + fm.horizontalAdvance(t.text) > canvas.width())
            continue;
        p.setPen(QColor(theme.text));
        p.drawText(QRectF(gx + t.x + 3, 0, 120, gy - 4), Qt::AlignLeft | Qt::AlignVCenter, t.text);
    }
    // Bookmark flags: the number on a green tab hanging from the top of the ruler.
    for (const GeoOverlay &o : g.overlays) {
        if (!isBookmarkOverlay(o))
            continue;
        const QString number = o.text.mid(kBookmarkFlag.size());
        const qreal w = fm.horizontalAdvance(number) + 8;
        const QRectF tab(gx + o.x - w / 2, 1, w, gy - 8);
        p.fillRect(tab, QColor(16, 150, 105));
        p.setPen(QColor(Qt::white));
        p.drawText(tab, Qt::AlignCenter, number);
        p.setPen(QPen(QColor(16, 150, 105), 1.5));
        p.drawLine(QPointF(gx + o.x, tab.bottom()), QPointF(gx + o.x, gy));
    }
    p.restore();
    // Deep zoom far from the start: the ticks count from this offset (timelineruler.h).
    if (!g.rulerOffset.isEmpty()) {
        QFont bold = p.font();
        bold.setBold(true);
        p.save();
        p.setFont(bold);
        p.setPen(QColor(theme.text));
        const QRectF box(6, 0, gx - 12, gy - 4);
        p.drawText(box, Qt::AlignRight | Qt::AlignVCenter,
                   QFontMetricsF(bold).elidedText(g.rulerOffset + QStringLiteral(" +"),
                                                  Qt::ElideLeft, box.width()));
        p.restore();
    }
}

PainterCanvas::PainterCanvas(FrameSource *source, QWidget *parent)
    : QWidget(parent), m_source(source)
{
    setObjectName(QStringLiteral("TimelineCanvas"));
    setAttribute(Qt::WA_OpaquePaintEvent);
    setMouseTracking(true);
    setFocusPolicy(Qt::StrongFocus);
}

void PainterCanvas::paintEvent(QPaintEvent *)
{
    const TimelineGeometry &g = m_source->frame(size());
    QPainter p(this);
    const TimelineTheme theme = TimelineTheme::forPalette(palette());
    p.fillRect(rect(), QColor::fromRgb(theme.background));
    collectQuads(g, size(), theme, m_quads);
    for (const Quad &q : m_quads)
        p.fillRect(QRectF(q.x, q.y, q.w, q.h), QColor::fromRgb(q.colour));
    paintOverlay(p, g, size(), theme);
}

} // namespace tracedesk::views
