#include "core/model/flowtable.h"

#include "core/base/parallel.h"

#include <algorithm>

namespace tracedesk::core {

void FlowTable::assign(const std::vector<Flow> &flows)
{
    assign(std::span<const std::vector<Flow>>(&flows, 1));
}

void FlowTable::assign(std::span<const std::vector<Flow>> parts)
{
    size_t total = 0;
    for (const auto &part : parts)
        total += part.size();
    auto pack = [&](Column c, auto field) {
        // assignWith reads 0..total-1 in order, twice: a cursor walks the parts.
        size_t part = 0, base = 0;
        m_columns[size_t(c)].assignWith(total, [&](size_t i) {
            if (i < base)
                part = base = 0;
            while (i - base >= parts[part].size())
                base += parts[part++].size();
            return field(parts[part][i - base]);
        });
    };
    // Each column is its own pass over the flows: the columns of many flows pack on every core.
    const unsigned threads = total < (size_t(1) << 16) ? 1 : 0;
    parallelFor(size_t(Count), threads, [&](unsigned, size_t c) {
        switch (Column(c)) {
        case FromTrack: pack(FromTrack, [](const Flow &f) { return int64_t(f.from.track); }); break;
        case FromRow: pack(FromRow, [](const Flow &f) { return int64_t(f.from.row); }); break;
        case FromIndex: pack(FromIndex, [](const Flow &f) { return int64_t(f.from.index); }); break;
        case ToTrack: pack(ToTrack, [](const Flow &f) { return int64_t(f.to.track); }); break;
        case ToRow: pack(ToRow, [](const Flow &f) { return int64_t(f.to.row); }); break;
        case ToIndex: pack(ToIndex, [](const Flow &f) { return int64_t(f.to.index); }); break;
        case Id: pack(Id, [](const Flow &f) { return int64_t(f.id); }); break;
        case Category: pack(Category, [](const Flow &f) { return int64_t(f.category); }); break;
        case Count: break;
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
