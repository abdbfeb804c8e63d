#include "core/query/flowindex.h"

#include <algorithm>
#include <cstdint>
#include <limits>
#include <optional>
#include <tuple>

namespace tracedesk::core {

namespace {

bool before(SliceRef a, SliceRef b)
{
    return std::make_tuple(a.track, a.row, a.index) < std::make_tuple(b.track, b.row, b.index);
}

// The flows of `sorted` (sorted by `end` of the flow) whose `end` is `slice`.
template<typename End>
std::vector<uint32_t> range(const PackedIndices &sorted, const Trace &trace, SliceRef slice,
                            End end)
{
    size_t lo = 0, hi = sorted.size();
    while (lo < hi) {
        const size_t mid = lo + (hi - lo) / 2;
        if (before(end(trace.flows[sorted[mid]]), slice))
            lo = mid + 1;
        else
            hi = mid;
    }
    std::vector<uint32_t> out;
    for (size_t i = lo; i < sorted.size() && end(trace.flows[sorted[i]]) == slice; ++i)
        out.push_back(sorted[i]);
    return out;
}

SliceRef source(const Flow &f) { return f.from; }
SliceRef target(const Flow &f) { return f.to; }

} // namespace

FlowIndex::FlowIndex(const Trace &trace)
{
    fill(trace, nullptr);
}

std::shared_ptr<const FlowIndex> FlowIndex::build(const Trace &trace, CancelToken cancel)
{
    auto index = std::make_shared<FlowIndex>();
    if (!index->fill(trace, cancel))
        return nullptr;
    return index;
}

bool FlowIndex::fill(const Trace &trace, CancelToken cancel)
{
    const size_t count = std::min<size_t>(trace.flows.size(),
                                          std::numeric_limits<uint32_t>::max());
    // One order at a time, packed before the next is sorted: the wide array lives once.
    auto sortedBy = [&](auto end) -> std::optional<PackedIndices> {
        std::vector<uint32_t> order(count);
        for (size_t i = 0; i < count; ++i)
            order[i] = uint32_t(i);
        if (isCancelled(cancel))
            return std::nullopt;
        // Stable: flows of one slice keep their order in the store.
        std::stable_sort(order.begin(), order.end(), [&](uint32_t a, uint32_t b) {
            return before(end(trace.flows[a]), end(trace.flows[b]));
        });
        if (isCancelled(cancel))
            return std::nullopt;
        return PackedIndices(order, count);
    };
    auto bySource = sortedBy(source);
    if (!bySource)
        return false;
    m_bySource = std::move(*bySource);
    auto byTarget = sortedBy(target);
    if (!byTarget)
        return false;
    m_byTarget = std::move(*byTarget);
    return true;
}

std::vector<uint32_t> FlowIndex::outgoing(const Trace &trace, SliceRef slice) const
{
    return range(m_bySource, trace, slice, source);
}

std::vector<uint32_t> FlowIndex::incoming(const Trace &trace, SliceRef slice) const
{
    return range(m_byTarget, trace, slice, target);
}

std::vector<Flow> FlowIndex::flowsOf(const Trace &trace, SliceRef slice) const
{
    std::vector<Flow> out;
    for (uint32_t f : outgoing(trace, slice))
        out.push_back(trace.flows[f]);
    for (uint32_t f : incoming(trace, slice)) {
        if (!(trace.flows[f].from == slice))
            out.push_back(trace.flows[f]);
    }
    return out;
}

size_t FlowIndex::memoryBytes() const
{
    return m_bySource.memoryBytes() + m_byTarget.memoryBytes();
}

} // namespace tracedesk::core
