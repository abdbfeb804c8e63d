#pragma once

// GroupedSliceScan: every slice once, sorted by name (or category; ties in id order), so SQLite
// can aggregate `GROUP BY name` as the rows stream by instead of sorting millions of rows.
//
// Names are ranked in byte order (kinds sharing a name share a rank); one pass over the kind
// columns counts the slices per rank. Then ranks are processed in batches of at most `bufferLimit`
// slices: a pass over the kind columns collects a batch's slice positions, bucketed by rank
// (counting sort). A rank larger than the buffer is its own batch and is streamed straight from the
// rows. The buffer holds at least a quarter of the slices (8 bytes per position, 2 bytes per slice
// in all), so a scan makes at most about four passes over the kind columns whatever the trace size;
// `bufferLimit` is its floor for small traces.
//
// Internal to core/sql; single-threaded; reads the trace in place.

#include "core/sql/sliceids.h"

#include <cstdint>
#include <memory>
#include <vector>

namespace tracedesk::core::sql {

enum class GroupKey : uint8_t { Name, Category };

class GroupedSliceScan
{
public:
    GroupedSliceScan(const Trace &trace, const SliceIds &ids, GroupKey key, bool descending,
                     size_t bufferLimit = size_t(1) << 19);

    // The next slice as (row span index in SliceIds::rows(), index in the row).
    bool next(uint32_t *span, uint32_t *index);

private:
    struct Position
    {
        uint32_t span;
        uint32_t index;
    };
    bool startNextBatch();
    bool nextStreamed(uint32_t *span, uint32_t *index);

    const Trace &m_trace;
    const SliceIds &m_ids;
    size_t m_bufferLimit;
    std::vector<uint32_t> m_rankOfKind;
    std::vector<uint64_t> m_countOfRank;
    std::vector<std::pair<uint32_t, uint32_t>> m_batches; // rank ranges [lo, hi)
    size_t m_nextBatch = 0;
    // Filled anew for every batch: left uninitialised rather than zeroed first.
    std::unique_ptr<Position[]> m_buffer;
    size_t m_bufferSize = 0;
    size_t m_bufferPos = 0;
    // Streaming one large rank.
    bool m_streaming = false;
    uint32_t m_streamRank = 0;
    uint32_t m_streamSpan = 0;
    uint32_t m_streamIndex = 0;
};

} // namespace tracedesk::core::sql
