#pragma once

// GroupedSliceScan: every slice once, sorted by name (or category; ties in id order), so SQLite
// can aggregate `GROUP BY name` as the rows stream by instead of sorting millions of rows.
//
// Names are ranked in byte order (kinds sharing a name share a rank); one pass over the kind
// columns counts the slices per rank. Then ranks are processed in batches of at most one
// buffer's worth of slices: a pass over the kind columns collects a batch's slice positions,
// bucketed by rank (counting sort). A rank larger than a buffer is its own batch, and its
// positions fill as many buffers as it needs, in id order.
//
// The batches are made on a second thread while SQLite consumes the previous buffer: the
// passes over the kind columns then cost the query nothing but the other core. There are two
// buffers of at least an eighth of the slices each (8 bytes per position: 2 bytes per slice in
// all), so the producer makes at most about eight passes whatever the trace size; `bufferLimit`
// is the buffers' floor for small traces. A pass tests each slice's kind against a table of
// the kinds' batches. A scan whose slices fit one buffer is sorted at once, without a thread.
//
// A scan may serve one part of the groups (a statement split over cores, groupsplit.h): the
// ranks are cut into consecutive parts of about equal slice counts, and the buffers are sized
// so that each part makes about four passes.
//
// Internal to core/sql; next() is called from one thread; reads the trace in place. The
// destructor stops the producer, so a query may drop the scan part-way (LIMIT, interrupt).

#include "core/sql/groupranks.h"
#include "core/sql/sliceids.h"

#include <condition_variable>
#include <cstdint>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

namespace tracedesk::core::sql {

// Part `index` of `count` consecutive parts of the groups in scan order, of about equal slice
// counts (every part computes the same cuts, so parts are disjoint and together every group).
struct GroupPart
{
    uint32_t index = 0;
    uint32_t count = 1;
};

class GroupedSliceScan
{
public:
    GroupedSliceScan(const Trace &trace, const SliceIds &ids, GroupKey key, bool descending,
                     GroupPart part = {}, size_t bufferLimit = size_t(1) << 19);
    ~GroupedSliceScan();
    GroupedSliceScan(const GroupedSliceScan &) = delete;
    GroupedSliceScan &operator=(const GroupedSliceScan &) = delete;

    // The next slice as (row span index in SliceIds::rows(), index in the row).
    bool next(uint32_t *span, uint32_t *index)
    {
        if (m_pos == m_size && !takeNextBuffer())
            return false;
        *span = m_current[m_pos].span;
        *index = m_current[m_pos].index;
        ++m_pos;
        return true;
    }

private:
    struct Position
    {
        uint32_t span;
        uint32_t index;
    };
    struct Buffer
    {
        // Filled anew for every batch: left uninitialised rather than zeroed first.
        std::unique_ptr<Position[]> data;
        size_t size = 0;
    };

    bool takeNextBuffer();
    // Producer side: every batch into the buffers, in order; false when the consumer left.
    bool produce();
    Buffer *acquireFree();
    void publish(Buffer *buffer);
    bool sortBatch(uint16_t batch, uint64_t total);
    bool streamRank(uint16_t batch);

    const Trace &m_trace;
    const SliceIds &m_ids;
    size_t m_capacity;
    std::vector<uint32_t> m_rankOfKind;
    // Each kind's batch (kNoBatch outside this part): a pass tests one small table per slice.
    std::vector<uint16_t> m_batchOfKind;
    std::vector<uint64_t> m_countOfRank;
    std::vector<std::pair<uint32_t, uint32_t>> m_batches; // rank ranges [lo, hi)

    Buffer m_buffers[2];
    // Consumer state: the buffer being read (owned by the consumer until it asks for the next).
    Buffer *m_reading = nullptr;
    const Position *m_current = nullptr;
    size_t m_pos = 0;
    size_t m_size = 0;

    std::mutex m_mutex;
    std::condition_variable m_changed;
    std::vector<Buffer *> m_free;  // guarded by m_mutex
    std::vector<Buffer *> m_ready; // guarded; at most two, oldest first
    bool m_produced = false;       // guarded: every batch published
    bool m_stop = false;           // guarded: the consumer is gone
    std::thread m_producer;
};

} // namespace tracedesk::core::sql
