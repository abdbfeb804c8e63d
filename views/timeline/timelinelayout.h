#pragma once

// TimelineLayout: where every plane section and track sits vertically, in pixels from the top
// of the track area. A "Pinned" section comes first when the user pinned tracks (in the order
// they were pinned), then device planes, then host planes, then the rest, each group in
// sortIndex order. A section is a header followed by its tracks unless collapsed; a slice
// track is one fixed-height lane per nesting row, a counter track one fixed-height band.
// Tracks with nothing to draw (aggregate statistics only) get no lane; hidden tracks get none
// either, and a pinned track appears only in the pinned section. A plane keeps its header
// while it has unpinned tracks, even when all of them are hidden, so they can be shown again.
//
// A plain value rebuilt when the trace or the TrackState changes; no Qt widgets involved.

#include "core/model/trace.h"

#include <set>
#include <vector>

namespace tracedesk::views {

// The pinned section's id wherever a plane index is expected (headers, collapsed sets).
inline constexpr uint32_t kPinnedSection = 0xffffffffu;

// What the user changed about the track list, as indices into the trace.
struct TrackState
{
    std::set<uint32_t> collapsed;     // planes, or kPinnedSection
    std::set<uint32_t> hidden;        // tracks; hiding wins over pinning
    std::vector<uint32_t> pinned;     // tracks, in the order they were pinned
    friend bool operator==(const TrackState &, const TrackState &) = default;
};

struct LayoutItem
{
    enum Kind : uint8_t { Header, SliceTrack, CounterTrack };
    Kind kind = Header;
    uint32_t plane = 0;     // Header: the plane or kPinnedSection; tracks: the track's plane
    uint32_t track = 0;     // SliceTrack / CounterTrack only
    int y = 0;              // top, from the top of the track area
    int height = 0;
    int rows = 0;           // SliceTrack: number of lanes
    bool collapsed = false; // Header only
    int hidden = 0;         // Header only: drawable tracks of the section the user hid
    bool pinned = false;    // tracks: shown in the pinned section
};

struct LayoutHit
{
    enum Kind : uint8_t { None, Header, Row, Counter };
    Kind kind = None;
    uint32_t plane = 0;     // Header: may be kPinnedSection
    uint32_t track = 0;
    uint32_t row = 0;
    int item = -1;          // index into TimelineLayout::items()
};

class TimelineLayout
{
public:
    static constexpr int kRowHeight = 18;
    static constexpr int kHeaderHeight = 22;
    static constexpr int kCounterHeight = 40;
    static constexpr int kTrackGap = 3;      // below each track, so neighbours stay apart

    TimelineLayout() = default;
    TimelineLayout(const core::Trace &trace, const std::set<uint32_t> &collapsedPlanes = {});
    TimelineLayout(const core::Trace &trace, const TrackState &state);

    const std::vector<LayoutItem> &items() const { return m_items; }
    int totalHeight() const { return m_totalHeight; }
    // Planes in display order (every plane, whether or not it has a section).
    const std::vector<uint32_t> &planeOrder() const { return m_planeOrder; }
    // Tracks that could have a lane (hidden or not): what "show hidden" can bring back.
    static bool drawable(const core::Track &track);

    // What lies at y (track-area coordinates); kind None in gaps or past the end.
    LayoutHit hitTest(int y) const;
    // The first item whose bottom is below y: where a scrolled view starts drawing.
    size_t firstItemBelow(int y) const;
    // The top of `row` on `track`, or -1 when the track is hidden or unknown.
    int rowTop(uint32_t track, uint32_t row) const;
    // Item index of a track, or -1.
    int itemOfTrack(uint32_t track) const;

private:
    void addTrack(const core::Trace &trace, uint32_t plane, uint32_t track, bool pinned, int &y);

    std::vector<LayoutItem> m_items;
    std::vector<uint32_t> m_planeOrder;
    std::vector<int> m_trackItem;   // per track: item index or -1
    int m_totalHeight = 0;
};

} // namespace tracedesk::views
