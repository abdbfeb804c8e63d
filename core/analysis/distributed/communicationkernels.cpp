#include "core/analysis/distributed/communicationkernels.h"

#include "core/analysis/kernels/kernelclass.h"
#include "core/base/asciilower.h"

#include <array>
#include <string>
#include <utility>

namespace tracedesk::core::analysis::distributed {

bool isCommunicationKernelName(std::string_view name)
{
    return isCommunicationKernel(name);
}

bool isCommunicationOpName(std::string_view name)
{
    if (isCommunicationKernelName(name))
        return true;
    const std::string lower = asciiLower(name);
    // The words with their separators dropped: "all-reduce", "all_reduce", "AllReduce".
    std::string squeezed;
    for (char c : lower) {
        if (c != '-' && c != '_' && c != ' ')
            squeezed += c;
    }
    for (std::string_view word : {"nccl", "rccl", "allreduce", "allgather", "reducescatter",
                                  "alltoall", "collectivepermute"}) {
        if (squeezed.find(word) != std::string::npos)
            return true;
    }
    for (std::string_view op : {"send", "recv"}) {
        if (lower.starts_with(op)
            && (lower.size() == op.size() || lower[op.size()] == '.' || lower[op.size()] == '-'))
            return true;
    }
    return false;
}

std::string_view kernelBaseName(std::string_view name)
{
    const size_t paren = name.find('(');
    std::string_view base = paren == std::string_view::npos ? name : name.substr(0, paren);
    while (!base.empty() && base.back() == ' ')
        base.remove_suffix(1);
    return base;
}

std::string collectiveKindFromName(std::string_view name)
{
    const std::string_view base = kernelBaseName(name);
    for (std::string_view marker : {std::string_view("ncclDevKernel_"), std::string_view("ncclKernel_")}) {
        const size_t at = base.find(marker);
        if (at == std::string_view::npos)
            continue;
        std::string_view rest = base.substr(at + marker.size());
        const size_t underscore = rest.find('_');
        if (underscore != std::string_view::npos)
            rest = rest.substr(0, underscore);
        if (!rest.empty())
            return std::string(rest);
    }
    return std::string(base);
}

int64_t dtypeBytes(std::string_view dtype)
{
    static constexpr std::array<std::pair<std::string_view, int64_t>, 16> kSizes = {{
        {"Double", 8},  {"Long", 8},     {"ComplexFloat", 8}, {"ComplexDouble", 16},
        {"Float", 4},   {"Int", 4},      {"UInt32", 4},       {"Half", 2},
        {"BFloat16", 2}, {"Short", 2},   {"UInt16", 2},       {"Byte", 1},
        {"Char", 1},    {"Bool", 1},     {"Float8_e4m3fn", 1}, {"Float8_e5m2", 1},
    }};
    for (const auto &[name, bytes] : kSizes) {
        if (dtype == name)
            return bytes;
    }
    return 0;
}

} // namespace tracedesk::core::analysis::distributed
