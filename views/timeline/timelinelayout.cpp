#include "views/timeline/timelinelayout.h"

#include <algorithm>

namespace tracedesk::views {

namespace {

int kindRank(core::PlaneKind kind)
{
    switch (kind) {
    case core::PlaneKind::Device: return 0;
    case core::PlaneKind::Host: return 1;
    default: return 2;
    }
}

} // namespace

TimelineLayout::TimelineLayout(const core::Trace &trace, const std::set<uint32_t> &collapsed)
    : TimelineLayout(trace, TrackState{collapsed, {}, {}})
{
}

bool TimelineLayout::drawable(const core::Track &track)
{
    return track.type == core::TrackType::Counter ? track.counter.size() > 0 : !track.rows.empty();
}

TimelineLayout::TimelineLayout(const core::Trace &trace, const TrackState &state)
{
    m_trackItem.assign(trace.tracks.size(), -1);
    m_planeOrder.resize(trace.planes.size());
    for (uint32_t p = 0; p < m_planeOrder.size(); ++p)
        m_planeOrder[p] = p;
    std::stable_sort(m_planeOrder.begin(), m_planeOrder.end(), [&](uint32_t a, uint32_t b) {
        const core::Plane &pa = trace.planes[a];
        const core::Plane &pb = trace.planes[b];
        if (kindRank(pa.kind) != kindRank(pb.kind))
            return kindRank(pa.kind) < kindRank(pb.kind);
        return pa.sortIndex < pb.sortIndex;
    });

    // Pins of unknown, duplicate or undrawable tracks are ignored rather than trusted.
    std::vector<uint32_t> pinned;
    std::set<uint32_t> pinnedSet;
    int pinnedHidden = 0;
    for (uint32_t t : state.pinned) {
        if (t >= trace.tracks.size() || !drawable(trace.tracks[t]) || !pinnedSet.insert(t).second)
            continue;
        if (state.hidden.count(t))
            ++pinnedHidden;
        else
            pinned.push_back(t);
    }

    int y = 0;
    auto addHeader = [&](uint32_t plane, int hidden) {
        LayoutItem header;
        header.plane = plane;
        header.y = y;
        header.height = kHeaderHeight;
        header.collapsed = state.collapsed.count(plane) > 0;
        header.hidden = hidden;
        m_items.push_back(header);
        y += kHeaderHeight;
        return header.collapsed;
    };
    if (!pinned.empty() && !addHeader(kPinnedSection, pinnedHidden)) {
        for (uint32_t t : pinned)
            addTrack(trace, trace.tracks[t].plane, t, true, y);
    }

    for (uint32_t p : m_planeOrder) {
        std::vector<uint32_t> tracks;
        int hidden = 0;
        bool any = false;
        for (uint32_t t : trace.planes[p].tracks) {
            if (!drawable(trace.tracks[t]) || pinnedSet.count(t))
                continue;
            any = true;
            if (state.hidden.count(t))
                ++hidden;
            else
                tracks.push_back(t);
        }
        if (!any)
            continue;
        std::stable_sort(tracks.begin(), tracks.end(), [&](uint32_t a, uint32_t b) {
            return trace.tracks[a].sortIndex < trace.tracks[b].sortIndex;
        });
        if (addHeader(p, hidden))
            continue;
        for (uint32_t t : tracks)
            addTrack(trace, p, t, false, y);
    }
    m_totalHeight = y;
}

void TimelineLayout::addTrack(const core::Trace &trace, uint32_t plane, uint32_t t, bool pinned,
                              int &y)
{
    const core::Track &track = trace.tracks[t];
    LayoutItem item;
    item.plane = plane;
    item.track = t;
    item.y = y;
    item.pinned = pinned;
    if (track.type == core::TrackType::Counter) {
        item.kind = LayoutItem::CounterTrack;
        item.height = kCounterHeight;
    } else {
        item.kind = LayoutItem::SliceTrack;
        item.rows = int(track.rows.size());
        item.height = item.rows * kRowHeight;
    }
    m_trackItem[t] = int(m_items.size());
    m_items.push_back(item);
    y += item.height + kTrackGap;
}

size_t TimelineLayout::firstItemBelow(int y) const
{
    auto it = std::partition_point(m_items.begin(), m_items.end(),
                                   [y](const LayoutItem &i) { return i.y + i.height <= y; });
    return size_t(it - m_items.begin());
}

LayoutHit TimelineLayout::hitTest(int y) const
{
    LayoutHit hit;
    const size_t i = firstItemBelow(y);
    if (i >= m_items.size() || y < m_items[i].y)
        return hit;
    const LayoutItem &item = m_items[i];
    hit.plane = item.plane;
    hit.track = item.track;
    hit.item = int(i);
    switch (item.kind) {
    case LayoutItem::Header:
        hit.kind = LayoutHit::Header;
        break;
    case LayoutItem::CounterTrack:
        hit.kind = LayoutHit::Counter;
        break;
    case LayoutItem::SliceTrack:
        hit.kind = LayoutHit::Row;
        hit.row = uint32_t((y - item.y) / kRowHeight);
        break;
    }
    return hit;
}

int TimelineLayout::itemOfTrack(uint32_t track) const
{
    return track < m_trackItem.size() ? m_trackItem[track] : -1;
}

int TimelineLayout::rowTop(uint32_t track, uint32_t row) const
{
    const int i = itemOfTrack(track);
    if (i < 0)
        return -1;
    const LayoutItem &item = m_items[size_t(i)];
    if (item.kind == LayoutItem::CounterTrack)
        return item.y;
    if (int(row) >= item.rows)
        return -1;
    return item.y + int(row) * kRowHeight;
}

} // namespace tracedesk::views
