#include "core/io/xspacestats.h"

#include <cmath>

namespace tracedesk::core::xspace {

StatInfo statRoleFor(std::string_view name)
{
    struct Role
    {
        std::string_view name;
        SideColumn column;
        bool isString;
        bool weak;
    };
    static constexpr Role kRoles[] = {
        {"hlo_op", SideColumn::HloOp, true, false},
        {"hlo_module", SideColumn::HloModule, true, false},
        {"program_id", SideColumn::ProgramId, false, false},
        {"flops", SideColumn::Flops, false, false},
        {"bytes_accessed", SideColumn::BytesAccessed, false, false},
        {"tf_op", SideColumn::FrameworkOp, true, false},
        {"tf_op_name", SideColumn::FrameworkOp, true, true},
        {"group_id", SideColumn::GroupId, false, false},
        {"step_num", SideColumn::StepNum, false, false},
        {"correlation_id", SideColumn::CorrelationId, false, false},
    };
    StatInfo info;
    for (const Role &role : kRoles) {
        if (role.name == name) {
            info.side = int8_t(role.column);
            info.stringSide = role.isString;
            info.weakSide = role.weak;
            return info;
        }
    }
    info.flow = name == "flow";
    return info;
}

bool StatValue::integer(int64_t *out) const
{
    switch (type) {
    case Type::UInt:
    case Type::Int:
        *out = int64_t(u);
        return true;
    case Type::Double:
        if (!std::isfinite(d) || std::fabs(d) >= 9.2e18)
            return false;
        *out = int64_t(d);
        return true;
    default:
        return false;
    }
}

bool decodeStat(const WireField &field, StatValue *out, WireReader &parent)
{
    if (field.type != WireType::Len)
        return parent.fail("wrong wire type for a stats entry", field.at);
    // Most stats of most events are `metadata_id` then one integer value, both varints: that
    // shape is read straight from its bytes (tags 0x08, then 0x18, 0x20 or 0x38, then the
    // end), anything else by the field loop below, which reads that shape the same way.
    if (field.size >= 4 && field.data[0] == 0x08) {
        const uint8_t *end = field.data + field.size;
        uint64_t id = 0;
        const uint8_t *p = decodeVarint(field.data + 1, end, &id);
        if (p && end - p >= 2 && (*p == 0x18 || *p == 0x20 || *p == 0x38)) {
            const uint8_t tag = *p;
            uint64_t value = 0;
            if (decodeVarint(p + 1, end, &value) == end) {
                using Type = StatValue::Type;
                *out = StatValue();
                out->metadataId = int64_t(id);
                out->type = tag == 0x18 ? Type::UInt : tag == 0x20 ? Type::Int : Type::Ref;
                out->u = value;
                return true;
            }
        }
    }
    WireReader r = WireReader::of(field);
    WireField f;
    *out = StatValue();
    // The value is a oneof: the last member on the wire wins.
    while (r.next(&f)) {
        using Type = StatValue::Type;
        switch (f.number) {
        case 1:
            if (f.type != WireType::Varint)
                return parent.fail("wrong wire type for XStat.metadata_id", f.at);
            out->metadataId = f.asInt64();
            break;
        case 2:
            if (f.type != WireType::Fixed64)
                return parent.fail("wrong wire type for XStat.double_value", f.at);
            out->type = Type::Double;
            out->d = f.asDouble();
            break;
        case 3:
        case 4:
        case 7:
            if (f.type != WireType::Varint)
                return parent.fail("wrong wire type for an XStat integer value", f.at);
            out->type = f.number == 3 ? Type::UInt : f.number == 4 ? Type::Int : Type::Ref;
            out->u = f.value;
            break;
        case 5:
        case 6:
            if (f.type != WireType::Len)
                return parent.fail("wrong wire type for an XStat string value", f.at);
            out->type = f.number == 5 ? Type::Str : Type::Bytes;
            out->s = f.bytes();
            break;
        default:
            break;
        }
    }
    if (r.failed())
        return parent.fail(r);
    return true;
}

} // namespace tracedesk::core::xspace
