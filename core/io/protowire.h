#pragma once

// WireReader: a bounds-checked cursor over protobuf wire-format bytes.
//
// It owns nothing: it walks a byte range that must outlive it (usually a MappedFile). Each
// next() reads one field header and its whole value (varint, fixed 32/64-bit, or the extent of
// a length-delimited payload), so skipping an unknown field is simply not looking at it.
// Invariants: every read is checked against the end of the range; a failed reader stays failed
// and next() returns false from then on; every successful next() consumes at least one byte,
// so a walk always terminates. Errors are static strings plus the byte where they happened, so
// failing costs no allocation. Not synchronised; readers are cheap values, one per thread.

#include <bit>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string_view>

namespace tracedesk::core {

enum class WireType : uint8_t {
    Varint = 0,
    Fixed64 = 1,
    Len = 2,
    StartGroup = 3,
    EndGroup = 4,
    Fixed32 = 5,
};

struct WireField
{
    const uint8_t *at = nullptr;     // the field's first byte (for error positions)
    uint32_t number = 0;
    WireType type = WireType::Varint;
    // number and type as one value: a hot loop testing both reads this, as a test of the two
    // fields is merged by the compiler into one wide load that cannot take the two narrower
    // stores next() just made (a store-forwarding stall on every field).
    uint32_t key = 0;
    uint64_t value = 0;              // Varint, Fixed64 and Fixed32 payloads
    const uint8_t *data = nullptr;   // Len payload
    size_t size = 0;

    static constexpr uint32_t keyOf(uint32_t number, WireType type)
    {
        return number << 3 | uint32_t(type);
    }
    int64_t asInt64() const { return int64_t(value); }
    double asDouble() const { return std::bit_cast<double>(value); }
    std::string_view bytes() const { return {reinterpret_cast<const char *>(data), size}; }
};

// Decodes one varint at p. Returns the byte after it, or nullptr when the input ends inside the
// varint or the varint runs past 10 bytes (bits past 64 in the tenth byte are dropped, as
// protobuf does).
[[gnu::always_inline]] inline const uint8_t *decodeVarint(const uint8_t *p, const uint8_t *end,
                                                          uint64_t *out)
{
    if (p < end && *p < 0x80) {
        *out = *p;
        return p + 1;
    }
    // Two to eight bytes (times and durations in picoseconds, ids) from one 8-byte load: the
    // first byte without a continuation bit ends the varint, and three mask-and-shift steps
    // pack the 7-bit groups, instead of a branch per byte.
    if constexpr (std::endian::native == std::endian::little) {
        if (end - p >= 8) {
            uint64_t x;
            std::memcpy(&x, p, 8);
            const uint64_t stops = ~x & 0x8080808080808080ull;
            if (stops != 0) {
                const int bits = std::countr_zero(stops) + 1;   // through the last byte
                if (bits < 64)
                    x &= (uint64_t(1) << bits) - 1;
                x = ((x & 0x7f007f007f007f00ull) >> 1) | (x & 0x007f007f007f007full);
                x = ((x & 0x3fff00003fff0000ull) >> 2) | (x & 0x00003fff00003fffull);
                x = ((x & 0x0fffffff00000000ull) >> 4) | (x & 0x000000000fffffffull);
                *out = x;
                return p + bits / 8;
            }
        }
    }
    // One bound for the whole varint instead of a check per byte: at most 10 bytes.
    const ptrdiff_t avail = end - p;
    const int n = avail < 10 ? int(avail) : 10;
    uint64_t result = 0;
    for (int i = 0; i < n; ++i) {
        const uint8_t b = p[i];
        result |= uint64_t(b & 0x7f) << (7 * i);
        if (b < 0x80) {
            *out = result;
            return p + i + 1;
        }
    }
    return nullptr;
}

class WireReader
{
public:
    WireReader() = default;
    WireReader(const uint8_t *begin, const uint8_t *end) : m_p(begin), m_end(end) {}
    explicit WireReader(std::string_view bytes)
        : m_p(reinterpret_cast<const uint8_t *>(bytes.data())), m_end(m_p + bytes.size())
    {}
    // A reader over a length-delimited field's payload.
    static WireReader of(const WireField &f) { return WireReader(f.data, f.data + f.size); }

