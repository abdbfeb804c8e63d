#include "core/analysis/hloopinfo.h"

#include <algorithm>
#include <array>
#include <unordered_map>

namespace tracedesk::core::analysis {

namespace {

std::string primitiveName(int type)
{
    static constexpr std::array<const char *, 21> kNames = {
        "invalid", "pred", "s8", "s16", "s32", "s64", "u8", "u16", "u32", "u64", "f16",
        "f32", "f64", "tuple", "opaque", "c64", "bf16", "token", "c128", "f8e5m2", "f8e4m3fn"};
    return type >= 0 && size_t(type) < kNames.size() ? kNames[size_t(type)]
                                                     : "t" + std::to_string(type);
}

const xla::HloComputationProto *computationById(const xla::HloModuleProto &module, int64_t id)
{
    for (const auto &c : module.computations()) {
        if (c.id() == id)
            return &c;
    }
    return nullptr;
}

std::string expressionOf(const xla::HloInstructionProto &inst,
                         const std::unordered_map<int64_t, const xla::HloInstructionProto *> &ids)
{
    std::string text = "%" + inst.name() + " = " + hloShapeText(inst.shape()) + " "
                       + inst.opcode() + "(";
    for (int i = 0; i < inst.operand_ids_size(); ++i) {
        if (i > 0)
            text += ", ";
        auto it = ids.find(inst.operand_ids(i));
        text += it == ids.end() ? std::string("?")
                                : hloShapeText(it->second->shape()) + " %" + it->second->name();
    }
    text += ")";
    if (!inst.fusion_kind().empty())
        text += ", kind=" + inst.fusion_kind();
    return text;
}

} // namespace

std::string hloShapeText(const xla::ShapeProto &shape)
{
    if (shape.element_type() == xla::TUPLE) {
        std::string text = "(";
        for (int i = 0; i < shape.tuple_shapes_size(); ++i)
            text += (i ? ", " : "") + hloShapeText(shape.tuple_shapes(i));
        return text + ")";
    }
    std::string text = primitiveName(shape.element_type()) + "[";
    for (int i = 0; i < shape.dimensions_size(); ++i)
        text += (i ? "," : "") + std::to_string(shape.dimensions(i));
    text += "]";
    if (shape.has_layout() && shape.layout().minor_to_major_size() > 0) {
        text += "{";
        for (int i = 0; i < shape.layout().minor_to_major_size(); ++i)
            text += (i ? "," : "") + std::to_string(shape.layout().minor_to_major(i));
        text += "}";
    }
    return text;
}

std::string hloSourceLine(const xla::OpMetadata &metadata)
{
    if (metadata.source_file().empty())
        return {};
    return metadata.source_file() + ":" + std::to_string(metadata.source_line());
}

std::string hloCategory(const xla::HloInstructionProto &inst)
{
    const std::string &op = inst.opcode();
    if (op == "fusion") {
        std::string kind = inst.fusion_kind();
        if (kind.starts_with("k"))
            kind.erase(0, 1);
        std::transform(kind.begin(), kind.end(), kind.begin(),
                       [](unsigned char c) { return char(std::tolower(c)); });
        return kind.empty() ? std::string("fusion") : kind + " fusion";
    }
    static constexpr std::array<std::string_view, 10> kFormatting = {
        "copy", "transpose", "reshape", "bitcast", "broadcast", "slice", "concatenate",
        "pad", "dynamic-slice", "dynamic-update-slice"};
    if (std::find(kFormatting.begin(), kFormatting.end(), op) != kFormatting.end())
        return "data formatting";
    if (op == "dot")
        return "matmul";
    return op;
}

HloLookup lookupHloOp(const hlo::HloModuleIndex &index, int64_t programId, std::string_view op,
                      HloOpInfo *out)
{
    const hlo::HloModuleIndex::Module *module = index.byProgramId(uint64_t(programId));
    if (!module)
        return HloLookup::NoModule;
    const xla::HloInstructionProto *inst = index.instruction(uint64_t(programId), op);
    if (!inst)
        return HloLookup::NotInModule;
    const xla::HloModuleProto &proto = module->proto.hlo_module();
    std::unordered_map<int64_t, const xla::HloInstructionProto *> ids;
    for (const auto &c : proto.computations()) {
        for (const auto &i : c.instructions())
            ids.emplace(i.id(), &i);
    }
    out->category = hloCategory(*inst);
    out->expression = expressionOf(*inst, ids);
    out->provenance = inst->metadata().op_name();
    out->deduplicatedName = inst->metadata().deduplicated_name();
    out->layout = hloShapeText(inst->shape());
    out->source = hloSourceLine(inst->metadata());
    if (inst->opcode() == "fusion") {
        for (int64_t cid : inst->called_computation_ids()) {
            const xla::HloComputationProto *c = computationById(proto, cid);
            if (!c)
                continue;
            for (const auto &member : c->instructions()) {
                if (member.opcode() == "parameter")
                    continue;
                OpMetrics child;
                child.name = member.name();
                child.category = hloCategory(member);
                child.longName = expressionOf(member, ids);
                child.layout = hloShapeText(member.shape());
                child.provenance = member.metadata().op_name();
                child.source = hloSourceLine(member.metadata());
                out->fusionChildren.push_back(std::move(child));
            }
        }
    }
    return HloLookup::Found;
}

} // namespace tracedesk::core::analysis
