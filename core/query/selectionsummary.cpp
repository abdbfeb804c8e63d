#include "core/query/selectionsummary.h"

#include "core/query/viewportquery.h"

#include <algorithm>
#include <limits>
#include <unordered_map>

namespace tracedesk::core {

namespace {

TimePs selfTimeIn(const Track &track, uint32_t row, size_t index)
{
    const Row &r = track.rows[row];
    const TimePs s = r.start[index];
    const TimePs e = r.end(index);
    if (row + 1 >= track.rows.size() || e <= s)
        return e - s;
    const Row &next = track.rows[row + 1];
    const auto [first, last] = overlappingRange(next, s, e);
    TimePs covered = 0;
    for (size_t k = first; k < last; ++k)
        covered += std::min(next.end(k), e) - std::max(next.start[k], s);
    return std::max<TimePs>(0, (e - s) - covered);
}

// Accumulates per kind id (a flat vector, cheap per slice), then folds kinds into names.
class Accumulator
{
public:
    explicit Accumulator(const Trace &trace) : m_trace(trace), m_byKind(trace.kinds.size()) {}

    void add(const Track &track, uint32_t row, size_t index,
             TimePs t0 = std::numeric_limits<TimePs>::min(),
             TimePs t1 = std::numeric_limits<TimePs>::max())
    {
        const Row &r = track.rows[row];
        const uint32_t kind = r.kind[index];
        if (kind >= m_byKind.size())
            return;
        const TimePs duration = r.duration[index];
        NameSummary &s = m_byKind[kind];
        s.minDuration = s.occurrences ? std::min(s.minDuration, duration) : duration;
        s.maxDuration = s.occurrences ? std::max(s.maxDuration, duration) : duration;
        ++s.occurrences;
        s.wallTotal += duration;
        s.inWindowTotal += std::max<TimePs>(
            0, std::min(r.end(index), t1) - std::max(r.start[index], t0));
        s.selfTotal += selfTimeIn(track, row, index);
    }

    std::vector<NameSummary> finish() const
    {
        std::vector<NameSummary> lines;
        std::unordered_map<StringId, size_t> byName;
        for (size_t k = 0; k < m_byKind.size(); ++k) {
            const NameSummary &s = m_byKind[k];
            if (s.occurrences == 0)
                continue;
            const StringId name = m_trace.kinds[k].name;
            auto [it, inserted] = byName.try_emplace(name, lines.size());
            if (inserted) {
                lines.push_back(s);
                lines.back().name = name;
                continue;
            }
            NameSummary &line = lines[it->second];
            line.minDuration = std::min(line.minDuration, s.minDuration);
            line.maxDuration = std::max(line.maxDuration, s.maxDuration);
            line.occurrences += s.occurrences;
            line.wallTotal += s.wallTotal;
            line.inWindowTotal += s.inWindowTotal;
            line.selfTotal += s.selfTotal;
        }
        std::sort(lines.begin(), lines.end(), [](const NameSummary &a, const NameSummary &b) {
            return a.wallTotal != b.wallTotal ? a.wallTotal > b.wallTotal : a.name < b.name;
        });
        return lines;
    }

private:
    const Trace &m_trace;
    std::vector<NameSummary> m_byKind;
};

// Slices summed between two looks at the cancel token.
constexpr size_t kCancelStride = 4096;

} // namespace

std::vector<NameSummary> summarizeArea(const Trace &trace, const AreaSelection &area,
                                      CancelToken cancel)
{
    Accumulator acc(trace);
    std::vector<uint32_t> tracks = area.tracks;
    std::sort(tracks.begin(), tracks.end());
    tracks.erase(std::unique(tracks.begin(), tracks.end()), tracks.end());
    for (uint32_t t : tracks) {
        if (t >= trace.tracks.size())
            continue;
        const Track &track = trace.tracks[t];
        for (uint32_t r = 0; r < track.rows.size(); ++r) {
            const auto [first, last] = overlappingRange(track.rows[r], area.t0, area.t1);
            for (size_t i = first; i < last; ++i) {
                if ((i - first) % kCancelStride == 0 && isCancelled(cancel))
                    return {};
                acc.add(track, r, i, area.t0, area.t1);
            }
        }
    }
    return acc.finish();
}

std::vector<NameSummary> summarizeSlices(const Trace &trace, std::span<const SliceRef> slices,
                                        CancelToken cancel)
{
    Accumulator acc(trace);
    for (size_t k = 0; k < slices.size(); ++k) {
        if (k % kCancelStride == 0 && isCancelled(cancel))
            return {};
        const SliceRef &s = slices[k];
        if (trace.valid(s))
            acc.add(trace.tracks[s.track], s.row, s.index);
    }
    return acc.finish();
}

TimePs selfTime(const Trace &trace, SliceRef slice)
{
    if (!trace.valid(slice))
        return 0;
    return selfTimeIn(trace.tracks[slice.track], slice.row, slice.index);
}

std::optional<SliceRef> neighbourSlice(const Trace &trace, SliceRef slice, Direction direction)
{
    if (!trace.valid(slice))
        return std::nullopt;
    if (direction == Direction::Previous) {
        if (slice.index == 0)
            return std::nullopt;
        return SliceRef{slice.track, slice.row, slice.index - 1};
    }
    if (slice.index + 1 >= trace.row(slice).size())
        return std::nullopt;
    return SliceRef{slice.track, slice.row, slice.index + 1};
}

} // namespace tracedesk::core