    bool atEnd() const { return m_p >= m_end; }
    const uint8_t *position() const { return m_p; }
    const uint8_t *end() const { return m_end; }

    // Reads the next field. Returns false at the end of the range or on corrupt input; tell the
    // two apart with failed(). Inlined: it is the inner loop of every decoder.
    [[gnu::always_inline]] inline bool next(WireField *f);

    bool failed() const { return m_error != nullptr; }
    const char *error() const { return m_error; }
    const uint8_t *errorAt() const { return m_errorAt; }

    // Marks the reader failed (first error wins) and returns false, so callers can write
    // `return r.fail(...)`. Semantic checks (a known field with the wrong wire type) use it too.
    bool fail(const char *what, const uint8_t *at)
    {
        if (!m_error) {
            m_error = what;
            m_errorAt = at;
        }
        m_p = m_end;
        return false;
    }
    // Adopts a nested reader's failure.
    bool fail(const WireReader &inner) { return fail(inner.error(), inner.errorAt()); }

private:
    const uint8_t *m_p = nullptr;
    const uint8_t *m_end = nullptr;
    const char *m_error = nullptr;
    const uint8_t *m_errorAt = nullptr;
};

bool WireReader::next(WireField *f)
{
    if (m_p >= m_end)
        return false;
    const uint8_t *start = m_p;
    uint64_t tag = 0;
    const uint8_t *p = decodeVarint(m_p, m_end, &tag);
    if (!p)
        return fail("truncated or overlong field tag", start);
    if (tag >> 3 == 0)
        return fail("field number 0", start);
    if (tag >> 3 > 0x1fffffff)
        return fail("field number out of range", start);
    f->at = start;
    f->number = uint32_t(tag >> 3);
    f->type = WireType(tag & 7);
    f->key = uint32_t(tag);
    switch (f->type) {
    case WireType::Varint:
        p = decodeVarint(p, m_end, &f->value);
        if (!p)
            return fail("truncated or overlong varint", start);
        break;
    case WireType::Fixed64:
        if (m_end - p < 8)
            return fail("truncated 64-bit value", start);
        f->value = uint64_t(p[0]) | uint64_t(p[1]) << 8 | uint64_t(p[2]) << 16
                   | uint64_t(p[3]) << 24 | uint64_t(p[4]) << 32 | uint64_t(p[5]) << 40
                   | uint64_t(p[6]) << 48 | uint64_t(p[7]) << 56;
        p += 8;
        break;
    case WireType::Fixed32:
        if (m_end - p < 4)
            return fail("truncated 32-bit value", start);
        f->value = uint64_t(p[0]) | uint64_t(p[1]) << 8 | uint64_t(p[2]) << 16
                   | uint64_t(p[3]) << 24;
        p += 4;
        break;
    case WireType::Len: {
        uint64_t len = 0;
        p = decodeVarint(p, m_end, &len);
        if (!p)
            return fail("truncated or overlong length", start);
        if (len > uint64_t(m_end - p))
            return fail("length past the end of the enclosing message", start);
        f->data = p;
        f->size = size_t(len);
        p += len;
        break;
    }
    case WireType::StartGroup:
    case WireType::EndGroup:
        return fail("group wire type, which XSpace never uses", start);
    default:
        return fail("invalid wire type", start);
    }
    m_p = p;
    return true;
}

// Calls f(uint64_t) for each varint of a repeated scalar field, accepting both the packed form
// (one Len field) and the unpacked form (one Varint field per value). Returns false on corrupt
// input or another wire type.
template<typename F>
bool forEachVarint(const WireField &field, F &&f)
{
    if (field.type == WireType::Varint) {
        f(field.value);
        return true;
    }
    if (field.type != WireType::Len)
        return false;
    const uint8_t *p = field.data;
    const uint8_t *end = field.data + field.size;
    while (p < end) {
        uint64_t v = 0;
        p = decodeVarint(p, end, &v);
        if (!p)
            return false;
        f(v);
    }
    return true;
}

} // namespace tracedesk::core
