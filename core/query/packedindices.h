#pragma once

// PackedIndices: indices below a bound, each in the fewest bits that hold the bound (25 bits
// for the 30M flows of a 100M-event trace, not 32), read one at a time. Immutable once built;
// any number of readers.

#include <algorithm>
#include <bit>
#include <cstdint>
#include <cstring>
#include <span>
#include <vector>

namespace tracedesk::core {

class PackedIndices
{
public:
    PackedIndices() = default;
    // `values` must all be below `bound`.
    PackedIndices(std::span<const uint32_t> values, uint64_t bound)
        : m_bits(std::max(1, int(std::bit_width(bound > 0 ? bound - 1 : 0))))
        , m_mask((uint64_t(1) << m_bits) - 1)
        , m_size(values.size())
    {
        // Eight spare bytes: every read takes a whole word.
        m_bytes.assign((m_size * m_bits + 7) / 8 + 8, 0);
        for (size_t i = 0; i < m_size; ++i) {
            const uint64_t bit = uint64_t(i) * m_bits;
            uint64_t word;
            std::memcpy(&word, m_bytes.data() + bit / 8, sizeof word);
            word |= (uint64_t(values[i]) & m_mask) << (bit % 8);
            std::memcpy(m_bytes.data() + bit / 8, &word, sizeof word);
        }
    }

    size_t size() const { return m_size; }
    uint32_t operator[](size_t i) const
    {
        const uint64_t bit = uint64_t(i) * m_bits;
        uint64_t word;
        std::memcpy(&word, m_bytes.data() + bit / 8, sizeof word);
        return uint32_t((word >> (bit % 8)) & m_mask);
    }
    size_t memoryBytes() const { return m_bytes.capacity(); }

private:
    // Bit offsets within a word assume the low byte comes first.
    static_assert(std::endian::native == std::endian::little);

    std::vector<uint8_t> m_bytes;
    int m_bits = 1;
    uint64_t m_mask = 1;
    size_t m_size = 0;
};

} // namespace tracedesk::core
