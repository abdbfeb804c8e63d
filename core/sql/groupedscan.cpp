#include "core/sql/groupedscan.h"

#include <algorithm>
#include <unordered_map>

namespace tracedesk::core::sql {

namespace {
constexpr uint64_t kMaxPasses = 4;
} // namespace

GroupedSliceScan::GroupedSliceScan(const Trace &trace, const SliceIds &ids, GroupKey key,
                                   bool descending, size_t bufferLimit)
    : m_trace(trace)
    , m_ids(ids)
    , m_bufferLimit(std::max<size_t>(1, bufferLimit))
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
    m_bufferLimit = std::max<size_t>(m_bufferLimit, size_t((slices + kMaxPasses - 1) / kMaxPasses));
    // Consecutive ranks up to the buffer size; a larger rank alone.
    uint32_t lo = 0;
    uint64_t inBatch = 0;
    for (uint32_t r = 0; r < m_countOfRank.size(); ++r) {
        const uint64_t n = m_countOfRank[r];
        if (inBatch > 0 && inBatch + n > m_bufferLimit) {
            m_batches.emplace_back(lo, r);
            lo = r;
            inBatch = 0;
        }
        inBatch += n;
    }
    if (lo < m_countOfRank.size())
        m_batches.emplace_back(lo, uint32_t(m_countOfRank.size()));
}

bool GroupedSliceScan::startNextBatch()
{
    m_bufferSize = 0;
    m_bufferPos = 0;
    m_streaming = false;
    while (m_nextBatch < m_batches.size()) {
        const auto [lo, hi] = m_batches[m_nextBatch++];
        uint64_t total = 0;
        for (uint32_t r = lo; r < hi; ++r)
            total += m_countOfRank[r];
        if (total == 0)
            continue;
        if (hi - lo == 1 || total > m_bufferLimit) {
            m_streaming = true;
            m_streamRank = lo;
            m_streamSpan = 0;
            m_streamIndex = 0;
            return true;
        }
        // Counting sort of the batch's slices by rank.
        std::vector<uint64_t> offset(hi - lo + 1, 0);
        for (uint32_t r = lo; r < hi; ++r)
            offset[r - lo + 1] = offset[r - lo] + m_countOfRank[r];
        if (!m_buffer)
            m_buffer.reset(new Position[m_bufferLimit]);
        m_bufferSize = size_t(total);
        const auto &spans = m_ids.rows();
        for (uint32_t s = 0; s < spans.size(); ++s) {
            const auto &kinds = m_trace.tracks[spans[s].track].rows[spans[s].row].kind;
            for (uint32_t i = 0; i < kinds.size(); ++i) {
                const uint32_t r = m_rankOfKind[kinds[i]];
                if (r >= lo && r < hi)
                    m_buffer[offset[r - lo]++] = {s, i};
            }
        }
        return true;
    }
    return false;
}

bool GroupedSliceScan::nextStreamed(uint32_t *span, uint32_t *index)
{
    const auto &spans = m_ids.rows();
    for (; m_streamSpan < spans.size(); ++m_streamSpan, m_streamIndex = 0) {
        const auto &kinds =
            m_trace.tracks[spans[m_streamSpan].track].rows[spans[m_streamSpan].row].kind;
        for (; m_streamIndex < kinds.size(); ++m_streamIndex) {
            if (m_rankOfKind[kinds[m_streamIndex]] == m_streamRank) {
                *span = m_streamSpan;
                *index = m_streamIndex++;
                return true;
            }
        }
    }
    return false;
}

bool GroupedSliceScan::next(uint32_t *span, uint32_t *index)
{
    for (;;) {
        if (m_streaming) {
            if (nextStreamed(span, index))
                return true;
        } else if (m_bufferPos < m_bufferSize) {
            *span = m_buffer[m_bufferPos].span;
            *index = m_buffer[m_bufferPos].index;
            ++m_bufferPos;
            return true;
        }
        if (!startNextBatch())
            return false;
    }
}

} // namespace tracedesk::core::sql
