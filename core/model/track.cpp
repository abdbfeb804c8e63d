#include "core/model/track.h"

namespace tracedesk::core {

size_t Row::memoryBytes() const
{
    size_t bytes = start.capacity() * sizeof(TimePs) + duration.capacity() * sizeof(TimePs)
                   + kind.capacity() * sizeof(uint32_t) + args.capacity() * sizeof(ArgsRef);
    for (const auto &column : side)
        bytes += column.capacity() * sizeof(int64_t);
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

} // namespace tracedesk::core
