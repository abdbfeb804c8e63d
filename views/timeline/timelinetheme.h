#pragma once

// TimelineTheme: the colours the timeline draws its chrome with (background, section headers,
// gutter, ruler, lines, text, selection and timing overlays). Slice colours are the same in
// every theme: they are picked to read on light and dark backgrounds alike. The theme follows
// the widget's palette, so a dark system palette gets a dark timeline.

#include "views/timeline/timelinegeometry.h"

#include <QPalette>

namespace tracedesk::views {

struct TimelineTheme
{
    QRgb background = kBackgroundColour;
    QRgb header = 0xffe4e7ec;
    QRgb gutter = 0xfff1f2f5;
    QRgb ruler = 0xffeceef2;
    QRgb line = 0xffc5cad3;
    QRgb text = 0xff20242b;
    QRgb folded = kFoldedColour;
    QRgb selection = 0xff1a56db;
    QRgb timing = 0xffd97706;
    QRgb highlight = 0xffdb2777;   // occurrences of an op chosen in a panel

    static TimelineTheme light() { return {}; }
    static TimelineTheme dark()
    {
        return {0xff1e2127, 0xff2d323b, 0xff252930, 0xff2d323b, 0xff3d434f,
                0xffe3e6eb, 0xff737c8f, 0xff6ea8ff, 0xfff59e0b, 0xfff472b6};
    }
    // Dark when the palette's window colour is dark.
    static TimelineTheme forPalette(const QPalette &palette)
    {
        return palette.color(QPalette::Window).lightness() < 128 ? dark() : light();
    }
};

} // namespace tracedesk::views
