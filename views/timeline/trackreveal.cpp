#include "views/timeline/trackreveal.h"

#include "views/timeline/timelinewidget.h"

#include <algorithm>

namespace tracedesk::views {

namespace {

// Leaves a little of what is above in view, so the track does not stick to the ruler.
constexpr int kMarginAbove = TimelineLayout::kHeaderHeight;

} // namespace

bool revealTrack(TimelineWidget *timeline, uint32_t track)
{
    const core::TracePtr &trace = timeline->trace();
    if (!trace || track >= trace->tracks.size())
        return false;
    if (timeline->trackHidden(track))
        timeline->setTrackHidden(track, false);
    const uint32_t plane = trace->tracks[track].plane;
    if (!timeline->trackPinned(track) && timeline->planeCollapsed(plane))
        timeline->setPlaneCollapsed(plane, false);
    if (timeline->trackPinned(track) && timeline->planeCollapsed(kPinnedSection))
        timeline->setPlaneCollapsed(kPinnedSection, false);
    const int item = timeline->layout().itemOfTrack(track);
    if (item < 0)
        return false;
    timeline->setScrollY(std::max(0, timeline->layout().items()[size_t(item)].y - kMarginAbove));
    return true;
}

bool revealPlane(TimelineWidget *timeline, uint32_t plane)
{
    const core::TracePtr &trace = timeline->trace();
    if (!trace || plane >= trace->planes.size())
        return false;
    if (timeline->planeCollapsed(plane))
        timeline->setPlaneCollapsed(plane, false);
    for (const LayoutItem &item : timeline->layout().items()) {
        if (item.kind == LayoutItem::Header && item.plane == plane) {
            timeline->setScrollY(std::max(0, item.y));
            return true;
        }
    }
    return false;
}

} // namespace tracedesk::views
