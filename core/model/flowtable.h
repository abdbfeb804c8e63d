#pragma once

// FlowTable: the trace's flows (arrows between slices), stored column by column in PackedInts.
//
// A flow is two slice addresses, an id and a category: 40 bytes as a struct, but track and row
// numbers are small and indices, ids and categories span narrow ranges, so packed columns take
// about 15 bytes per flow. Readers get Flow values: flows[i] or a range-for over the table.
// Built once from a vector of Flow (builders collect, sort, then assign); immutable afterwards.

#include "core/model/indexiterator.h"
#include "core/model/packedints.h"
#include "core/model/types.h"

#include <array>
#include <initializer_list>
#include <span>
#include <vector>

namespace tracedesk::core {

struct Flow
{
    SliceRef from;
    SliceRef to;
    uint64_t id = 0;
    StringId category = kEmptyString;
};

class FlowTable
{
public:
    enum Column { FromTrack, FromRow, FromIndex, ToTrack, ToRow, ToIndex, Id, Category, Count };

    using const_iterator = IndexIterator<FlowTable, Flow>;

    FlowTable() = default;
    FlowTable(const std::vector<Flow> &flows) { assign(flows); }
    FlowTable(std::initializer_list<Flow> flows) { assign(std::vector<Flow>(flows)); }

    // `threads` as parallelFor's (0: every core when there is more than one chunk of flows);
    // 1 for a caller that is itself one of many workers.
    void assign(const std::vector<Flow> &flows, unsigned threads = 0);
    // The flows of `parts` one after the other, without joining them first.
    void assign(std::span<const std::vector<Flow>> parts, unsigned threads = 0);
    // The same for parts already packed (a builder packs each part as it is made, so the flows
    // are never all held 40 bytes apiece).
    void assign(std::span<const FlowTable> parts);
    std::vector<Flow> toVector() const;

    size_t size() const { return m_columns[FromTrack].size(); }
    bool empty() const { return size() == 0; }
    Flow operator[](size_t i) const
    {
        Flow f;
        f.from = {uint32_t(m_columns[FromTrack][i]), uint32_t(m_columns[FromRow][i]),
                  uint32_t(m_columns[FromIndex][i])};
        f.to = {uint32_t(m_columns[ToTrack][i]), uint32_t(m_columns[ToRow][i]),
                uint32_t(m_columns[ToIndex][i])};
        f.id = uint64_t(m_columns[Id][i]);
        f.category = StringId(m_columns[Category][i]);
        return f;
    }
    const_iterator begin() const { return {this, 0}; }
    const_iterator end() const { return {this, size()}; }

    // Every flow from or to `slice`, in table order: a scan of the track columns first, so a
    // walk of millions of flows takes milliseconds.
    std::vector<Flow> touching(SliceRef slice) const;

    // The store file reads and writes the columns as they are.
    const PackedInts &column(Column c) const { return m_columns[size_t(c)]; }
    PackedInts &mutableColumn(Column c) { return m_columns[size_t(c)]; }
    size_t memoryBytes() const;

private:
    void put(size_t i, const std::array<int64_t, Count> &values);
    // Packs `total` flows given as chunks: range(c, lo, hi) widens lo and hi by chunk c's
    // values of each column (kNoValue left out), store(c) puts chunk c's values.
    template<typename Range, typename Store>
    void pack(size_t chunks, size_t total, unsigned threads, Range &&range, Store &&store);

    std::array<PackedInts, Count> m_columns;
};

} // namespace tracedesk::core
