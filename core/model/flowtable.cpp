#include "core/model/flowtable.h"

#include "core/base/parallel.h"

#include <algorithm>
#include <array>
#include <limits>

namespace tracedesk::core {

void FlowTable::assign(const std::vector<Flow> &flows)
{
    assign(std::span<const std::vector<Flow>>(&flows, 1));
}

namespace {

// A flow's value in each column, in Column order.
std::array<int64_t, FlowTable::Count> columnsOf(const Flow &f)
{
    return {int64_t(f.from.track), int64_t(f.from.row), int64_t(f.from.index),
            int64_t(f.to.track),   int64_t(f.to.row),   int64_t(f.to.index),
            int64_t(f.id),         int64_t(f.category)};
}

} // namespace

void FlowTable::assign(std::span<const std::vector<Flow>> parts)
{
    // The flows as chunks of one part each, numbered in order: workers take whole chunks.
    struct Chunk
    {
        const Flow *flows;
        size_t count;
        size_t first; // the chunk's first flow in the table
    };
    constexpr size_t kChunk = size_t(1) << 16;
    std::vector<Chunk> chunks;
    size_t total = 0;
    for (const auto &part : parts) {
        for (size_t at = 0; at < part.size(); at += kChunk) {
            chunks.push_back({part.data() + at, std::min(kChunk, part.size() - at), total});
            total += chunks.back().count;
        }
    }
    const unsigned threads = chunks.size() < 2 ? 1 : 0;
    // Two passes over the flows, each column of a flow at once: every column's range, then
    // the values (one pass per column would read the flows sixteen times).
    using Values = std::array<int64_t, Count>;
    std::vector<std::pair<Values, Values>> ranges(chunks.size());
    parallelFor(chunks.size(), threads, [&](unsigned, size_t c) {
        Values lo, hi;
        lo.fill(std::numeric_limits<int64_t>::max());
        hi.fill(std::numeric_limits<int64_t>::min());
        for (size_t k = 0; k < chunks[c].count; ++k) {
            const Values v = columnsOf(chunks[c].flows[k]);
            for (size_t col = 0; col < Count; ++col) {
                if (v[col] == kNoValue)
                    continue;
                lo[col] = std::min(lo[col], v[col]);
                hi[col] = std::max(hi[col], v[col]);
            }
        }
        ranges[c] = {lo, hi};
        return true;
    });
    for (size_t col = 0; col < Count; ++col) {
        int64_t lo = std::numeric_limits<int64_t>::max();
        int64_t hi = std::numeric_limits<int64_t>::min();
        for (const auto &[chunkLo, chunkHi] : ranges) {
            lo = std::min(lo, chunkLo[col]);
            hi = std::max(hi, chunkHi[col]);
        }
        if (total == 0)
            m_columns[col].clear();
        else
            m_columns[col].prepare(total, lo, hi);
    }
    parallelFor(chunks.size(), threads, [&](unsigned, size_t c) {
        for (size_t k = 0; k < chunks[c].count; ++k) {
            const Values v = columnsOf(chunks[c].flows[k]);
            for (size_t col = 0; col < Count; ++col)
                m_columns[col].put(chunks[c].first + k, v[col]);
        }
        return true;
    });
}

std::vector<Flow> FlowTable::toVector() const
{
    std::vector<Flow> out;
    out.reserve(size());
    for (const Flow f : *this)
        out.push_back(f);
    return out;
}

std::vector<Flow> FlowTable::touching(SliceRef slice) const
{
    std::vector<size_t> candidates;
    for (Column c : {FromTrack, ToTrack}) {
        m_columns[size_t(c)].visit([&](auto tracks) {
            for (size_t i = 0, n = size(); i < n; ++i) {
                if (tracks[i] == int64_t(slice.track))
                    candidates.push_back(i);
            }
        });
    }
    std::sort(candidates.begin(), candidates.end());
    candidates.erase(std::unique(candidates.begin(), candidates.end()), candidates.end());
    std::vector<Flow> out;
    for (size_t i : candidates) {
        const Flow f = (*this)[i];
        if (f.from == slice || f.to == slice)
            out.push_back(f);
    }
    return out;
}

size_t FlowTable::memoryBytes() const
{
    size_t bytes = 0;
    for (const PackedInts &c : m_columns)
        bytes += c.memoryBytes();
    return bytes;
}

} // namespace tracedesk::core
