#include "core/model/flowtable.h"

#include "core/base/parallel.h"

#include <algorithm>
#include <array>
#include <limits>

namespace tracedesk::core {

namespace {

using Values = std::array<int64_t, FlowTable::Count>;

// A flow's value in each column, in Column order.
Values columnsOf(const Flow &f)
{
    return {int64_t(f.from.track), int64_t(f.from.row), int64_t(f.from.index),
            int64_t(f.to.track),   int64_t(f.to.row),   int64_t(f.to.index),
            int64_t(f.id),         int64_t(f.category)};
}

void widen(const Values &v, Values &lo, Values &hi)
{
    for (size_t col = 0; col < FlowTable::Count; ++col) {
        if (v[col] == kNoValue)
            continue;
        lo[col] = std::min(lo[col], v[col]);
        hi[col] = std::max(hi[col], v[col]);
    }
}

// Flows per chunk handed to a worker.
constexpr size_t kChunk = size_t(1) << 16;

// A run of at most kChunk flows of one part: workers take whole chunks.
struct Chunk
{
    size_t part;
    size_t at;    // the chunk's first flow in its part
    size_t count;
    size_t first; // and in the table
};

// The flows of `parts` (anything with size()) as chunks, numbered in table order.
template<typename Part>
std::vector<Chunk> chunksOf(std::span<const Part> parts, size_t *total)
{
    std::vector<Chunk> chunks;
    *total = 0;
    for (size_t p = 0; p < parts.size(); ++p) {
        for (size_t at = 0; at < parts[p].size(); at += kChunk) {
            chunks.push_back({p, at, std::min(kChunk, parts[p].size() - at), *total});
            *total += chunks.back().count;
        }
    }
    return chunks;
}

// parallelFor's thread count for `chunks`: the caller's, else one thread for a single chunk.
unsigned threadsFor(const std::vector<Chunk> &chunks, unsigned threads)
{
    return threads != 0 ? threads : chunks.size() < 2 ? 1 : 0;
}

} // namespace

void FlowTable::put(size_t i, const std::array<int64_t, Count> &values)
{
    for (size_t col = 0; col < Count; ++col)
        m_columns[col].put(i, values[col]);
}

void FlowTable::assign(const std::vector<Flow> &flows, unsigned threads)
{
    assign(std::span<const std::vector<Flow>>(&flows, 1), threads);
}

template<typename Range, typename Store>
void FlowTable::pack(size_t chunks, size_t total, unsigned threads, Range &&range, Store &&store)
{
    // Two passes over the flows, each column of a flow at once: every column's range, then
    // the values (one pass per column would read the flows sixteen times).
    std::vector<std::pair<Values, Values>> ranges(chunks);
    parallelFor(chunks, threads, [&](unsigned, size_t c) {
        Values lo, hi;
        lo.fill(std::numeric_limits<int64_t>::max());
        hi.fill(std::numeric_limits<int64_t>::min());
        range(c, lo, hi);
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
    parallelFor(chunks, threads, [&](unsigned, size_t c) {
        store(c);
        return true;
    });
}

void FlowTable::assign(std::span<const std::vector<Flow>> parts, unsigned threads)
{
    size_t total = 0;
    const std::vector<Chunk> chunks = chunksOf(parts, &total);
    auto flowOf = [&](const Chunk &chunk, size_t k) -> const Flow & {
        return parts[chunk.part][chunk.at + k];
    };
    pack(chunks.size(), total, threadsFor(chunks, threads),
         [&](size_t c, Values &lo, Values &hi) {
             for (size_t k = 0; k < chunks[c].count; ++k)
                 widen(columnsOf(flowOf(chunks[c], k)), lo, hi);
         },
         [&](size_t c) {
             for (size_t k = 0; k < chunks[c].count; ++k)
                 put(chunks[c].first + k, columnsOf(flowOf(chunks[c], k)));
         });
}

void FlowTable::assign(std::span<const FlowTable> parts)
{
    size_t total = 0;
    const std::vector<Chunk> chunks = chunksOf(parts, &total);
    // Column by column: each part's column is read through its own width's view.
    pack(chunks.size(), total, threadsFor(chunks, 0),
         [&](size_t c, Values &lo, Values &hi) {
             const Chunk &chunk = chunks[c];
             for (size_t col = 0; col < Count; ++col) {
                 parts[chunk.part].m_columns[col].visit([&](auto values) {
                     for (size_t k = chunk.at; k < chunk.at + chunk.count; ++k) {
                         const int64_t v = values.valueAt(k);
                         if (v == kNoValue)
                             continue;
                         lo[col] = std::min(lo[col], v);
                         hi[col] = std::max(hi[col], v);
                     }
                 });
             }
         },
         [&](size_t c) {
             const Chunk &chunk = chunks[c];
             for (size_t col = 0; col < Count; ++col)
                 m_columns[col].putFrom(chunk.first, parts[chunk.part].m_columns[col], chunk.at,
                                        chunk.count);
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
