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

void PackedInts::putFrom(size_t at, const PackedInts &source, size_t from, size_t count)
{
    storedAs([&](auto zero) {
        using T = decltype(zero);
        uint8_t *out = m_bytes.data() + at * sizeof(T);
        source.visit([&](auto in) {
            using S = decltype(in.raw(0));
            // A value is in.base + raw, stored as value - m_base: raw moved by the bases'
            // difference, in the wrapping arithmetic encode() uses.
            const uint64_t shift = uint64_t(in.base) - uint64_t(m_base);
            for (size_t k = 0; k < count; ++k) {
                const S raw = in.raw(from + k);
                const T t = raw == S(~S(0)) ? T(~T(0)) : T(uint64_t(raw) + shift);
                std::memcpy(out + k * sizeof(T), &t, sizeof(T));
            }
        });
    });
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
