#pragma once

// PackedInts: an immutable column of int64 values stored in the narrowest width that holds them.
//
// Most per-slice columns span a small range (durations of a few microseconds, kind indices, step
// ids, correlation ids that count up), so each column keeps `value - base` in 1, 2, 4 or 8 bytes,
// where base is the column's smallest value. The all-ones pattern of the width stands for
// kNoValue, so absent values cost nothing extra. This halves or quarters the store's memory
// without changing what a reader sees: operator[] returns the original value.
//
// Hot loops call visit() once per column and get a typed view whose loads are plain loads.
// Thread safety: immutable after construction; any number of readers.

#include "core/model/indexiterator.h"
#include "core/model/types.h"

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <initializer_list>
#include <limits>
#include <span>
#include <vector>

namespace tracedesk::core {

class PackedInts
{
public:
    // A typed view of the stored values: at(i) is the value (kNoValue not decoded; for columns
    // that hold no kNoValue, such as durations and kinds), valueAt(i) decodes kNoValue too.
    template<typename T>
    struct View
    {
        const uint8_t *data;
        int64_t base;

        T raw(size_t i) const
        {
            T v;
            std::memcpy(&v, data + i * sizeof(T), sizeof(T));
            return v;
        }
        int64_t at(size_t i) const { return int64_t(uint64_t(base) + uint64_t(raw(i))); }
        int64_t operator[](size_t i) const { return at(i); }
        int64_t valueAt(size_t i) const
        {
            const T v = raw(i);
            return v == T(~T(0)) ? kNoValue : int64_t(uint64_t(base) + uint64_t(v));
        }
    };

    using const_iterator = IndexIterator<PackedInts, int64_t>;

    PackedInts() = default;
    explicit PackedInts(std::span<const int64_t> values) { assign(values); }
    PackedInts(std::initializer_list<int64_t> values)
    {
        assign(std::span<const int64_t>(values.begin(), values.size()));
    }

    // Picks the narrowest width for `values` (kNoValue entries allowed).
    void assign(std::span<const int64_t> values);
    // The same for the n values at(0) .. at(n - 1), read twice (range, then store), so a
    // builder packs a column straight from its staging without a wide copy of it.
    template<typename At>
    void assignWith(size_t n, At &&at);
    // The same in two steps, for a caller that fills several columns in one pass of its own:
    // prepare(n, lo, hi) with the smallest and largest value other than kNoValue (lo > hi
    // when there is none) sizes the column, then put(i, v) stores each value (any order,
    // any thread for distinct i).
    void prepare(size_t n, int64_t lo, int64_t hi);
    void put(size_t i, int64_t v)
    {
        storedAs([&](auto zero) {
            using T = decltype(zero);
            const T t = encode<T>(v, m_base);
            std::memcpy(m_bytes.data() + i * sizeof(T), &t, sizeof(T));
        });
    }

    // put() for `count` values of `source` from index `from` on, stored from index `at` on:
    // each width read and written through its type, not chosen per value. The values must be
    // within the range given to prepare().
    void putFrom(size_t at, const PackedInts &source, size_t from, size_t count);

    size_t size() const { return m_size; }
    bool empty() const { return m_size == 0; }
    unsigned width() const { return m_width; }
    int64_t base() const { return m_base; }
    const std::vector<uint8_t> &bytes() const { return m_bytes; }
    // The store reader sets the layout (false for a width other than 1, 2, 4 or 8), then
    // decompresses straight into the bytes and checks they are size() * width().
    std::vector<uint8_t> &mutableBytes() { return m_bytes; }
    bool setLayout(uint8_t width, int64_t base, size_t size);

    int64_t operator[](size_t i) const
    {
        switch (m_width) {
        case 1: return view<uint8_t>().valueAt(i);
        case 2: return view<uint16_t>().valueAt(i);
        case 4: return view<uint32_t>().valueAt(i);
        default: return view<uint64_t>().valueAt(i);
        }
    }
    int64_t front() const { return (*this)[0]; }
    int64_t back() const { return (*this)[m_size - 1]; }
    const_iterator begin() const { return {this, 0}; }
    const_iterator end() const { return {this, m_size}; }

    // Calls f(View<T>) with the stored width's view; returns what f returns.
    template<typename F>
    decltype(auto) visit(F &&f) const
    {
        switch (m_width) {
        case 1: return f(view<uint8_t>());
        case 2: return f(view<uint16_t>());
        case 4: return f(view<uint32_t>());
        default: return f(view<uint64_t>());
        }
    }

    // Every value moved by delta (kNoValue stays): the base moves, the bytes do not.
    void offsetAll(int64_t delta) { m_base = int64_t(uint64_t(m_base) + uint64_t(delta)); }
    std::vector<int64_t> values() const;
    void clear();
    size_t memoryBytes() const { return m_bytes.capacity(); }

    friend bool operator==(const PackedInts &a, const PackedInts &b);

private:
    template<typename T>
    View<T> view() const
    {
        return {m_bytes.data(), m_base};
    }

    // Calls f with a zero of the unsigned type the values are stored in: the writers' one
    // choice of width, outside their loops.
    template<typename F>
    void storedAs(F &&f) const
    {
        switch (m_width) {
        case 1: f(uint8_t(0)); break;
        case 2: f(uint16_t(0)); break;
        case 4: f(uint32_t(0)); break;
        default: f(uint64_t(0)); break;
        }
    }

    std::vector<uint8_t> m_bytes;
    // A value as stored at width sizeof(T): its distance from the base, or all ones.
    template<typename T>
    static T encode(int64_t v, int64_t base)
    {
        return v == kNoValue ? T(~T(0)) : T(uint64_t(v) - uint64_t(base));
    }

    size_t m_size = 0;
    int64_t m_base = 0;
    uint8_t m_width = 8;
};

template<typename At>
void PackedInts::assignWith(size_t n, At &&at)
{
    clear();
    if (n == 0)
        return;
    int64_t lo = std::numeric_limits<int64_t>::max();
    int64_t hi = std::numeric_limits<int64_t>::min();
    for (size_t i = 0; i < n; ++i) {
        const int64_t v = at(i);
        if (v == kNoValue)
            continue;
        lo = std::min(lo, v);
        hi = std::max(hi, v);
    }
    prepare(n, lo, hi);
    lo = m_base;
    storedAs([&](auto zero) {
        using T = decltype(zero);
        uint8_t *out = m_bytes.data();
        for (size_t i = 0; i < n; ++i) {
            const int64_t v = at(i);
            const T t = encode<T>(v, lo);
            std::memcpy(out + i * sizeof(T), &t, sizeof(T));
        }
    });
}

} // namespace tracedesk::core
