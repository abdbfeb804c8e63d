#include "core/sql/groupedscan.h"

#include <algorithm>
#include <unordered_map>

namespace tracedesk::core::sql {

namespace {
constexpr uint64_t kMaxPasses = 8;
} // namespace

GroupedSliceScan::GroupedSliceScan(const Trace &trace, const SliceIds &ids, GroupKey key,
                                   bool descending, size_t bufferLimit)
    : m_trace(trace)
    , m_ids(ids)
    , m_capacity(std::max<size_t>(1, bufferLimit))
{
    // Ranks follow the strings' byte order (SQLite's BINARY collation), so the groups also come
    // out sorted: SQLite relies on that when ORDER BY repeats the GROUP BY terms.
    auto keyOf = [&](const EventKind &kind) {
        return key == GroupKey::Name ? kind.name : kind.category;
    };
    std::vector<StringId> keys;
    keys.reserve(trace.kinds.size());
    for (const EventKind &kind : trace.kinds)
        keys.push_back(keyOf(kind));
    std::sort(keys.begin(), keys.end());
    keys.erase(std::unique(keys.begin(), keys.end()), keys.end());
    std::stable_sort(keys.begin(), keys.end(), [&](StringId a, StringId b) {
        return descending ? trace.string(b) < trace.string(a) : trace.string(a) < trace.string(b);
    });
    // Different ids with equal text (interned twice) must share a rank.
    std::unordered_map<StringId, uint32_t> rankOfString;
    uint32_t rank = 0;
    for (size_t k = 0; k < keys.size(); ++k) {
        if (k > 0 && trace.string(keys[k]) != trace.string(keys[k - 1]))
            ++rank;
        rankOfString.emplace(keys[k], rank);
    }
    m_rankOfKind.reserve(trace.kinds.size());
    for (const EventKind &kind : trace.kinds)
        m_rankOfKind.push_back(rankOfString[keyOf(kind)]);
    const size_t rankCount = keys.empty() ? 0 : size_t(rank) + 1;
    m_countOfRank.assign(rankCount, 0);
    uint64_t slices = 0;
    for (const auto &span : ids.rows()) {
        const auto &kinds = trace.tracks[span.track].rows[span.row].kind;
        slices += kinds.size();
        for (uint32_t k : kinds)
            ++m_countOfRank[m_rankOfKind[k]];
    }
    // Each batch is one pass over every kind column: a few large batches beat many small ones.
    m_capacity = std::max<size_t>(m_capacity, size_t((slices + kMaxPasses - 1) / kMaxPasses));
    // Consecutive ranks up to a buffer; a larger rank alone.
    uint32_t lo = 0;
    uint64_t inBatch = 0;
    for (uint32_t r = 0; r < m_countOfRank.size(); ++r) {
        const uint64_t n = m_countOfRank[r];
        if (inBatch > 0 && inBatch + n > m_capacity) {
            m_batches.emplace_back(lo, r);
            lo = r;
            inBatch = 0;
        }
        inBatch += n;
    }
    if (lo < m_countOfRank.size())
        m_batches.emplace_back(lo, uint32_t(m_countOfRank.size()));
    if (slices == 0)
        return;

    m_free = {&m_buffers[0]};
    m_buffers[0].data.reset(new Position[m_capacity]);
    if (slices <= m_capacity) {
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
    for (const auto &[lo, hi] : m_batches) {
        uint64_t total = 0;
        for (uint32_t r = lo; r < hi; ++r)
            total += m_countOfRank[r];
        if (total == 0)
            continue;
        const bool ok = total > m_capacity ? streamRank(lo) : sortBatch(lo, hi, total);
        if (!ok)
            return false;
    }
    return true;
}

// Counting sort of the batch's slices by rank into one buffer.
bool GroupedSliceScan::sortBatch(uint32_t lo, uint32_t hi, uint64_t total)
{
    Buffer *buffer = acquireFree();
    if (!buffer)
        return false;
    std::vector<uint64_t> offset(hi - lo + 1, 0);
    for (uint32_t r = lo; r < hi; ++r)
        offset[r - lo + 1] = offset[r - lo] + m_countOfRank[r];
    Position *out = buffer->data.get();
    const auto &spans = m_ids.rows();
    for (uint32_t s = 0; s < spans.size(); ++s) {
        const auto &kinds = m_trace.tracks[spans[s].track].rows[spans[s].row].kind;
        for (uint32_t i = 0; i < kinds.size(); ++i) {
            const uint32_t r = m_rankOfKind[kinds[i]];
            if (r >= lo && r < hi)
                out[offset[r - lo]++] = {s, i};
        }
    }
    buffer->size = size_t(total);
    publish(buffer);
    return true;
}

// One rank larger than a buffer: its positions in id order, a buffer at a time.
bool GroupedSliceScan::streamRank(uint32_t rank)
{
    Buffer *buffer = nullptr;
    size_t filled = 0;
    const auto &spans = m_ids.rows();
    for (uint32_t s = 0; s < spans.size(); ++s) {
        const auto &kinds = m_trace.tracks[spans[s].track].rows[spans[s].row].kind;
        for (uint32_t i = 0; i < kinds.size(); ++i) {
            if (m_rankOfKind[kinds[i]] != rank)
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
