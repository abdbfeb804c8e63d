#pragma once

// The store file format shared by writeStoreFile() and readStoreFile() (see storecache.h).
//
// Design note. A store file is:
//
//   "TDSTORE\0"  u32 version  u32 flags  u64 frameCount
//   frameCount x (u64 compressedBytes, u64 rawBytes)
//   u64 FNV-1a hash of everything above
//   frameCount zstd frames, back to back (level 1, content checksum on)
//
// All fixed-width integers and column elements are little-endian. Frame 0 is the "meta"
// stream: a varint-encoded walk over the whole Trace (strings, planes, kinds, tracks, rows,
// counters, aggregates, flows, LoadInfo). Every column (a vector of fixed-width values or an
// args arena) appears in that walk as its element count (a packed column - durations, kinds,
// side columns and the flow table's columns - as its width byte, base and count, its bytes
// being the PackedInts bytes as they are in memory); a column smaller than kInlineBytes
// follows inline, a larger one is carried by the next frames in walk order, cut into pieces
// of at most kChunkBytes. The reader therefore knows every column's size and destination
// before it decompresses a single column frame, and decompresses frames straight into the
// final vectors on several threads. Nothing in a file is trusted: sizes, ids and row order
// are checked, and any inconsistency is an error.
//
// Args refs and plane track lists are stored as wrapping differences between neighbours,
// restarting in every frame so each frame decodes on its own: refs grow with the arena, so
// their differences are tiny, and zstd both shrinks them (23 MB -> 0.1 MB for 10M events)
// and decodes them three times faster. Measured and rejected: the same for row starts and
// side columns (smaller files, but zstd decodes the differences at half the speed) and byte
// shuffling. The coding of a column follows from its place in the walk, so it is not stored.
//
// Reading cost is dominated by zstd and by the page faults of the final vectors, so the reader
// sizes columns on both threads (with transparent huge pages), then decompresses frame by
// frame on both threads, and validates cheaply: args refs only have to lie inside their arena
// because every args reader is bounds-checked.

#include "core/model/trace.h"

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>
#include <vector>

