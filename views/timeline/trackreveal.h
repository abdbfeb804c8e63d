#pragma once

// Bringing a track or a plane's section into view from outside the timeline (the Tracks dock):
// a hidden track is shown again, a collapsed section opened, and the timeline scrolled so the
// track (or the section header) sits near the top. Built on TimelineWidget's public API only.

#include <cstdint>

namespace tracedesk::views {

class TimelineWidget;

// Returns false when the track has nothing to draw (no lane in any layout).
bool revealTrack(TimelineWidget *timeline, uint32_t track);
bool revealPlane(TimelineWidget *timeline, uint32_t plane);

} // namespace tracedesk::views
