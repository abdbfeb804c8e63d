#include "views/common/appicon.h"

#include <QPainter>
#include <QPainterPath>
#include <QImage>
#include <QPixmap>

namespace tracedesk::views {

namespace {

// Drawn on a 64-unit grid: a dark rounded tile with three rows of timeline slices.
QImage paintIcon(int size)
{
    QImage image(size, size, QImage::Format_ARGB32_Premultiplied);
    image.fill(Qt::transparent);
    QPainter p(&image);
    p.setRenderHint(QPainter::Antialiasing);
    p.scale(size / 64.0, size / 64.0);
    QPainterPath tile;
    tile.addRoundedRect(QRectF(2, 2, 60, 60), 12, 12);
    p.fillPath(tile, QColor(0x22, 0x2a, 0x38));
    p.setPen(Qt::NoPen);
    struct Slice
    {
        qreal x, y, w;
        QColor color;
    };
    const Slice slices[] = {
        {10, 14, 44, QColor(0x4c, 0x9a, 0xff)}, {10, 28, 18, QColor(0x3c, 0xc7, 0x8c)},
        {31, 28, 23, QColor(0xff, 0xb3, 0x47)}, {14, 42, 9, QColor(0xe8, 0x5d, 0x75)},
        {26, 42, 6, QColor(0xe8, 0x5d, 0x75)},  {36, 42, 14, QColor(0x3c, 0xc7, 0x8c)},
    };
    for (const Slice &s : slices)
        p.fillRect(QRectF(s.x, s.y, s.w, 9), s.color);
    p.end();
    return image;
}

} // namespace

QImage appIconImage(int size)
{
    return paintIcon(size);
}

QIcon appIcon()
{
    QIcon icon;
    for (int size : {16, 24, 32, 48, 64, 128, 256})
        icon.addPixmap(QPixmap::fromImage(paintIcon(size)));
    return icon;
}

} // namespace tracedesk::views