namespace tracedesk::core::storefile {

inline constexpr char kMagic[8] = {'T', 'D', 'S', 'T', 'O', 'R', 'E', '\0'};
inline constexpr uint32_t kVersion = 7; // 7: RPD databases read; 6: XSpace GPU work carries roles
inline constexpr size_t kInlineBytes = 64 * 1024;
inline constexpr size_t kChunkBytes = 4 * 1024 * 1024;
inline constexpr size_t kFixedHeaderBytes = 24;
inline constexpr uint64_t kMetaEndMarker = 0x5444454e44ull; // "TDEND"

// How a column frame's bytes relate to the column's values.
enum class Coding : uint8_t { Plain, Delta32, Delta64 };

template<typename T>
void deltaEncode(const uint8_t *src, uint8_t *dst, size_t bytes)
{
    T previous = 0;
    for (size_t o = 0; o + sizeof(T) <= bytes; o += sizeof(T)) {
        T v;
        std::memcpy(&v, src + o, sizeof(T));
        const T d = T(v - previous);
        std::memcpy(dst + o, &d, sizeof(T));
        previous = v;
    }
}

template<typename T>
void deltaDecode(uint8_t *data, size_t bytes)
{
    T sum = 0;
    for (size_t o = 0; o + sizeof(T) <= bytes; o += sizeof(T)) {
        T d;
        std::memcpy(&d, data + o, sizeof(T));
        sum = T(sum + d);
        std::memcpy(data + o, &sum, sizeof(T));
    }
}

inline void encodeFrame(Coding coding, const uint8_t *src, uint8_t *dst, size_t bytes)
{
    if (coding == Coding::Delta32)
        deltaEncode<uint32_t>(src, dst, bytes);
    else if (coding == Coding::Delta64)
        deltaEncode<uint64_t>(src, dst, bytes);
    else
        std::memcpy(dst, src, bytes);
}

inline void decodeFrame(Coding coding, uint8_t *data, size_t bytes)
{
    if (coding == Coding::Delta32)
        deltaDecode<uint32_t>(data, bytes);
    else if (coding == Coding::Delta64)
        deltaDecode<uint64_t>(data, bytes);
}

// The coding the walk gives a column of T: differences for sorted-ish integer columns.
template<typename T>
constexpr Coding deltaCodingFor()
{
    return sizeof(T) == 8 ? Coding::Delta64 : sizeof(T) == 4 ? Coding::Delta32 : Coding::Plain;
}

inline uint64_t fnv1a(const void *data, size_t size, uint64_t hash = 0xcbf29ce484222325ull)
{
    const auto *p = static_cast<const uint8_t *>(data);
    for (size_t i = 0; i < size; ++i) {
        hash ^= p[i];
        hash *= 0x100000001b3ull;
    }
    return hash;
}

// Appends the meta stream.
class MetaWriter
{
public:
    void u8(uint8_t v) { m_bytes.push_back(v); }
    void varint(uint64_t v)
    {
        while (v >= 0x80) {
            m_bytes.push_back(uint8_t(v) | 0x80);
            v >>= 7;
        }
        m_bytes.push_back(uint8_t(v));
    }
    void svarint(int64_t v) { varint((uint64_t(v) << 1) ^ uint64_t(v >> 63)); }
    void f64(double v)
    {
        uint8_t raw[8];
        std::memcpy(raw, &v, 8);
        raw8(raw);
    }
    void string(std::string_view s)
    {
        varint(s.size());
        m_bytes.insert(m_bytes.end(), s.begin(), s.end());
    }
    void raw(const void *data, size_t size)
    {
        const auto *p = static_cast<const uint8_t *>(data);
        m_bytes.insert(m_bytes.end(), p, p + size);
    }
    std::vector<uint8_t> &bytes() { return m_bytes; }

private:
    void raw8(const uint8_t *p) { m_bytes.insert(m_bytes.end(), p, p + 8); }
    std::vector<uint8_t> m_bytes;
};

// Reads the meta stream; every read is bounds-checked and a failure is sticky.
class MetaReader
{
public:
    MetaReader(const uint8_t *data, size_t size) : m_p(data), m_end(data + size) {}

    bool ok() const { return m_ok; }
    void fail() { m_ok = false; }
    size_t remaining() const { return m_ok ? size_t(m_end - m_p) : 0; }

    uint8_t u8()
    {
        if (!m_ok || m_p >= m_end)
            return fail(), 0;
        return *m_p++;
    }
    uint64_t varint()
    {
        uint64_t result = 0;
        for (int shift = 0; shift < 64 && m_ok && m_p < m_end; shift += 7) {
            const uint8_t b = *m_p++;
            result |= uint64_t(b & 0x7f) << shift;
            if (!(b & 0x80))
                return result;
        }
        fail();
        return 0;
    }
    int64_t svarint()
    {
        const uint64_t x = varint();
        return int64_t(x >> 1) ^ -int64_t(x & 1);
    }
    // A count of items that each take at least `minBytes` of the remaining stream.
    uint64_t count(size_t minBytes = 1)
    {
        const uint64_t n = varint();
        if (m_ok && n > remaining() / (minBytes ? minBytes : 1))
            fail();
        return m_ok ? n : 0;
    }
    double f64()
    {
        double v = 0;
        raw(&v, 8);
        return v;
    }
    std::string_view string()
    {
        const uint64_t n = varint();
        if (!m_ok || n > size_t(m_end - m_p))
            return fail(), std::string_view();
        std::string_view s(reinterpret_cast<const char *>(m_p), size_t(n));
        m_p += n;
        return s;
    }
    void raw(void *out, size_t size)
    {
        if (!m_ok || size > size_t(m_end - m_p))
            return fail();
        // An empty column may have no storage at all (data() == nullptr), which memcpy forbids.
        if (size > 0)
            std::memcpy(out, m_p, size);
        m_p += size;
    }

private:
    const uint8_t *m_p;
    const uint8_t *m_end;
    bool m_ok = true;
};

// Checks every id, reference and row invariant of a decoded trace (storefilevalidate.cpp).
bool validateTrace(const Trace &trace);

} // namespace tracedesk::core::storefile
