#pragma once

// A stable LSD radix sort of records by a 64-bit key: 11 bits a pass, and only the passes
// whose digit differs between some keys. Flow endpoints are sorted by their id so: millions
// of 24-byte records in a few linear passes instead of the twenty-odd merge levels of a
// comparison sort. Equal keys keep their order. `scratch` is any buffer of at least as many
// records; the sorted records end in `records`.
//
// Many records with keys of three digits or more (the ids of a 100M-event trace's flows span
// 25 bits) are first spread by their top digit, then each group is sorted by the digits below
// while it is small enough to stay in cache: one pass over main memory instead of three, whose
// scattered writes to 2,048 places at a time missed the cache and the TLB on every record.

#include <algorithm>
#include <array>
#include <bit>
#include <cstdint>
#include <cstring>
#include <span>
#include <utility>

namespace tracedesk::core {

namespace radixsort_detail {

inline constexpr int kBits = 11;
inline constexpr size_t kBuckets = size_t(1) << kBits;
// Within a group of a few thousand records, smaller digits: fewer counters to clear per pass.
inline constexpr int kGroupBits = 8;
// Records from which the top digit is spread first.
inline constexpr size_t kSpreadFirst = size_t(1) << 16;

// Stable counting pass of [from, from + n) into `to` by the Bits-bit digit at `shift`; `start`
// (2^Bits counters) ends holding each digit's end.
template<int Bits, typename T, typename Key>
void spread(const T *from, T *to, size_t n, int shift, Key &key, size_t *start)
{
    constexpr size_t kMask = (size_t(1) << Bits) - 1;
    std::fill(start, start + kMask + 1, size_t(0));
    for (size_t i = 0; i < n; ++i)
        ++start[(key(from[i]) >> shift) & kMask];
    size_t sum = 0;
    for (size_t b = 0; b <= kMask; ++b)
        sum += std::exchange(start[b], sum);
    for (size_t i = 0; i < n; ++i)
        to[start[(key(from[i]) >> shift) & kMask]++] = from[i];
}

// LSD passes of Bits-bit digits over the bits below `below`, skipping digits in which no key
// differs: from `data`, through `spare`, ending in `data`.
template<int Bits, typename T, typename Key>
void sortLowDigits(T *data, T *spare, size_t n, uint64_t varying, int below, Key &key,
                   size_t *start)
{
    constexpr uint64_t kMask = (uint64_t(1) << Bits) - 1;
    T *from = data;
    T *to = spare;
    for (int shift = 0; shift < below; shift += Bits) {
        if (((varying >> shift) & kMask) == 0)
            continue;
        spread<Bits>(from, to, n, shift, key, start);
        std::swap(from, to);
    }
    if (from != data)
        std::memcpy(static_cast<void *>(data), from, n * sizeof(T));
}

} // namespace radixsort_detail

template<typename T, typename Key>
void radixSortByKey(std::span<T> records, std::span<T> scratch, Key &&key)
{
    using namespace radixsort_detail;
    const size_t n = records.size();
    if (n < 2 || scratch.size() < n)
        return;
    uint64_t any = 0, all = ~uint64_t(0);
    for (const T &r : records) {
        any |= key(r);
        all &= key(r);
    }
    const uint64_t varying = any ^ all;
    if (varying == 0)
        return;
    std::array<size_t, kBuckets> start;
    const int width = 64 - std::countl_zero(varying);   // bits up to the highest varying one
    int passes = 0;
    for (int shift = 0; shift < 64; shift += kBits)
        passes += ((varying >> shift) & (kBuckets - 1)) != 0;
    if (n < kSpreadFirst || passes < 3) {
        sortLowDigits<kBits>(records.data(), scratch.data(), n, varying, 64, key, start.data());
        return;
    }
    // The top digit (the kBits bits ending at the highest varying bit) into `scratch`; each
    // group then sorted by the bits below it, `records` as its spare, and copied back.
    const int top = width - kBits;
    spread<kBits>(records.data(), scratch.data(), n, top, key, start.data());
    const uint64_t below = varying & ((uint64_t(1) << top) - 1);
    std::array<size_t, size_t(1) << kGroupBits> low;
    size_t begin = 0;
    for (size_t b = 0; b < kBuckets; ++b) {
        const size_t end = start[b];
        if (end - begin > 1) {
            sortLowDigits<kGroupBits>(scratch.data() + begin, records.data() + begin,
                                      end - begin, below, top, key, low.data());
        }
        begin = end;
    }
    std::memcpy(static_cast<void *>(records.data()), scratch.data(), n * sizeof(T));
}

} // namespace tracedesk::core
