#pragma once

// SliceIds: the `id` of a slice in SQL, and back. Slices are numbered track by track, row
// (depth) by row, in each row's start order: id = base of (track, row) + index. Only the bases
// are stored (one per row of the trace), so ids cost nothing per slice and are stable for a
// given store.
//
// Immutable once built; safe to share across threads. Holds a reference to the trace.

#include "core/model/trace.h"

#include <cstdint>
#include <optional>
#include <vector>

namespace tracedesk::core::sql {

class SliceIds
{
public:
    struct RowSpan
    {
        uint32_t track = 0;
        uint32_t row = 0;
        uint64_t base = 0; // id of the row's first slice
    };

    explicit SliceIds(const Trace &trace);

    uint64_t total() const { return m_total; }
    const std::vector<RowSpan> &rows() const { return m_rows; }
    // The rows of `track` are rows()[trackBegin(track) .. trackBegin(track + 1)).
    uint32_t trackBegin(uint32_t track) const { return m_trackFirst[track]; }
    uint32_t trackCount() const { return uint32_t(m_trackFirst.size() - 1); }

    int64_t idOf(SliceRef s) const
    {
        return int64_t(m_rows[m_trackFirst[s.track] + s.row].base + s.index);
    }
    std::optional<SliceRef> refOf(int64_t id) const;

private:
    std::vector<RowSpan> m_rows;
    std::vector<uint32_t> m_trackFirst; // tracks + 1 entries
    uint64_t m_total = 0;
};

} // namespace tracedesk::core::sql
