#pragma once

// The application icon, painted in code so it needs no image plugin. It matches
// resources/tracedesk.svg (used by the desktop entry).

#include <QIcon>

namespace tracedesk::views {

QIcon appIcon();

} // namespace tracedesk::views
