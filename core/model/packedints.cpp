#include "core/model/packedints.h"

#include <algorithm>
#include <limits>

namespace tracedesk::core {

namespace {

bool validWidth(uint8_t width)
{
    return width == 1 || width == 2 || width == 4 || width == 8;
}

} // namespace

void PackedInts::assign(std::span<const int64_t> values)
{
    assignWith(values.size(), [&](size_t i) { return values[i]; });
}

void PackedInts::prepare(size_t n, int64_t lo, int64_t hi)
{
    clear();
    if (lo > hi)
        lo = hi = 0;
    // The width's all-ones pattern stays free for kNoValue.
    const uint64_t range = uint64_t(hi) - uint64_t(lo);
    const uint8_t width = range < 0xffu ? 1 : range < 0xffffu ? 2 : range < 0xffffffffu ? 4 : 8;
    setLayout(width, lo, n);
    m_bytes.resize(n * width);
}

bool PackedInts::setLayout(uint8_t width, int64_t base, size_t size)
{
    if (!validWidth(width) || size > std::numeric_limits<size_t>::max() / width)
        return false;
    m_width = width;
    m_base = base;
    m_size = size;
    return true;
}

std::vector<int64_t> PackedInts::values() const
{
    std::vector<int64_t> out(m_size);
    for (size_t i = 0; i < m_size; ++i)
        out[i] = (*this)[i];
    return out;
}

void PackedInts::clear()
{
    std::vector<uint8_t>().swap(m_bytes);
    m_size = 0;
    m_base = 0;
    m_width = 8;
}

bool operator==(const PackedInts &a, const PackedInts &b)
{
    if (a.size() != b.size())
        return false;
    for (size_t i = 0; i < a.size(); ++i) {
        if (a[i] != b[i])
            return false;
    }
    return true;
}

} // namespace tracedesk::core
