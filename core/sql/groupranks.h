#pragma once

// GroupRanks: the groups of `GROUP BY name` (or category) over the store's event kinds. Each
// kind gets the rank of its key's text in byte order (SQLite's BINARY collation), so ranks in
// order are the groups in the order SQLite outputs them; kinds whose key has the same text
// share a rank, even when the text was interned twice. Internal to core/sql; immutable.

#include "core/model/trace.h"

#include <cstdint>
#include <vector>

namespace tracedesk::core::sql {

enum class GroupKey : uint8_t { Name, Category };

struct GroupRanks
{
    std::vector<uint32_t> ofKind; // Trace::kinds.size() entries
    std::vector<StringId> text;   // per rank: one of the strings with that text
};

// Descending ranks run in reverse byte order (ORDER BY the key DESC).
GroupRanks rankGroups(const Trace &trace, GroupKey key, bool descending = false);

} // namespace tracedesk::core::sql
