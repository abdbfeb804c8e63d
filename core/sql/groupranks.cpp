#include "core/sql/groupranks.h"

#include <algorithm>
#include <unordered_map>

namespace tracedesk::core::sql {

GroupRanks rankGroups(const Trace &trace, GroupKey key, bool descending)
{
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
    GroupRanks ranks;
    std::unordered_map<StringId, uint32_t> rankOfString;
    for (size_t k = 0; k < keys.size(); ++k) {
        if (k == 0 || trace.string(keys[k]) != trace.string(keys[k - 1]))
            ranks.text.push_back(keys[k]);
        rankOfString.emplace(keys[k], uint32_t(ranks.text.size() - 1));
    }
    ranks.ofKind.reserve(trace.kinds.size());
    for (const EventKind &kind : trace.kinds)
        ranks.ofKind.push_back(rankOfString[keyOf(kind)]);
    return ranks;
}

} // namespace tracedesk::core::sql
