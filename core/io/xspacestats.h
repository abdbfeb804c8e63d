#pragma once

// XStat decoding shared by the XSpace index pass (metadata and plane stats) and the line
// decoders (per-event stats).
//
// A plane's stat_metadata becomes a StatTable: metadata id -> interned stat name plus what the
// reader does with the stat besides keeping it as an arg (a typed side column, the XFlow
// encoding). Stats are identified by name only (FORMATS 1.1). Tables are built on one thread,
// then read concurrently by line workers without locks.

#include "core/io/protowire.h"
#include "core/model/argsarena.h"
#include "core/model/types.h"

#include <algorithm>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace tracedesk::core::xspace {

struct StatInfo
{
    StringId name = kEmptyString;   // stat_metadata[id].name; also the value of a ref_value
    int8_t side = -1;               // SideColumn fed by this stat, or -1
    bool stringSide = false;        // that column holds a StringId
    bool weakSide = false;          // tf_op_name: used only when tf_op is absent
    bool flow = false;              // XFlow-encoded flow endpoint
};

// Roles by stat name; name is what stat_metadata says.
StatInfo statRoleFor(std::string_view name);

// Metadata id -> value. Dense (a vector) when ids are small and compact, which is what producers
// hand out; a hash map otherwise (e.g. /host:metadata keyed by program id).
template<typename V>
class IdTable
{
public:
    void insert(int64_t id, const V &v) { m_pending.emplace_back(id, v); }

    // Freezes the table; later inserts for the same id win, as in a protobuf map.
    void seal()
    {
        int64_t maxId = -1;
        bool dense = true;
        for (const auto &[id, v] : m_pending) {
            dense = dense && id >= 0 && id < int64_t(4 * m_pending.size() + 4096);
            maxId = std::max(maxId, id);
        }
        if (dense) {
            m_dense.assign(size_t(maxId + 1), -1);
            for (const auto &[id, v] : m_pending)
                m_dense[size_t(id)] = store(v);
        } else {
            for (const auto &[id, v] : m_pending)
                m_sparse[id] = store(v);
        }
        m_isDense = dense;
        m_pending.clear();
        m_pending.shrink_to_fit();
    }

    const V *find(int64_t id) const
    {
        if (m_isDense) {
            if (id < 0 || uint64_t(id) >= m_dense.size() || m_dense[size_t(id)] < 0)
                return nullptr;
            return &m_values[size_t(m_dense[size_t(id)])];
        }
        auto it = m_sparse.find(id);
        return it == m_sparse.end() ? nullptr : &m_values[it->second];
    }

private:
    int32_t store(const V &v)
    {
        m_values.push_back(v);
        return int32_t(m_values.size() - 1);
    }
    std::vector<std::pair<int64_t, V>> m_pending;
    std::vector<V> m_values;
    std::vector<int32_t> m_dense;
    std::unordered_map<int64_t, int32_t> m_sparse;
    bool m_isDense = true;
};

using StatTable = IdTable<StatInfo>;

struct StatValue
{
    enum class Type : uint8_t { None, Double, UInt, Int, Str, Bytes, Ref };
    int64_t metadataId = 0;
    Type type = Type::None;
    uint64_t u = 0;          // UInt, Int (as bits), Ref (stat metadata id)
    double d = 0;
    std::string_view s;      // Str, Bytes

    // Integer reading of a numeric value (int or uint accepted alike); false for strings.
    bool integer(int64_t *out) const;
};

// Decodes one XStat payload. On corrupt input fails `parent` and returns false.
bool decodeStat(const WireField &field, StatValue *out, WireReader &parent);

// Up to one value per side column, with the XSpace precedence rules applied as values arrive.
struct SideValues
{
    uint32_t mask = 0;
    uint32_t weakMask = 0;
    int64_t value[kSideColumnCount] = {};

    void set(int column, int64_t v, bool weak)
    {
        const uint32_t bit = 1u << column;
        if (weak && (mask & bit) && !(weakMask & bit))
            return;
        mask |= bit;
        weakMask = weak ? (weakMask | bit) : (weakMask & ~bit);
        value[column] = v;
    }
};

struct StatOutcome
{
    bool unknownMetadata = false;   // stat (or its ref) names a metadata id the plane lacks
    bool hasFlow = false;
    uint64_t flow = 0;
};

// Where a stat's value is kept. Per-event integer stats that feed a side column (group_id,
// correlation_id, ...) and flow stats live only in the side column / the flow table: they are the
// bulk of per-event stats, and Trace::forEachArg shows side values again as args.
enum class StatStorage { Args, SideOnly };

// Appends a decoded stat to `args` and routes typed values into `side`. `intern` maps a string
// value to a StringId (callers pick the thread-safe flavour they need).
template<typename Intern>
StatOutcome applyStat(const StatValue &v, const StatTable &table, ArgsArena::Writer &args,
                      SideValues &side, Intern &&intern, StatStorage storage = StatStorage::Args)
{
    StatOutcome out;
    const StatInfo *info = table.find(v.metadataId);
    if (!info) {
        out.unknownMetadata = true;
        return out;
    }
    int64_t integer = 0;
    if (storage == StatStorage::SideOnly && v.integer(&integer)) {
        if (info->flow) {
            out.hasFlow = true;
            out.flow = uint64_t(integer);
            return out;
        }
        if (info->side >= 0 && !info->stringSide && !info->weakSide) {
            side.set(info->side, integer, false);
            return out;
        }
    }
    switch (v.type) {
    case StatValue::Type::None:
        return out;
    case StatValue::Type::Double:
        args.addDouble(info->name, v.d);
        break;
    case StatValue::Type::UInt:
        args.addUInt(info->name, v.u);
        break;
    case StatValue::Type::Int:
        args.addInt(info->name, int64_t(v.u));
        break;
    case StatValue::Type::Str:
        args.addString(info->name, v.s);
        break;
    case StatValue::Type::Bytes:
        args.addBytes(info->name, v.s);
        break;
    case StatValue::Type::Ref: {
        const StatInfo *ref = table.find(int64_t(v.u));
        if (!ref) {
            out.unknownMetadata = true;
            return out;
        }
        args.addStringRef(info->name, ref->name);
        if (info->side >= 0 && info->stringSide)
            side.set(info->side, ref->name, info->weakSide);
        return out;
    }
    }
    if (info->flow && v.integer(&integer)) {
        out.hasFlow = true;
        out.flow = uint64_t(integer);
    }
    if (info->side < 0)
        return out;
    if (info->stringSide) {
        if (v.type == StatValue::Type::Str)
            side.set(info->side, int64_t(intern(v.s)), info->weakSide);
    } else if (v.integer(&integer)) {
        side.set(info->side, integer, info->weakSide);
    }
    return out;
}

} // namespace tracedesk::core::xspace
