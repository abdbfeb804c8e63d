#pragma once

// IdTable: a hash set of uint32 ids whose keys live elsewhere (in the caller's nodes), by open
// addressing with linear probing. The caller hashes a key and says whether an id has that key;
// the table holds only the ids, 4 bytes a slot at most half full, where a hash map node per
// entry costs about 40 (a pivot's or flame graph's million groups). Grows by doubling, which
// rehashes every id through the caller. Not thread-safe; any thread.

#include <cstddef>
#include <cstdint>
#include <limits>
#include <vector>

namespace tracedesk::core {

class IdTable
{
public:
    static constexpr uint32_t kNone = std::numeric_limits<uint32_t>::max();

    // The id with the key `isKey(id)` accepts among those hashed to `hash`, or kNone; then
    // `*slot` is where add() puts a new id of that hash.
    template<typename IsKey>
    uint32_t find(size_t hash, IsKey &&isKey, size_t *slot) const
    {
        size_t at = hash & m_mask;
        for (; m_slots[at] != kNone; at = (at + 1) & m_mask) {
            if (isKey(m_slots[at]))
                return m_slots[at];
        }
        *slot = at;
        return kNone;
    }

    // Adds `id` at the slot find() just gave (nothing added since). `hashOf(id)` is the hash
    // find() was given for each id's key, asked again when the table grows.
    template<typename HashOf>
    void add(uint32_t id, size_t slot, HashOf &&hashOf)
    {
        m_slots[slot] = id;
        if (++m_used * 2 <= m_slots.size())
            return;
        std::vector<uint32_t> old(m_slots.size() * 2, kNone);
        old.swap(m_slots);
        m_mask = m_slots.size() - 1;
        for (uint32_t kept : old) {
            if (kept == kNone)
                continue;
            size_t at = hashOf(kept) & m_mask;
            while (m_slots[at] != kNone)
                at = (at + 1) & m_mask;
            m_slots[at] = kept;
        }
    }

    // Frees the slots; the table is empty and usable again.
    void clear()
    {
        m_slots.assign(kInitialSlots, kNone);
        m_slots.shrink_to_fit();
        m_mask = kInitialSlots - 1;
        m_used = 0;
    }

private:
    static constexpr size_t kInitialSlots = 1024;
    std::vector<uint32_t> m_slots = std::vector<uint32_t>(kInitialSlots, kNone);
    size_t m_mask = kInitialSlots - 1;
    size_t m_used = 0;
};

} // namespace tracedesk::core
