#include "core/model/trace.h"

#include <algorithm>

namespace tracedesk::core {

void LoadInfo::warn(std::string message)
{
    ++warningCount;
    if (warnings.size() < 100)
        warnings.push_back(std::move(message));
}

uint64_t Trace::sliceCount() const
{
    uint64_t n = 0;
    for (const Track &t : tracks)
        n += t.sliceCount;
    return n;
}

uint64_t Trace::counterSampleCount() const
{
    uint64_t n = 0;
    for (const Track &t : tracks)
        n += t.counter.size();
    return n;
}

uint64_t Trace::aggregateCount() const
{
    uint64_t n = 0;
    for (const Track &t : tracks)
        n += t.aggregates.size();
    return n;
}

uint64_t Trace::eventCount() const
{
    return sliceCount() + counterSampleCount() + aggregateCount();
}

size_t Trace::memoryBytes() const
{
    size_t bytes = sizeof(Trace) + strings.memoryBytes() + metaArgs.size()
                   + kinds.capacity() * sizeof(EventKind) + flows.memoryBytes()
                   + planes.capacity() * sizeof(Plane);
    for (const Track &t : tracks)
        bytes += t.memoryBytes();
    return bytes;
}

bool Trace::valid(SliceRef s) const
{
    return s.track < tracks.size() && s.row < tracks[s.track].rows.size()
           && s.index < tracks[s.track].rows[s.row].size();
}

int64_t Trace::side(SliceRef s, SideColumn column) const
{
    const Row &r = row(s);
    const auto &own = r.side[size_t(column)];
    if (!own.empty() && own[s.index] != kNoValue)
        return own[s.index];
    return kinds[r.kind[s.index]].sideOf(column);
}

std::optional<SliceRef> Trace::sliceAt(uint32_t track, TimePs t) const
{
    if (track >= tracks.size())
        return std::nullopt;
    const auto at = tracks[track].deepestSliceAt(t);
    return at ? std::optional(SliceRef{track, at->row, at->index}) : std::nullopt;
}

std::optional<SliceRef> Trace::sliceStartingFrom(uint32_t track, TimePs t) const
{
    if (track >= tracks.size())
        return std::nullopt;
    const auto at = tracks[track].firstSliceFrom(t);
    return at ? std::optional(SliceRef{track, at->row, at->index}) : std::nullopt;
}

} // namespace tracedesk::core
