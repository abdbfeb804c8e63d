#pragma once

// Bookmarks: the places the user marked with `m` on one timeline, in the order they were
// added. A bookmark is a time range (a selected slice, area or timing interval) or a point
// (t0 == t1, the cursor's time). Held by the timeline's TimelineState (as its child, so every
// observer of the state finds the same list), cleared with a new trace. GUI thread only.
//
// The timeline draws each visible bookmark as a numbered flag on the ruler with a thin line
// down the tracks: a GeoOverlay of kind Marked whose text starts with kBookmarkFlag.

#include "views/timeline/timelinestate.h"

#include <QObject>

#include <vector>

namespace tracedesk::views {

struct GeoOverlay;

inline const QString kBookmarkFlag = QStringLiteral("\u25C6");   // a diamond

struct Bookmark
{
    TimeRange range;   // t0 == t1 for a point
    bool point() const { return range.t1 <= range.t0; }
};

class Bookmarks : public QObject
{
    Q_OBJECT

public:
    // The list of `state`, created on first use.
    static Bookmarks *of(TimelineState *state);

    const std::vector<Bookmark> &items() const { return m_items; }
    void add(Bookmark b);
    void remove(int index);
    void clear();
    // "3  ·  1.234 ms" / "3  ·  1.234 ms – 1.500 ms", times relative to `origin`.
    QString label(int index, core::TimePs origin) const;

signals:
    void changed();

private:
    explicit Bookmarks(QObject *parent) : QObject(parent) {}
    std::vector<Bookmark> m_items;
};

// True for the overlays that draw a bookmark (see above).
bool isBookmarkOverlay(const GeoOverlay &overlay);

} // namespace tracedesk::views
