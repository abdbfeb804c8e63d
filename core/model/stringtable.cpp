#include "core/model/stringtable.h"

#include <cstring>

namespace tracedesk::core {

StringTable::StringTable()
{
    m_views.emplace_back();
    m_index.emplace(std::string_view(), kEmptyString);
}

std::string_view StringTable::store(std::string_view text)
{
    if (text.size() > kBlockSize / 4) {
        // Large strings get a block of their own so the shared block is not wasted.
        m_largeBlocks.emplace_back(new char[text.size()]);
        std::memcpy(m_largeBlocks.back().get(), text.data(), text.size());
        m_charBytes += text.size();
        return std::string_view(m_largeBlocks.back().get(), text.size());
    }
    if (m_blockUsed + text.size() > kBlockSize) {
        m_blocks.emplace_back(new char[kBlockSize]);
        m_blockUsed = 0;
        m_charBytes += kBlockSize;
    }
    char *dest = m_blocks.back().get() + m_blockUsed;
    std::memcpy(dest, text.data(), text.size());
    m_blockUsed += text.size();
    return std::string_view(dest, text.size());
}

StringId StringTable::intern(std::string_view text)
{
    if (auto it = m_index.find(text); it != m_index.end())
        return it->second;
    const std::string_view stored = store(text);
    const auto id = StringId(m_views.size());
    m_views.push_back(stored);
    m_index.emplace(stored, id);
    return id;
}

StringId StringTable::internShared(std::string_view text)
{
    std::lock_guard lock(m_mutex);
    return intern(text);
}

bool StringTable::find(std::string_view text, StringId *id) const
{
    auto it = m_index.find(text);
    if (it == m_index.end())
        return false;
    *id = it->second;
    return true;
}

size_t StringTable::memoryBytes() const
{
    return m_charBytes + m_views.capacity() * sizeof(std::string_view)
           + m_index.size() * (sizeof(std::string_view) + sizeof(StringId) + 2 * sizeof(void *))
           + m_index.bucket_count() * sizeof(void *);
}

} // namespace tracedesk::core
