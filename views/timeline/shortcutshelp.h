#pragma once

// The timeline's keyboard and mouse shortcuts, shown by `?` (one list, so the help cannot drift
// from the README table by being written twice in the code).

#include <QString>

class QWidget;

namespace tracedesk::views {

QString timelineShortcutsHtml();
// A non-modal box listing the shortcuts (objectName "TimelineShortcuts"); deleted on close.
void showTimelineShortcuts(QWidget *parent);

} // namespace tracedesk::views
