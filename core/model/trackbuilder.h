#pragma once

// TrackBuilder: stages one track's events in any order, then sorts them and splits them into
// non-overlapping rows by nesting depth.
//
// Design note (nesting): events are ordered by (start asc, duration desc, arrival). A stack of
// open slices gives each event its natural depth (one below the innermost open slice that has
// not ended). If that row's last slice still overlaps the event — input that overlaps without
// nesting — the event moves down to the first row where it fits, so rows never overlap and no
// event is dropped. Already-sorted input (the common case) skips the sort.
//
// Thread rules: one thread per TrackBuilder; different tracks may be finished in parallel.

#include "core/model/track.h"

#include <array>
#include <limits>
#include <vector>

namespace tracedesk::core {

// The largest time (in ps, either sign) a slice may start or end at, or a counter sample lie at.
// Every reader stages its events through a TrackBuilder, which clamps (and counts) anything
// beyond it, so the difference of any two times of a trace (a span, a gap between hosts, a
// ruler range) fits in TimePs. About +-26 days from the trace origin.
inline constexpr TimePs kTimeLimitPs = std::numeric_limits<TimePs>::max() / 4;

class TrackBuilder
{
public:
    explicit TrackBuilder(Track &track) : m_track(track) {}

    ArgsArena &args() { return m_track.args; }
    Track &track() { return m_track; }

    void reserve(size_t n);
    // Returns the staged index of the slice, for setSide() and flow endpoints.
    // A negative duration is clamped to 0 and counted in badDurations(); a start or end beyond
    // +-kTimeLimitPs is clamped to it and counted in clampedTimes().
    uint32_t addSlice(TimePs start, TimePs duration, uint32_t kind, ArgsRef args = kNoArgs);
    void setSide(uint32_t staged, SideColumn column, int64_t value);
    void addCounterSample(TimePs time, double value);
    void addAggregate(const AggregateEvent &event) { m_track.aggregates.push_back(event); }

    size_t stagedCount() const { return m_start.size(); }
    TimePs stagedStart(uint32_t staged) const { return m_start[staged]; }
    uint32_t stagedKind(uint32_t staged) const { return m_kind[staged]; }
    uint64_t badDurations() const { return m_badDurations; }
    uint64_t clampedTimes() const { return m_clampedTimes; }

    // Builds the rows and frees the staging. When `where` is given it receives, per staged
    // index, the (row, index) the slice ended up at.
    using Placement = RowPosition;
    void finish(std::vector<Placement> *where = nullptr);

private:

    Track &m_track;
    std::vector<TimePs> m_start;
    std::vector<TimePs> m_duration;
    std::vector<uint32_t> m_kind;
    std::vector<ArgsRef> m_args;
    // Staged side values, one column per SideColumn that any slice of this track carries.
    std::array<std::vector<int64_t>, kSideColumnCount> m_side;
    size_t m_reserved = 0;
    uint64_t m_badDurations = 0;
    uint64_t m_clampedTimes = 0;
};

} // namespace tracedesk::core
