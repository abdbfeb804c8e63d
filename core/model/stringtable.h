#pragma once

// StringTable: every name, category and string stat value of a trace, interned once.
//
// Owns the characters in large append-only blocks, so a string_view handed out stays valid
// for the table's life. Id 0 is the empty string. Not synchronised: a single builder interns
// with intern(); builders working in parallel use internShared(), which takes a lock, and must
// not call view() until the parallel phase has joined. Once the trace is built the table is
// read-only and safe to read from any thread.

#include "core/model/types.h"

#include <memory>
#include <mutex>
#include <string_view>
#include <unordered_map>
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

    static constexpr size_t kBlockSize = 1 << 20;
    std::vector<std::unique_ptr<char[]>> m_blocks;
    std::vector<std::unique_ptr<char[]>> m_largeBlocks;
    size_t m_blockUsed = kBlockSize;
    size_t m_charBytes = 0;
    std::vector<std::string_view> m_views;
    std::unordered_map<std::string_view, StringId> m_index;
    std::mutex m_mutex;
};

} // namespace tracedesk::core
