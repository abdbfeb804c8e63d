#include "core/analysis/opnames.h"

#include <algorithm>
#include <array>
#include <charconv>
#include <cctype>

namespace tracedesk::core::analysis {

namespace {

bool startsWithNoCase(std::string_view text, std::string_view prefix)
{
    if (text.size() < prefix.size())
        return false;
    for (size_t i = 0; i < prefix.size(); ++i) {
        if (std::tolower(uint8_t(text[i])) != std::tolower(uint8_t(prefix[i])))
            return false;
    }
    return true;
}

bool isTfType(std::string_view t)
{
    if (t.empty() || !(std::isupper(uint8_t(t[0])) || t[0] == '_'))
        return false;
    return std::all_of(t.begin(), t.end(),
                       [](char c) { return std::isalnum(uint8_t(c)) || c == '_'; });
}

bool isJaxType(std::string_view t)
{
    const size_t bracket = t.find('[');
    std::string_view head = t.substr(0, bracket);
    if (bracket != std::string_view::npos && t.back() != ']')
        return false;
    if (head.empty() || !(std::islower(uint8_t(head[0])) || head[0] == '_'))
        return false;
    return std::all_of(head.begin(), head.end(), [](char c) {
        return std::islower(uint8_t(c)) || std::isdigit(uint8_t(c)) || c == '_';
    });
}

uint32_t toU32(std::string_view s)
{
    uint32_t v = 0;
    std::from_chars(s.data(), s.data() + s.size(), v);
    return v;
}

void parseDims(std::string_view s, uint32_t *out)
{
    for (int i = 0; i < 3 && !s.empty(); ++i) {
        const size_t comma = s.find(',');
        out[i] = toU32(s.substr(0, comma));
        if (comma == std::string_view::npos)
            break;
        s.remove_prefix(comma + 1);
    }
}

} // namespace

std::string_view stripTraceMeMetadata(std::string_view text)
{
    const size_t hash = text.find('#');
    return hash == std::string_view::npos ? text : text.substr(0, hash);
}

FrameworkOp parseFrameworkOp(std::string_view fullName)
{
    FrameworkOp op;
    fullName = stripTraceMeMetadata(fullName);
    op.name = fullName;
    if (fullName.starts_with("Iterator::")) {
        op.kind = FrameworkOpKind::Dataset;
        op.type = "Dataset";
        return op;
    }
    const size_t colon = fullName.rfind(':');
    if (colon == std::string_view::npos) {
        static constexpr std::array<std::string_view, 4> kMemcpy = {"MemcpyHToD", "MemcpyDToH",
                                                                    "MemcpyDToD", "MemcpyHToH"};
        for (std::string_view m : kMemcpy) {
            if (startsWithNoCase(fullName, m)) {
                op.kind = FrameworkOpKind::Memcpy;
                op.type = m;
                return op;
            }
        }
        return op;
    }
    const std::string_view type = fullName.substr(colon + 1);
    // `a::b` scopes are not a type separator.
    if (colon > 0 && fullName[colon - 1] == ':')
        return op;
    op.name = fullName.substr(0, colon);
    op.type = type;
    if (isTfType(type))
        op.kind = FrameworkOpKind::Tf;
    else if (isJaxType(type))
        op.kind = FrameworkOpKind::Jax;
    else
        op.name = fullName;
    if (op.kind == FrameworkOpKind::Unknown)
        op.type = {};
    return op;
}

namespace {

// Full matches of the patterns in tsl tf_op_utils.cc.
bool isTfOpNameText(std::string_view n)   // [A-Za-z0-9.][A-Za-z0-9_.\/>-]*
{
    if (n.empty() || !(std::isalnum(uint8_t(n[0])) || n[0] == '.'))
        return false;
    return std::all_of(n.begin() + 1, n.end(), [](char c) {
        return std::isalnum(uint8_t(c)) || c == '_' || c == '.' || c == '/' || c == '\\'
               || c == '>' || c == '-';
    });
}

bool isTfOpTypeText(std::string_view t)   // [A-Z_][a-zA-Z0-9_]*
{
    if (t.empty() || !(std::isupper(uint8_t(t[0])) || t[0] == '_'))
        return false;
    return std::all_of(t.begin() + 1, t.end(),
                       [](char c) { return std::isalnum(uint8_t(c)) || c == '_'; });
}

bool isJaxOpTypeText(std::string_view t)   // [a-z_][a-z0-9_]*(\[.*\])?
{
    if (t.empty() || !(std::islower(uint8_t(t[0])) || t[0] == '_'))
        return false;
    size_t i = 1;
    while (i < t.size() && (std::islower(uint8_t(t[i])) || std::isdigit(uint8_t(t[i]))
                            || t[i] == '_'))
        ++i;
    if (i == t.size())
        return true;
    const std::string_view rest = t.substr(i);
    return rest.size() >= 2 && rest.front() == '[' && rest.back() == ']'
           && rest.find('\n') == std::string_view::npos;
}

// DeriveOpType: the last name scope without a numeric `_N` suffix.
std::string_view deriveOpType(std::string_view fullName)
{
    const size_t slash = fullName.rfind('/');
    const std::string_view op = slash == std::string_view::npos ? fullName : fullName.substr(slash + 1);
    const size_t underscore = op.rfind('_');
    if (underscore == std::string_view::npos)
        return op;
    std::string_view suffix = op.substr(underscore + 1);
    if (!suffix.empty() && (suffix[0] == '+' || suffix[0] == '-'))
        suffix.remove_prefix(1);
    const bool integer = !suffix.empty()
                         && std::all_of(suffix.begin(), suffix.end(),
                                        [](char c) { return std::isdigit(uint8_t(c)); });
    return integer ? op.substr(0, underscore) : op;
}

} // namespace

std::string_view tfOpName(std::string_view tfOpFullname)
{
    const std::string_view full = stripTraceMeMetadata(tfOpFullname);
    const size_t colon = full.find(':');
    if (colon == std::string_view::npos)
        return full;   // a bare name, or a memcpy op: named by the whole value
    const std::string_view name = full.substr(0, colon);
    const std::string_view type = full.substr(colon + 1);
    if (name == "Iterator")
        return full;   // dataset ops keep their whole `Iterator::...` name
    if (isTfOpNameText(name) && isTfOpTypeText(type))
        return name;
    if (isJaxOpTypeText(type.empty() ? deriveOpType(name) : type) || type.empty())
        return name;
    return full;
}

std::string_view innermostHloOp(std::string_view hloOp)
{
    const size_t sep = hloOp.rfind("::");
    return sep == std::string_view::npos ? hloOp : hloOp.substr(sep + 2);
}

std::string_view hloNameStem(std::string_view hloOp)
{
    size_t end = hloOp.size();
    while (end > 0 && std::isdigit(uint8_t(hloOp[end - 1])))
        --end;
    if (end > 0 && end < hloOp.size() && hloOp[end - 1] == '.')
        return hloOp.substr(0, end - 1);
    return hloOp;
}

bool parseModuleName(std::string_view text, std::string_view *module, int64_t *programId)
{
    if (text.size() < 3 || text.back() != ')')
        return false;
    const size_t open = text.rfind('(');
    if (open == std::string_view::npos || open + 2 > text.size() - 1)
        return false;
    const std::string_view digits = text.substr(open + 1, text.size() - open - 2);
    uint64_t id = 0;
    const auto r = std::from_chars(digits.data(), digits.data() + digits.size(), id);
    if (r.ec != std::errc() || r.ptr != digits.data() + digits.size())
        return false;
    *module = text.substr(0, open);
    *programId = int64_t(id);
    return true;
}

KernelLaunchParams parseKernelDetails(std::string_view details)
{
    KernelLaunchParams p;
    while (!details.empty()) {
        const size_t start = details.find_first_not_of(" \n\t");
        if (start == std::string_view::npos)
            break;
        details.remove_prefix(start);
        const size_t end = details.find_first_of(" \n\t");
        const std::string_view token = details.substr(0, end);
        details.remove_prefix(end == std::string_view::npos ? details.size() : end);
        const size_t colon = token.find(':');
        if (colon == std::string_view::npos)
            continue;
        const std::string_view key = token.substr(0, colon);
        const std::string_view value = token.substr(colon + 1);
        if (key == "regs")
            p.registers = toU32(value);
        else if (key == "static_shared")
            p.staticShared = toU32(value);
        else if (key == "dynamic_shared")
            p.dynamicShared = toU32(value);
        else if (key == "block")
            parseDims(value, p.block);
        else if (key == "grid")
            parseDims(value, p.grid);
        else if (key == "occ_pct")
            std::from_chars(value.data(), value.data() + value.size(), p.occupancyPct);
    }
    return p;
}

bool isKernelUsingTensorCore(std::string_view kernelName)
{
    // Instruction-shape tags of NVIDIA tensor-core kernels (cuBLAS / cuDNN / CUTLASS naming)
    // and AMD matrix-core (MFMA) tile tags, matched case-insensitively.
    static constexpr std::array<std::string_view, 16> kPatterns = {
        "h884", "h1688", "h16816", "s884", "s1688", "s16816", "i8816", "i16832", "hmma", "imma",
        "xmma", "wmma", "tensorop", "16x8x16", "_mi16x16", "_mi32x32"};
    std::string lower(kernelName);
    std::transform(lower.begin(), lower.end(), lower.begin(),
                   [](unsigned char c) { return char(std::tolower(c)); });
    return std::any_of(kPatterns.begin(), kPatterns.end(), [&](std::string_view p) {
        return lower.find(p) != std::string::npos;
    });
}

bool isOpTensorCoreEligible(std::string_view opName)
{
    static constexpr std::array<std::string_view, 12> kSuffixes = {
        "Conv2D", "Conv2DBackpropFilter", "Conv2DBackpropInput", "Conv3D",
        "DepthwiseConv2dNative", "DepthwiseConv2dNativeBackpropFilter",
        "DepthwiseConv2dNativeBackpropInput", "/MatMul", "FusedMatMul", "/CudnnRNN", "XlaDot",
        "XlaDotV2"};
    static constexpr std::array<std::string_view, 4> kInfixes = {
        "BatchMatMul", "CudnnRNNV", "CudnnRNNForward", "CudnnRNNBackprop"};
    return std::any_of(kSuffixes.begin(), kSuffixes.end(),
                       [&](std::string_view s) { return opName.ends_with(s); })
           || std::any_of(kInfixes.begin(), kInfixes.end(), [&](std::string_view s) {
                  return opName.find(s) != std::string_view::npos;
              });
}

bool isEinsumTensorCoreEligible(std::string_view equation)
{
    const size_t arrow = equation.find("->");
    if (equation.empty() || arrow == std::string_view::npos
        || equation.find("->", arrow + 2) != std::string_view::npos)
        return false;
    const std::string_view inputs = equation.substr(0, arrow);
    return std::count(inputs.begin(), inputs.end(), ',') == 1;
}

int floatPrecisionBits(std::string_view text)
{
    struct Tag { std::string_view text; int bits; };
    static constexpr std::array<Tag, 8> kTags = {{{"bf16[", 16}, {"f16[", 16}, {"f32[", 32},
                                                  {"half", 16}, {"bfloat16", 16}, {"float", 32},
                                                  {"__nv_bfloat16", 16}, {"fp16", 16}}};
    size_t best = std::string_view::npos;
    int bits = 0;
    for (const Tag &t : kTags) {
        const size_t at = text.find(t.text);
        if (at != std::string_view::npos && (best == std::string_view::npos || at < best)) {
            best = at;
            bits = t.bits;
        }
    }
    return bits;
}

} // namespace tracedesk::core::analysis
