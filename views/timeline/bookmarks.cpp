#include "views/timeline/bookmarks.h"

#include "views/common/qtconvert.h"
#include "views/timeline/timelinegeometry.h"

namespace tracedesk::views {

Bookmarks *Bookmarks::of(TimelineState *state)
{
    if (auto *existing = state->findChild<Bookmarks *>(QString(), Qt::FindDirectChildrenOnly))
        return existing;
    return new Bookmarks(state);
}

void Bookmarks::add(Bookmark b)
{
    m_items.push_back(b);
    emit changed();
}

void Bookmarks::remove(int index)
{
    if (index < 0 || index >= int(m_items.size()))
        return;
    m_items.erase(m_items.begin() + index);
    emit changed();
}

void Bookmarks::clear()
{
    if (m_items.empty())
        return;
    m_items.clear();
    emit changed();
}

QString Bookmarks::label(int index, core::TimePs origin) const
{
    const Bookmark &b = m_items[size_t(index)];
    const QString at = durationText(b.range.t0 - origin);
    if (b.point())
        return QStringLiteral("%1  ·  %2").arg(index + 1).arg(at);
    return QStringLiteral("%1  ·  %2 (%3)").arg(index + 1).arg(at, durationText(b.range.duration()));
}

bool isBookmarkOverlay(const GeoOverlay &overlay)
{
    return overlay.kind == GeoOverlay::Marked && overlay.text.startsWith(kBookmarkFlag);
}

} // namespace tracedesk::views
