// HLO cost estimate; rules in hlocost.h.

#include "core/analysis/hlocost.h"

#include "core/analysis/fusedattentioncost.h"

#include "core/analysis/memoryviewer.h"

#include <simdjson.h>

#include <set>
#include <string_view>
#include <unordered_map>

namespace tracedesk::core::analysis {

namespace {

using Instruction = xla::HloInstructionProto;

double elements(const xla::ShapeProto &shape)
{
    if (shape.element_type() == xla::TUPLE) {
        double n = 0;
        for (const auto &part : shape.tuple_shapes())
            n += elements(part);
        return n;
    }
    double n = 1;
    for (int64_t d : shape.dimensions())
        n *= double(std::max<int64_t>(d, 0));
    return n;
}

double bytesOf(const xla::ShapeProto &shape)
{
    if (shape.element_type() == xla::TUPLE) {
        double n = 0;
        for (const auto &part : shape.tuple_shapes())
            n += bytesOf(part);
        return n;
    }
    return double(unpaddedShapeBytes(shape));
}

// A custom call's result is often (output, workspace): the output is the first part.
const xla::ShapeProto &firstArray(const xla::ShapeProto &shape)
{
    return shape.element_type() == xla::TUPLE && shape.tuple_shapes_size() > 0
               ? firstArray(shape.tuple_shapes(0))
               : shape;
}

double dimensionProduct(const xla::ShapeProto &shape, const std::vector<int64_t> &dims)
{
    double n = 1;
    for (int64_t d : dims) {
        if (d >= 0 && d < shape.dimensions_size())
            n *= double(shape.dimensions(int(d)));
    }
    return n;
}

bool isElementwise(std::string_view opcode)
{
    static const std::set<std::string_view> kOps = {
        "add", "subtract", "multiply", "divide", "remainder", "maximum", "minimum", "power",
        "atan2", "negate", "abs", "sign", "exponential", "exponential-minus-one", "log",
        "log-plus-one", "logistic", "tanh", "sqrt", "rsqrt", "cbrt", "sine", "cosine", "tan",
        "floor", "ceil", "round-nearest-afz", "round-nearest-even", "compare", "select",
        "clamp", "and", "or", "xor", "not", "erf", "is-finite", "real", "imag"};
    return kOps.count(opcode) > 0;
}

// The lhs contracting dimensions a cuBLAS custom call records in its backend config.
std::vector<int64_t> gemmContracting(const std::string &config)
{
    std::vector<int64_t> out;
    simdjson::dom::parser parser;
    simdjson::dom::element doc;
    if (parser.parse(config).get(doc) != simdjson::SUCCESS)
        return out;
    simdjson::dom::array dims;
    if (doc.at_pointer("/gemm_backend_config/dot_dimension_numbers/lhs_contracting_dimensions")
            .get_array()
            .get(dims)
        != simdjson::SUCCESS)
        return out;
    for (simdjson::dom::element d : dims) {
        std::string_view text;
        int64_t value = 0;
        if (d.get_string().get(text) == simdjson::SUCCESS)
            value = std::strtoll(std::string(text).c_str(), nullptr, 10);
        else if (d.get_int64().get(value) != simdjson::SUCCESS)
            continue;
        out.push_back(value);
    }
    return out;
}

} // namespace

class HloCostModel::Estimator
{
public:
    explicit Estimator(const xla::HloModuleProto &module)
    {
        for (const auto &c : module.computations()) {
            m_computations.emplace(c.id(), &c);
            for (const auto &i : c.instructions())
                m_instructions.emplace(i.id(), &i);
        }
    }

    double flops(const Instruction &inst, int depth = 0) const
    {
        const std::string &op = inst.opcode();
        const xla::ShapeProto &out = firstArray(inst.shape());
        if (op == "fusion") {
            double sum = 0;
            if (depth > 8)   // fusions nest rarely; a cycle would be a broken module
                return sum;
            for (int64_t id : inst.called_computation_ids()) {
                auto c = m_computations.find(id);
                if (c == m_computations.end())
                    continue;
                for (const auto &member : c->second->instructions())
                    sum += flops(member, depth + 1);
            }
            return sum;
        }
        if (op == "dot") {
            const xla::ShapeProto *lhs = operandShape(inst, 0);
            if (!lhs)
                return 0;
            const auto &dims = inst.dot_dimension_numbers().lhs_contracting_dimensions();
            return 2 * elements(out) * dimensionProduct(*lhs, {dims.begin(), dims.end()});
        }
        const std::string &target = inst.custom_call_target();
        if (op == "convolution" || (op == "custom-call" && target.starts_with("__cudnn$conv"))) {
            const xla::ShapeProto *kernel = operandShape(inst, 1);
            if (!kernel)
                return 0;
            const int64_t of = inst.convolution_dimension_numbers().kernel_output_feature_dimension();
            const double outFeatures =
                of >= 0 && of < kernel->dimensions_size() ? double(kernel->dimensions(int(of))) : 0;
            return outFeatures > 0 ? 2 * elements(out) * elements(*kernel) / outFeatures : 0;
        }
        if (op == "custom-call"
            && (target.starts_with("__cublas$gemm") || target.starts_with("__cublas$lt$matmul"))) {
            const xla::ShapeProto *lhs = operandShape(inst, 0);
            if (!lhs)
                return 0;
            return 2 * elements(out) * dimensionProduct(*lhs, gemmContracting(inst.backend_config()));
        }
        if (op == "custom-call") {
            if (const auto f = fusedAttentionFlops(target, inst.backend_config()))
                return *f;
        }
        if (op == "reduce" || op == "reduce-window") {
            const xla::ShapeProto *in = operandShape(inst, 0);
            return in ? elements(*in) : 0;
        }
        return isElementwise(op) ? elements(out) : 0;
    }

    double bytes(const Instruction &inst) const
    {
        double sum = bytesOf(inst.shape());
        for (int i = 0; i < inst.operand_ids_size(); ++i) {
            if (const xla::ShapeProto *s = operandShape(inst, i))
                sum += bytesOf(*s);
        }
        return sum;
    }

private:
    const xla::ShapeProto *operandShape(const Instruction &inst, int i) const
    {
        if (i >= inst.operand_ids_size())
            return nullptr;
        auto it = m_instructions.find(inst.operand_ids(i));
        return it == m_instructions.end() ? nullptr : &it->second->shape();
    }

    std::unordered_map<int64_t, const xla::HloComputationProto *> m_computations;
    std::unordered_map<int64_t, const Instruction *> m_instructions;
};

HloCostModel::HloCostModel(const xla::HloModuleProto &module)
    : m_estimator(std::make_unique<Estimator>(module))
{
}

HloCostModel::~HloCostModel() = default;

HloCost HloCostModel::cost(const xla::HloInstructionProto &inst) const
{
    return {m_estimator->flops(inst), m_estimator->bytes(inst)};
}

} // namespace tracedesk::core::analysis
