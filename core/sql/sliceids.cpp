#include "core/sql/sliceids.h"

#include <algorithm>

namespace tracedesk::core::sql {

SliceIds::SliceIds(const Trace &trace)
{
    m_trackFirst.reserve(trace.tracks.size() + 1);
    for (uint32_t t = 0; t < trace.tracks.size(); ++t) {
        m_trackFirst.push_back(uint32_t(m_rows.size()));
        const Track &track = trace.tracks[t];
        for (uint32_t r = 0; r < track.rows.size(); ++r) {
            m_rows.push_back({t, r, m_total});
            m_total += track.rows[r].size();
        }
    }
    m_trackFirst.push_back(uint32_t(m_rows.size()));
}

std::optional<SliceRef> SliceIds::refOf(int64_t id) const
{
    if (id < 0 || uint64_t(id) >= m_total)
        return std::nullopt;
    // The last row whose base is <= id (empty rows share their base with the next one).
    auto it = std::upper_bound(m_rows.begin(), m_rows.end(), uint64_t(id),
                               [](uint64_t v, const RowSpan &r) { return v < r.base; });
    --it;
    return SliceRef{it->track, it->row, uint32_t(uint64_t(id) - it->base)};
}

} // namespace tracedesk::core::sql
