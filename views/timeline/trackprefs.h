#pragma once

// TrackPrefs: keeps a trace's TrackState (hidden, pinned, collapsed) in QSettings between runs,
// one group per set of source files. Planes and tracks are stored by name, with an occurrence
// number for duplicates, rather than by index, so a stored state never points at the wrong
// track; names that no longer exist are dropped on load. A trace without sources (built in
// memory) has no key and is never stored. GUI thread only, like QSettings users elsewhere.

#include "views/timeline/timelinelayout.h"

#include <QString>
#include <QStringList>

namespace tracedesk::views {

class TrackPrefs
{
public:
    TrackPrefs() = default;
    explicit TrackPrefs(const core::Trace &trace);

    // The settings group of this trace, or empty when it has no sources.
    const QString &group() const { return m_group; }
    TrackState load() const;
    void save(const TrackState &state) const;

private:
    QString m_group;
    QStringList m_planeKeys;
    QStringList m_trackKeys;
};

} // namespace tracedesk::views
