#pragma once

// A stable LSD radix sort of records by a 64-bit key: 11 bits a pass, and only the passes
// whose digit differs between some keys. Flow endpoints are sorted by their id so: millions
// of 24-byte records in a few linear passes instead of the twenty-odd merge levels of a
// comparison sort. Equal keys keep their order. `scratch` is any buffer of at least as many
// records; the sorted records end in `records`.

#include <array>
#include <cstdint>
#include <cstring>
#include <span>
#include <utility>

namespace tracedesk::core {

template<typename T, typename Key>
void radixSortByKey(std::span<T> records, std::span<T> scratch, Key &&key)
{
    constexpr int kBits = 11;
    constexpr size_t kBuckets = size_t(1) << kBits;
    const size_t n = records.size();
    if (n < 2 || scratch.size() < n)
        return;
    uint64_t any = 0, all = ~uint64_t(0);
    for (const T &r : records) {
        any |= key(r);
        all &= key(r);
    }
    const uint64_t varying = any ^ all;
    T *from = records.data();
    T *to = scratch.data();
    for (int shift = 0; shift < 64; shift += kBits) {
        if (((varying >> shift) & (kBuckets - 1)) == 0)
            continue;
        std::array<size_t, kBuckets> start{};
        for (size_t i = 0; i < n; ++i)
            ++start[(key(from[i]) >> shift) & (kBuckets - 1)];
        size_t sum = 0;
        for (size_t &s : start)
            sum += std::exchange(s, sum);
        for (size_t i = 0; i < n; ++i)
            to[start[(key(from[i]) >> shift) & (kBuckets - 1)]++] = from[i];
        std::swap(from, to);
    }
    if (from != records.data())
        std::memcpy(static_cast<void *>(records.data()), from, n * sizeof(T));
}

} // namespace tracedesk::core
