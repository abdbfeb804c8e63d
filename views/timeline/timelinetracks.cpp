// TimelineWidget's track management: hide, pin, collapse and the menus that offer them. Every
// change goes through setTrackState, which rebuilds the layout and stores the state.

#include "views/timeline/timelinewidget.h"

#include <QAction>
#include <QMenu>

#include <algorithm>

namespace tracedesk::views {

bool TimelineWidget::trackPinned(uint32_t track) const
{
    return std::find(m_tracks.pinned.begin(), m_tracks.pinned.end(), track)
           != m_tracks.pinned.end();
}

void TimelineWidget::setTrackState(TrackState state)
{
    if (state == m_tracks)
        return;
    m_tracks = std::move(state);
    m_prefs.save(m_tracks);
    // A hidden track can no longer be part of an area selection.
    const AreaRange &area = m_state->area();
    if (std::any_of(area.tracks.begin(), area.tracks.end(),
                    [this](uint32_t t) { return trackHidden(t); }))
        m_state->clearSelection();
    rebuildLayout();
}

void TimelineWidget::setPlaneCollapsed(uint32_t plane, bool collapsed)
{
    TrackState state = m_tracks;
    if (collapsed)
        state.collapsed.insert(plane);
    else
        state.collapsed.erase(plane);
    setTrackState(std::move(state));
}

bool TimelineWidget::focusHost(const QString &host)
{
    if (!m_trace)
        return false;
    const std::string name = host.toStdString();
    auto mine = [&](uint32_t plane) { return m_trace->string(m_trace->planes[plane].host) == name; };
    TrackState state = m_tracks;
    bool found = false;
    for (uint32_t p = 0; p < m_trace->planes.size(); ++p) {
        if (mine(p)) {
            found = true;
            state.collapsed.erase(p);
        } else {
            state.collapsed.insert(p);
        }
    }
    if (!found)
        return false;
    setTrackState(std::move(state));
    for (const LayoutItem &item : m_layout.items()) {
        if (item.kind == LayoutItem::Header && item.plane < m_trace->planes.size()
            && mine(item.plane)) {
            setScrollY(item.y);
            break;
        }
    }
    return true;
}

void TimelineWidget::setTrackHidden(uint32_t track, bool hidden)
{
    if (!m_trace || track >= m_trace->tracks.size())
        return;
    TrackState state = m_tracks;
    if (hidden)
        state.hidden.insert(track);
    else
        state.hidden.erase(track);
    setTrackState(std::move(state));
}

void TimelineWidget::setTrackPinned(uint32_t track, bool pinned)
{
    if (!m_trace || track >= m_trace->tracks.size() || trackPinned(track) == pinned)
        return;
    TrackState state = m_tracks;
    if (pinned)
        state.pinned.push_back(track);
    else
        state.pinned.erase(std::find(state.pinned.begin(), state.pinned.end(), track));
    setTrackState(std::move(state));
}

void TimelineWidget::collapseAll()
{
    if (!m_trace)
        return;
    TrackState state = m_tracks;
    for (uint32_t p = 0; p < m_trace->planes.size(); ++p)
        state.collapsed.insert(p);
    if (!state.pinned.empty())
        state.collapsed.insert(kPinnedSection);
    setTrackState(std::move(state));
    setScrollY(0);
}

void TimelineWidget::expandAll()
{
    TrackState state = m_tracks;
    state.collapsed.clear();
    setTrackState(std::move(state));
}

void TimelineWidget::showHiddenTracks(uint32_t section)
{
    if (!m_trace)
        return;
    TrackState state = m_tracks;
    std::erase_if(state.hidden, [&](uint32_t t) {
        const bool pinned = trackPinned(t);
        return section == kPinnedSection ? pinned
                                         : !pinned && m_trace->tracks[t].plane == section;
    });
    state.collapsed.erase(section);   // the tracks asked for should be seen
    setTrackState(std::move(state));
}

QMenu *TimelineWidget::contextMenuAt(QPointF pos)
{
    if (!m_trace || pos.y() < kRulerHeight)
        return nullptr;
    const LayoutHit hit = m_layout.hitTest(int(pos.y()) - kRulerHeight + scrollY());
    if (hit.kind == LayoutHit::None)
        return nullptr;
    auto *menu = new QMenu(this);
    auto add = [&](const QString &text, const char *name, auto slot) {
        QAction *a = menu->addAction(text);
        a->setObjectName(QString::fromLatin1(name));
        connect(a, &QAction::triggered, this, slot);
        return a;
    };
    if (hit.kind == LayoutHit::Header) {
        add(tr("Collapse all"), "collapseAll", [this] { collapseAll(); });
        add(tr("Expand all"), "expandAll", [this] { expandAll(); });
        menu->addSeparator();
        const int hidden = m_layout.items()[size_t(hit.item)].hidden;
        QAction *show = add(hidden > 0 ? tr("Show hidden tracks (%1)").arg(hidden)
                                       : tr("Show hidden tracks"),
                            "showHiddenTracks",
                            [this, section = hit.plane] { showHiddenTracks(section); });
        show->setEnabled(hidden > 0);
        return menu;
    }
    const uint32_t track = hit.track;
    add(tr("Hide track"), "hideTrack", [this, track] { setTrackHidden(track, true); });
    if (trackPinned(track))
        add(tr("Unpin"), "unpinTrack", [this, track] { setTrackPinned(track, false); });
    else
        add(tr("Pin to top"), "pinTrack", [this, track] { setTrackPinned(track, true); });
    return menu;
}

} // namespace tracedesk::views
