#pragma once

// The application icon, painted in code so it needs no image plugin. It matches
// packaging/icons/tracedesk.svg; the installed PNG sizes are rendered from appIconImage() at
// build time (app/tools/rendericons.cpp).

#include <QIcon>
#include <QImage>

namespace tracedesk::views {

QIcon appIcon();
// One size of the icon, e.g. for the hicolor PNGs of the desktop entry.
QImage appIconImage(int size);

} // namespace tracedesk::views
