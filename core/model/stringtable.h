#pragma once

// StringTable: every name, category and string stat value of a trace, interned once.
//
// Owns the characters in large append-only blocks, so a string_view handed out stays valid
// for the table's life. Id 0 is the empty string. Not synchronised: a single builder interns
// with intern(); builders working in parallel use internShared(), which takes a lock, and must
// not call view() until the parallel phase has joined. Once the trace is built the table is
// read-only and safe to read from any thread.

#include "core/model/types.h"

#include <cstdint>
#include <memory>
#include <mutex>
#include <string_view>
#include <vector>

namespace tracedesk::core {

class StringTable
{
public:
    StringTable();
    StringTable(const StringTable &) = delete;
    StringTable &operator=(const StringTable &) = delete;

    StringId intern(std::string_view text);
    StringId internShared(std::string_view text);
    // kEmptyString-or-id lookup without inserting; returns false when absent.
    bool find(std::string_view text, StringId *id) const;

    // Out-of-range ids (only a corrupt store file could hold one) read as the empty string.
    std::string_view view(StringId id) const
    {
        return id < m_views.size() ? m_views[id] : std::string_view();
    }
    size_t size() const { return m_views.size(); }
    // Bytes held by characters, views and the index (for memory accounting).
    size_t memoryBytes() const;

private:
    std::string_view store(std::string_view text);
    // The index: open addressing with linear probing, at most half full. A slot holds an id and
    // 32 bits of its text's hash, so a probe compares texts only when those bits match and the
    // table grows without hashing any text again. A node per string (unordered_map) cost an
    // allocation per new string and a cache miss per probe: a tenth of a 10M-event load was
    // spent interning its names before any event was read.
    struct Slot
    {
        uint32_t tag = 0;
        StringId id = kNoSlot;
    };
    static constexpr StringId kNoSlot = ~StringId(0);
    // The slot holding `text`, or the empty slot where it would go.
    size_t slotOf(std::string_view text, uint32_t tag) const;
    void grow();

    static constexpr size_t kBlockSize = 1 << 20;
    std::vector<std::unique_ptr<char[]>> m_blocks;
    std::vector<std::unique_ptr<char[]>> m_largeBlocks;
    size_t m_blockUsed = kBlockSize;
    size_t m_charBytes = 0;
    std::vector<std::string_view> m_views;
    std::vector<Slot> m_slots;
    size_t m_mask = 0;
    std::mutex m_mutex;
};

} // namespace tracedesk::core
