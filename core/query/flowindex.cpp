#include "core/query/flowindex.h"

#include <algorithm>
#include <cstdint>
#include <limits>
#include <tuple>

namespace tracedesk::core {

namespace {

bool before(SliceRef a, SliceRef b)
{
    return std::make_tuple(a.track, a.row, a.index) < std::make_tuple(b.track, b.row, b.index);
}

// The flows of `sorted` (sorted by `end` of the flow) whose `end` is `slice`.
template<typename End>
std::span<const uint32_t> range(const std::vector<uint32_t> &sorted, const Trace &trace,
                                SliceRef slice, End end)
{
    const auto lo = std::lower_bound(sorted.begin(), sorted.end(), slice,
                                     [&](uint32_t f, SliceRef s) {
                                         return before(end(trace.flows[f]), s);
                                     });
    auto hi = lo;
    while (hi != sorted.end() && end(trace.flows[*hi]) == slice)
        ++hi;
    return {sorted.data() + (lo - sorted.begin()), size_t(hi - lo)};
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
    m_bySource.resize(count);
    for (size_t i = 0; i < count; ++i)
        m_bySource[i] = uint32_t(i);
    if (isCancelled(cancel))
        return false;
    m_byTarget = m_bySource;
    // Stable: flows of one slice keep their order in the store.
    std::stable_sort(m_bySource.begin(), m_bySource.end(), [&](uint32_t a, uint32_t b) {
        return before(trace.flows[a].from, trace.flows[b].from);
    });
    if (isCancelled(cancel))
        return false;
    std::stable_sort(m_byTarget.begin(), m_byTarget.end(), [&](uint32_t a, uint32_t b) {
        return before(trace.flows[a].to, trace.flows[b].to);
    });
    return !isCancelled(cancel);
}

std::span<const uint32_t> FlowIndex::outgoing(const Trace &trace, SliceRef slice) const
{
    return range(m_bySource, trace, slice, source);
}

std::span<const uint32_t> FlowIndex::incoming(const Trace &trace, SliceRef slice) const
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
    return (m_bySource.capacity() + m_byTarget.capacity()) * sizeof(uint32_t);
}

} // namespace tracedesk::core
