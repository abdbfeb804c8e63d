#include "core/model/track.h"

#include <algorithm>

namespace tracedesk::core {

size_t Row::memoryBytes() const
{
    size_t bytes = start.capacity() * sizeof(TimePs) + duration.memoryBytes() + kind.memoryBytes()
                   + args.capacity() * sizeof(ArgsRef);
    for (const auto &column : side)
        bytes += column.memoryBytes();
    return bytes;
}

size_t Track::memoryBytes() const
{
    size_t bytes = sizeof(Track) + args.size() + aggregates.capacity() * sizeof(AggregateEvent)
                   + counter.time.capacity() * sizeof(TimePs)
                   + counter.value.capacity() * sizeof(double);
    for (const Row &row : rows)
        bytes += sizeof(Row) + row.memoryBytes();
    return bytes;
}

std::optional<RowPosition> Track::deepestSliceAt(TimePs t) const
{
    std::optional<RowPosition> best;
    for (uint32_t r = 0; r < rows.size(); ++r) {
        const Row &row = rows[r];
        // Rows do not overlap, so only the last slice starting at or before t can contain it.
        auto it = std::upper_bound(row.start.begin(), row.start.end(), t);
        if (it == row.start.begin())
            continue;
        const auto i = uint32_t(it - row.start.begin() - 1);
        if (t < row.end(i) || (row.duration[i] == 0 && row.start[i] == t))
            best = RowPosition{r, i};
    }
    return best;
}

std::optional<RowPosition> Track::firstSliceFrom(TimePs t) const
{
    std::optional<RowPosition> best;
    TimePs bestStart = 0;
    for (uint32_t r = 0; r < rows.size(); ++r) {
        const Row &row = rows[r];
        auto it = std::lower_bound(row.start.begin(), row.start.end(), t);
        if (it != row.start.end() && (!best || *it < bestStart)) {
            best = RowPosition{r, uint32_t(it - row.start.begin())};
            bestStart = *it;
        }
    }
    return best;
}

} // namespace tracedesk::core
