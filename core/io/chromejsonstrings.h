#pragma once

// ChromeJsonStrings: an open-addressing cache in front of StringTable::intern for the hot path
// of the Chrome JSON reader (every event name, category and args key goes through it).
// It keeps only hashes and ids; texts are read back from the StringTable. One thread.

#include "core/model/stringtable.h"

#include <cstring>
#include <string_view>
#include <vector>

namespace tracedesk::core {

class ChromeJsonStrings
{
public:
    explicit ChromeJsonStrings(StringTable &table) : m_table(table), m_slots(1024) {}

    StringId intern(std::string_view s)
    {
        if (s.empty())
            return kEmptyString;
        const uint64_t h = hash(s);
        size_t mask = m_slots.size() - 1;
        for (size_t i = size_t(h) & mask;; i = (i + 1) & mask) {
            Slot &slot = m_slots[i];
            if (slot.id == kEmptyString) {
                const StringId id = m_table.intern(s);
                slot = Slot{h, id};
                if (++m_used * 2 > m_slots.size())
                    grow();
                return id;
            }
            if (slot.hash == h && m_table.view(slot.id) == s)
                return slot.id;
        }
    }

    static uint64_t hash(std::string_view s)
    {
        uint64_t h = 0x9e3779b97f4a7c15ull ^ (s.size() * 0xff51afd7ed558ccdull);
        const char *p = s.data();
        size_t n = s.size();
        auto mix = [&h](uint64_t w) {
            h = (h ^ w) * 0xbf58476d1ce4e5b9ull;
            h ^= h >> 31;
        };
        for (; n >= 8; n -= 8, p += 8) {
            uint64_t w;
            std::memcpy(&w, p, 8);
            mix(w);
        }
        if (n > 0) {
            uint64_t w = 0;
            std::memcpy(&w, p, n);
            mix(w);
        }
        return h ^ (h >> 29);
    }

private:
    // 16 bytes: a trace with millions of distinct names keeps millions of these. The text is
    // compared through the table only when the hashes agree.
    struct Slot
    {
        uint64_t hash = 0;
        StringId id = kEmptyString;   // kEmptyString: free (the empty string is never stored)
    };

    void grow()
    {
        std::vector<Slot> old(m_slots.size() * 2);
        old.swap(m_slots);
        const size_t mask = m_slots.size() - 1;
        for (const Slot &s : old) {
            if (s.id == kEmptyString)
                continue;
            size_t i = size_t(s.hash) & mask;
            while (m_slots[i].id != kEmptyString)
                i = (i + 1) & mask;
            m_slots[i] = s;
        }
    }

    StringTable &m_table;
    std::vector<Slot> m_slots;
    size_t m_used = 0;
};

} // namespace tracedesk::core
