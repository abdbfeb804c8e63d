#pragma once

// ArgsArena: the stats / args of many events packed into one byte vector.
//
// One arena per track (so tracks can be built in parallel) plus one per trace for event-kind
// and plane stats. A record list is: varint count, then per arg: varint key (StringId),
// one type byte, and the value (zig-zag varint for Int, varint for UInt/StringRef/Bool,
// 8 raw bytes for Double, varint length + bytes for String/Bytes). A reference is
// offset + 1, so 0 means "no args". Appending is single-threaded, through one Writer at a time
// (writers share the arena's scratch buffer); reading is lock-free.

#include "core/model/types.h"

#include <cstdint>
#include <string_view>
#include <vector>

namespace tracedesk::core {

enum class ArgType : uint8_t { Int, UInt, Double, String, StringRef, Bytes, Bool };

struct ArgValue
{
    StringId key = kEmptyString;
    ArgType type = ArgType::Int;
    int64_t i = 0;          // Int, Bool
    uint64_t u = 0;         // UInt
    double d = 0;           // Double
    std::string_view s;     // String, Bytes (points into the arena)
    StringId str = 0;       // StringRef

    // Integer view of Int/UInt/Bool (and Double truncated); kNoValue for strings.
    int64_t asInt() const;
    double asDouble() const;
};

class ArgsArena
{
public:
    class Writer
    {
    public:
        explicit Writer(ArgsArena &arena);
        void addInt(StringId key, int64_t v);
        void addUInt(StringId key, uint64_t v);
        void addDouble(StringId key, double v);
        void addBool(StringId key, bool v);
        void addString(StringId key, std::string_view v);
        void addStringRef(StringId key, StringId v);
        void addBytes(StringId key, std::string_view v);
        // Any type: `i` for Int/Bool, `u` for UInt (and the StringId of a StringRef), `d` for
        // Double, `s` for String/Bytes.
        void add(StringId key, ArgType type, int64_t i, uint64_t u, double d, std::string_view s);
        int count() const { return m_count; }
        // Ends the current record list: returns its reference, or kNoArgs when nothing was added.
        // The writer can then start the next record list.
        ArgsRef finish();

    private:
        void begin(StringId key, ArgType type);
        ArgsArena &m_arena;
        std::vector<uint8_t> &m_scratch;   // the arena's, so writers allocate nothing per record
        int m_count = 0;
    };

    // Calls f(const ArgValue &) for each arg of ref, in insertion order.
    template<typename F>
    void forEach(ArgsRef ref, F &&f) const
    {
        if (ref == kNoArgs || ref > m_bytes.size())
            return;
        const uint8_t *p = m_bytes.data() + (ref - 1);
        const uint8_t *end = m_bytes.data() + m_bytes.size();
        uint64_t n = 0;
        p = readVarint(p, end, &n);
        for (uint64_t k = 0; k < n && p; ++k) {
            ArgValue v;
            p = decode(p, end, &v);
            if (!p)
                return;
            f(static_cast<const ArgValue &>(v));
        }
    }

    // First arg with this key, if any.
    bool find(ArgsRef ref, StringId key, ArgValue *out) const;

    size_t size() const { return m_bytes.size(); }
    const std::vector<uint8_t> &bytes() const { return m_bytes; }
    std::vector<uint8_t> &mutableBytes() { return m_bytes; }
    void shrinkToFit() { m_bytes.shrink_to_fit(); }

    static const uint8_t *readVarint(const uint8_t *p, const uint8_t *end, uint64_t *out);
    static void writeVarint(std::vector<uint8_t> &out, uint64_t v);

private:
    static const uint8_t *decode(const uint8_t *p, const uint8_t *end, ArgValue *v);
    std::vector<uint8_t> m_bytes;
    std::vector<uint8_t> m_scratch;
};

} // namespace tracedesk::core
