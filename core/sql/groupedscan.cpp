#include "core/sql/groupedscan.h"

#include <algorithm>

namespace tracedesk::core::sql {

namespace {
constexpr uint64_t kMaxPasses = 8;
constexpr uint16_t kNoBatch = UINT16_MAX;
} // namespace

GroupedSliceScan::GroupedSliceScan(const Trace &trace, const SliceIds &ids, GroupKey key,
                                   bool descending, GroupPart part, size_t bufferLimit)
    : m_trace(trace)
    , m_ids(ids)
    , m_capacity(std::max<size_t>(1, bufferLimit))
{
    // Ranks in order are the groups in SQLite's output order: it relies on that when ORDER BY
    // repeats the GROUP BY terms.
    GroupRanks ranks = rankGroups(trace, key, descending);
    m_rankOfKind = std::move(ranks.ofKind);
    const size_t rankCount = ranks.text.size();
    m_countOfRank.assign(rankCount, 0);
    uint64_t slices = 0;
    for (const auto &span : ids.rows()) {
        const auto &kinds = trace.tracks[span.track].rows[span.row].kind;
        slices += kinds.size();
        for (uint32_t k : kinds)
            ++m_countOfRank[m_rankOfKind[k]];
    }
    // This part's ranks: [first rank whose slices before reach index/count of all, the next
    // part's first).
    const uint32_t parts = std::max<uint32_t>(1, part.count);
    const uint32_t index = std::min(part.index, parts - 1);
    auto cut = [&](uint32_t k) {
        if (k >= parts)
            return uint32_t(m_countOfRank.size());
        const auto target = static_cast<unsigned __int128>(slices) * k;
        uint64_t before = 0;
        uint32_t r = 0;
        while (r < m_countOfRank.size() && static_cast<unsigned __int128>(before) * parts < target)
            before += m_countOfRank[r++];
        return r;
    };
    const uint32_t firstRank = cut(index), endRank = cut(index + 1);
    uint64_t partSlices = 0;
    for (uint32_t r = firstRank; r < endRank; ++r)
        partSlices += m_countOfRank[r];
    // Each batch is one pass over every kind column: a few large batches beat many small ones.
    // A buffer holds an eighth of the slices, or of twice a part's share when split: each part
    // then makes about four passes, on its own core, and the parts' buffers together take
    // 4 bytes per slice (2 unsplit).
    // (Capped, so that a scan never has more batches than a kind's batch number can count.)
    const uint64_t passesOverAll = kMaxPasses * std::clamp<uint64_t>(parts / 2, 1, 1024);
    m_capacity =
        std::max<size_t>(m_capacity, size_t((slices + passesOverAll - 1) / passesOverAll));
    m_capacity = std::min<size_t>(m_capacity, std::max<uint64_t>(partSlices, 1));
    // Consecutive ranks up to a buffer; a larger rank alone.
    uint32_t lo = firstRank;
    uint64_t inBatch = 0;
    for (uint32_t r = firstRank; r < endRank; ++r) {
        const uint64_t n = m_countOfRank[r];
        if (inBatch > 0 && inBatch + n > m_capacity) {
            m_batches.emplace_back(lo, r);
            lo = r;
            inBatch = 0;
        }
        inBatch += n;
    }
    if (lo < endRank)
        m_batches.emplace_back(lo, endRank);
    // Two consecutive batches hold more than a buffer, and a buffer is at least an eighth of
    // the part: a few dozen batches at most.
    m_batchOfKind.assign(trace.kinds.size(), kNoBatch);
    for (size_t k = 0; k < m_rankOfKind.size(); ++k) {
        const uint32_t r = m_rankOfKind[k];
        const auto in = std::upper_bound(m_batches.begin(), m_batches.end(), r,
                                         [](uint32_t v, const auto &b) { return v < b.second; });
        if (in != m_batches.end() && r >= in->first)
            m_batchOfKind[k] = uint16_t(in - m_batches.begin());
    }
    if (partSlices == 0)
        return;

    m_free = {&m_buffers[0]};
    m_buffers[0].data.reset(new Position[m_capacity]);
    if (partSlices <= m_capacity) {
        produce(); // one batch, one buffer: no thread to wait for
        return;
    }
    m_buffers[1].data.reset(new Position[m_capacity]);
    m_free.push_back(&m_buffers[1]);
    m_producer = std::thread([this] {
        produce();
        std::lock_guard lock(m_mutex);
        m_produced = true;
        m_changed.notify_all();
    });
}

GroupedSliceScan::~GroupedSliceScan()
{
    if (!m_producer.joinable())
        return;
    {
        std::lock_guard lock(m_mutex);
        m_stop = true;
    }
    m_changed.notify_all();
    m_producer.join();
}

bool GroupedSliceScan::takeNextBuffer()
{
    std::unique_lock lock(m_mutex);
    if (m_reading) {
        m_free.push_back(std::exchange(m_reading, nullptr));
        m_changed.notify_all();
    }
    // Without a producer thread everything was published before the first call.
    m_changed.wait(lock, [&] {
        return !m_ready.empty() || m_produced || !m_producer.joinable();
    });
    if (m_ready.empty())
        return false;
    m_reading = m_ready.front();
    m_ready.erase(m_ready.begin());
    m_current = m_reading->data.get();
    m_pos = 0;
    m_size = m_reading->size;
    return m_size > 0;
}

GroupedSliceScan::Buffer *GroupedSliceScan::acquireFree()
{
    std::unique_lock lock(m_mutex);
    m_changed.wait(lock, [&] { return m_stop || !m_free.empty(); });
    if (m_stop)
        return nullptr;
    Buffer *buffer = m_free.back();
    m_free.pop_back();
    return buffer;
}

void GroupedSliceScan::publish(Buffer *buffer)
{
    std::lock_guard lock(m_mutex);
    m_ready.push_back(buffer);
    m_changed.notify_all();
}

bool GroupedSliceScan::produce()
{
    for (uint16_t b = 0; b < m_batches.size(); ++b) {
        const auto [lo, hi] = m_batches[b];
        uint64_t total = 0;
        for (uint32_t r = lo; r < hi; ++r)
            total += m_countOfRank[r];
        if (total == 0)
            continue;
        const bool ok = total > m_capacity ? streamRank(b) : sortBatch(b, total);
        if (!ok)
            return false;
    }
    return true;
}

// Counting sort of the batch's slices by rank into one buffer.
bool GroupedSliceScan::sortBatch(uint16_t batch, uint64_t total)
{
    Buffer *buffer = acquireFree();
    if (!buffer)
        return false;
    const auto [lo, hi] = m_batches[batch];
    std::vector<uint64_t> offset(hi - lo + 1, 0);
    for (uint32_t r = lo; r < hi; ++r)
        offset[r - lo + 1] = offset[r - lo] + m_countOfRank[r];
    Position *out = buffer->data.get();
    const auto &spans = m_ids.rows();
    for (uint32_t s = 0; s < spans.size(); ++s) {
        const auto &kinds = m_trace.tracks[spans[s].track].rows[spans[s].row].kind;
        for (uint32_t i = 0; i < kinds.size(); ++i) {
            if (m_batchOfKind[kinds[i]] == batch)
                out[offset[m_rankOfKind[kinds[i]] - lo]++] = {s, i};
        }
    }
    buffer->size = size_t(total);
    publish(buffer);
    return true;
}

// A batch of one rank larger than a buffer: its positions in id order, a buffer at a time.
bool GroupedSliceScan::streamRank(uint16_t batch)
{
    Buffer *buffer = nullptr;
    size_t filled = 0;
    const auto &spans = m_ids.rows();
    for (uint32_t s = 0; s < spans.size(); ++s) {
        const auto &kinds = m_trace.tracks[spans[s].track].rows[spans[s].row].kind;
        for (uint32_t i = 0; i < kinds.size(); ++i) {
            if (m_batchOfKind[kinds[i]] != batch)
                continue;
            if (!buffer && !(buffer = acquireFree()))
                return false;
            buffer->data[filled++] = {s, i};
            if (filled == m_capacity) {
                buffer->size = filled;
                publish(std::exchange(buffer, nullptr));
                filled = 0;
            }
        }
    }
    if (buffer) {
        buffer->size = filled;
        publish(buffer);
    }
    return true;
}

} // namespace tracedesk::core::sql
