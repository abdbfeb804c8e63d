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

namespace {

// XStat's integer value members: uint64_value (3), int64_value (4) and ref_value (7).
bool isIntegerValue(uint32_t number)
{
    return number == 3 || number == 4 || number == 7;
}

StatValue::Type integerValueType(uint32_t number)
{
    using Type = StatValue::Type;
    return number == 3 ? Type::UInt : number == 4 ? Type::Int : Type::Ref;
}

} // namespace

bool decodeStat(const WireField &field, StatValue *out, WireReader &parent)
{
    if (field.type != WireType::Len)
        return parent.fail("wrong wire type for a stats entry", field.at);
    // Most stats of most events are `metadata_id` then one integer value, both varints: that
    // shape is read straight from its bytes (two one-byte tags, then the end), anything else by
    // the field loop below, which reads that shape the same way.
    if (field.size >= 4 && field.data[0] == WireField::keyOf(1, WireType::Varint)) {
        const uint8_t *end = field.data + field.size;
        uint64_t id = 0;
        const uint8_t *p = decodeVarint(field.data + 1, end, &id);
        if (p && end - p >= 2 && (*p & 7) == uint8_t(WireType::Varint)
            && isIntegerValue(*p >> 3)) {
            const uint32_t number = *p >> 3;
            uint64_t value = 0;
            if (decodeVarint(p + 1, end, &value) == end) {
                *out = StatValue();
                out->metadataId = int64_t(id);
                out->type = integerValueType(number);
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
            out->type = integerValueType(f.number);
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
