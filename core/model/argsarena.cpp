#include "core/model/argsarena.h"

#include <cstring>
#include <limits>

namespace tracedesk::core {

int64_t ArgValue::asInt() const
{
    switch (type) {
    case ArgType::Int:
    case ArgType::Bool:
        return i;
    case ArgType::UInt:
        return u > uint64_t(std::numeric_limits<int64_t>::max()) ? std::numeric_limits<int64_t>::max()
                                                                  : int64_t(u);
    case ArgType::Double:
        if (d != d || d >= 9.2e18 || d <= -9.2e18)
            return kNoValue;
        return int64_t(d);
    default:
        return kNoValue;
    }
}

double ArgValue::asDouble() const
{
    switch (type) {
    case ArgType::Int:
    case ArgType::Bool:
        return double(i);
    case ArgType::UInt:
        return double(u);
    case ArgType::Double:
        return d;
    default:
        return 0.0;
    }
}

const uint8_t *ArgsArena::readVarint(const uint8_t *p, const uint8_t *end, uint64_t *out)
{
    uint64_t result = 0;
    for (int shift = 0; shift < 64 && p < end; shift += 7) {
        const uint8_t b = *p++;
        result |= uint64_t(b & 0x7f) << shift;
        if (!(b & 0x80)) {
            *out = result;
            return p;
        }
    }
    return nullptr;
}

void ArgsArena::writeVarint(std::vector<uint8_t> &out, uint64_t v)
{
    while (v >= 0x80) {
        out.push_back(uint8_t(v) | 0x80);
        v >>= 7;
    }
    out.push_back(uint8_t(v));
}

const uint8_t *ArgsArena::decode(const uint8_t *p, const uint8_t *end, ArgValue *v)
{
    uint64_t key = 0;
    if (!(p = readVarint(p, end, &key)) || p >= end)
        return nullptr;
    v->key = StringId(key);
    v->type = ArgType(*p++);
    uint64_t x = 0;
    switch (v->type) {
    case ArgType::Int:
        if (!(p = readVarint(p, end, &x)))
            return nullptr;
        v->i = int64_t(x >> 1) ^ -int64_t(x & 1);
        return p;
    case ArgType::UInt:
        p = readVarint(p, end, &v->u);
        return p;
    case ArgType::Bool:
        if (!(p = readVarint(p, end, &x)))
            return nullptr;
        v->i = x ? 1 : 0;
        return p;
    case ArgType::StringRef:
        if (!(p = readVarint(p, end, &x)))
            return nullptr;
        v->str = StringId(x);
        return p;
    case ArgType::Double:
        if (end - p < 8)
            return nullptr;
        std::memcpy(&v->d, p, 8);
        return p + 8;
    case ArgType::String:
    case ArgType::Bytes:
        if (!(p = readVarint(p, end, &x)) || uint64_t(end - p) < x)
            return nullptr;
        v->s = std::string_view(reinterpret_cast<const char *>(p), size_t(x));
        return p + x;
    }
    return nullptr;
}

bool ArgsArena::find(ArgsRef ref, StringId key, ArgValue *out) const
{
    bool found = false;
    forEach(ref, [&](const ArgValue &v) {
        if (!found && v.key == key) {
            *out = v;
            found = true;
        }
    });
    return found;
}

ArgsArena::Writer::Writer(ArgsArena &arena) : m_arena(arena), m_scratch(arena.m_scratch)
{
    m_scratch.clear();
}

void ArgsArena::Writer::add(StringId key, ArgType type, int64_t i, uint64_t u, double d,
                            std::string_view s)
{
    switch (type) {
    case ArgType::Int: addInt(key, i); break;
    case ArgType::UInt: addUInt(key, u); break;
    case ArgType::Double: addDouble(key, d); break;
    case ArgType::Bool: addBool(key, i != 0); break;
    case ArgType::StringRef: addStringRef(key, StringId(u)); break;
    case ArgType::String: addString(key, s); break;
    case ArgType::Bytes: addBytes(key, s); break;
    }
}

void ArgsArena::Writer::begin(StringId key, ArgType type)
{
    writeVarint(m_scratch, key);
    m_scratch.push_back(uint8_t(type));
    ++m_count;
}

void ArgsArena::Writer::addInt(StringId key, int64_t v)
{
    begin(key, ArgType::Int);
    writeVarint(m_scratch, (uint64_t(v) << 1) ^ uint64_t(v >> 63));
}

void ArgsArena::Writer::addUInt(StringId key, uint64_t v)
{
    begin(key, ArgType::UInt);
    writeVarint(m_scratch, v);
}

void ArgsArena::Writer::addDouble(StringId key, double v)
{
    begin(key, ArgType::Double);
    uint8_t raw[8];
    std::memcpy(raw, &v, 8);
    m_scratch.insert(m_scratch.end(), raw, raw + 8);
}

void ArgsArena::Writer::addBool(StringId key, bool v)
{
    begin(key, ArgType::Bool);
    writeVarint(m_scratch, v ? 1 : 0);
}

void ArgsArena::Writer::addString(StringId key, std::string_view v)
{
    begin(key, ArgType::String);
    writeVarint(m_scratch, v.size());
    m_scratch.insert(m_scratch.end(), v.begin(), v.end());
}

void ArgsArena::Writer::addStringRef(StringId key, StringId v)
{
    begin(key, ArgType::StringRef);
    writeVarint(m_scratch, v);
}

void ArgsArena::Writer::addBytes(StringId key, std::string_view v)
{
    begin(key, ArgType::Bytes);
    writeVarint(m_scratch, v.size());
    m_scratch.insert(m_scratch.end(), v.begin(), v.end());
}

ArgsRef ArgsArena::Writer::finish()
{
    if (m_count == 0)
        return kNoArgs;
    auto &bytes = m_arena.m_bytes;
    const size_t offset = bytes.size();
    if (offset + 1 >= std::numeric_limits<ArgsRef>::max()) {
        // Arena full (4 GiB per track): args beyond it are dropped, counted by the caller.
        m_scratch.clear();
        m_count = 0;
        return kNoArgs;
    }
    writeVarint(bytes, uint64_t(m_count));
    bytes.insert(bytes.end(), m_scratch.begin(), m_scratch.end());
    m_scratch.clear();
    m_count = 0;
    return ArgsRef(offset + 1);
}

} // namespace tracedesk::core
