#include "core/model/stringtable.h"

#include <cstring>

namespace tracedesk::core {

namespace {

uint64_t fold(uint64_t a, uint64_t b)
{
    const unsigned __int128 product = static_cast<unsigned __int128>(a) * b;
    return uint64_t(product) ^ uint64_t(product >> 64);
}

// A multiply-fold hash read 8 bytes at a time: names of kernels run to hundreds of bytes, and
// a byte-at-a-time hash spends more on them than the probe does.
uint32_t tagOf(std::string_view text)
{
    const char *p = text.data();
    size_t n = text.size();
    uint64_t h = 0x9E3779B97F4A7C15ull ^ n;
    for (; n >= 8; p += 8, n -= 8) {
        uint64_t word;
        std::memcpy(&word, p, 8);
        h = fold(h ^ word, 0xBF58476D1CE4E5B9ull);
    }
    uint64_t last = 0;
    if (n > 0)
        std::memcpy(&last, p, n);
    h = fold(h ^ last, 0x94D049BB133111EBull);
    return uint32_t(h ^ (h >> 32));
}

} // namespace

StringTable::StringTable()
{
    m_slots.resize(64);
    m_mask = m_slots.size() - 1;
    m_views.emplace_back();
    const uint32_t tag = tagOf({});
    m_slots[slotOf({}, tag)] = {tag, kEmptyString};
}

size_t StringTable::slotOf(std::string_view text, uint32_t tag) const
{
    for (size_t i = tag & m_mask;; i = (i + 1) & m_mask) {
        const Slot &slot = m_slots[i];
        if (slot.id == kNoSlot || (slot.tag == tag && m_views[slot.id] == text))
            return i;
    }
}

void StringTable::grow()
{
    std::vector<Slot> old(m_slots.size() * 2);
    old.swap(m_slots);
    m_mask = m_slots.size() - 1;
    for (const Slot &slot : old) {
        if (slot.id == kNoSlot)
            continue;
        size_t i = slot.tag & m_mask;
        while (m_slots[i].id != kNoSlot)
            i = (i + 1) & m_mask;
        m_slots[i] = slot;
    }
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
    const uint32_t tag = tagOf(text);
    const size_t at = slotOf(text, tag);
    if (m_slots[at].id != kNoSlot)
        return m_slots[at].id;
    const auto id = StringId(m_views.size());
    m_views.push_back(store(text));
    m_slots[at] = {tag, id};
    if (2 * m_views.size() > m_slots.size())
        grow();
    return id;
}

StringId StringTable::internShared(std::string_view text)
{
    std::lock_guard lock(m_mutex);
    return intern(text);
}

bool StringTable::find(std::string_view text, StringId *id) const
{
    const Slot &slot = m_slots[slotOf(text, tagOf(text))];
    if (slot.id == kNoSlot)
        return false;
    *id = slot.id;
    return true;
}

size_t StringTable::memoryBytes() const
{
    return m_charBytes + m_views.capacity() * sizeof(std::string_view)
           + m_slots.capacity() * sizeof(Slot);
}

} // namespace tracedesk::core
