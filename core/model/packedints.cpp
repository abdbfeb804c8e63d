#include "core/model/packedints.h"

#include <algorithm>
#include <limits>

namespace tracedesk::core {

namespace {

template<typename T>
void store(std::span<const int64_t> values, int64_t base, uint8_t *out)
{
    for (size_t i = 0; i < values.size(); ++i) {
        const T v = values[i] == kNoValue ? T(~T(0)) : T(uint64_t(values[i]) - uint64_t(base));
        std::memcpy(out + i * sizeof(T), &v, sizeof(T));
    }
}

bool validWidth(uint8_t width)
{
    return width == 1 || width == 2 || width == 4 || width == 8;
}

} // namespace

void PackedInts::assign(std::span<const int64_t> values)
{
    clear();
    if (values.empty())
        return;
    int64_t lo = std::numeric_limits<int64_t>::max();
    int64_t hi = std::numeric_limits<int64_t>::min();
    for (int64_t v : values) {
        if (v == kNoValue)
            continue;
        lo = std::min(lo, v);
        hi = std::max(hi, v);
    }
    if (lo > hi)
        lo = hi = 0; // every value absent
    // The all-ones pattern is kNoValue, so the range must stay below it.
    const uint64_t range = uint64_t(hi) - uint64_t(lo);
    m_width = range < 0xffu ? 1 : range < 0xffffu ? 2 : range < 0xffffffffu ? 4 : 8;
    m_base = lo;
    m_size = values.size();
    m_bytes.resize(m_size * m_width);
    switch (m_width) {
    case 1: store<uint8_t>(values, m_base, m_bytes.data()); break;
    case 2: store<uint16_t>(values, m_base, m_bytes.data()); break;
    case 4: store<uint32_t>(values, m_base, m_bytes.data()); break;
    default: store<uint64_t>(values, m_base, m_bytes.data()); break;
    }
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
