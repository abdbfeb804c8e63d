#pragma once

// SparseArray<T, N>: N values of which most are zero, held as the non-zero ones. A step's time
// per event type is 18 values where a step has one to four: 144 bytes as an array, 48 here, for
// each of a 100M-event profile's 640k steps. Up to kInline non-zero values live in the object;
// more keep the whole array on the heap. Read-only once built; value semantics.

#include "core/base/rarevalue.h"

#include <array>
#include <bit>
#include <cstddef>
#include <cstdint>

namespace tracedesk::core {

template<typename T, size_t N>
class SparseArray
{
    static_assert(N <= 32, "the mask holds one bit per value");

public:
    static constexpr size_t kInline = 4;

    SparseArray() = default;
    // Implicit: an array assigns like one.
    SparseArray(const std::array<T, N> &all)
    {
        size_t nonZero = 0;
        for (const T &v : all)
            nonZero += v != T() ? 1 : 0;
        if (nonZero > kInline) {
            m_spilled.edit() = all;
            return;
        }
        for (size_t i = 0; i < N; ++i) {
            if (all[i] != T()) {
                m_values[size_t(std::popcount(m_mask))] = all[i];
                m_mask |= uint32_t(1) << i;
            }
        }
    }

    T operator[](size_t i) const
    {
        if (i >= N)
            return T();
        if (m_spilled.isSet())
            return (*m_spilled)[i];
        const uint32_t bit = uint32_t(1) << i;
        if (!(m_mask & bit))
            return T();
        return m_values[size_t(std::popcount(m_mask & (bit - 1)))];
    }

    std::array<T, N> toArray() const
    {
        std::array<T, N> out{};
        for (size_t i = 0; i < N; ++i)
            out[i] = (*this)[i];
        return out;
    }

private:
    std::array<T, kInline> m_values{};
    uint32_t m_mask = 0; // bit i set: value i is non-zero and held in m_values
    RareValue<std::array<T, N>> m_spilled; // set: more than kInline non-zero values
};

} // namespace tracedesk::core
