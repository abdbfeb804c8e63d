#include "core/analysis/memoryaccess.h"

#include "core/io/memoryguard.h"
#include "core/io/protowire.h"

namespace tracedesk::core::analysis {

std::optional<std::vector<MemoryAccess>> decodeMemoryAccessBreakdown(std::string_view payload)
{
    std::vector<MemoryAccess> out;
    WireReader outer(payload);
    WireField f;
    while (outer.next(&f)) {
        if (f.number != 1)
            continue;
        if (f.type != WireType::Len)
            return std::nullopt;
        MemoryAccess access;
        WireReader inner = WireReader::of(f);
        WireField g;
        while (inner.next(&g)) {
            if (g.number < 1 || g.number > 3)
                continue;
            if (g.type != WireType::Varint)
                return std::nullopt;
            const uint64_t v = g.value;
            if (g.number == 1)
                access.operation = v == 1   ? MemoryAccess::Operation::Read
                                   : v == 2 ? MemoryAccess::Operation::Write
                                            : MemoryAccess::Operation::Unknown;
            else if (g.number == 2)
                access.memorySpace = v;
            else
                access.bytes = v;
        }
        if (inner.failed())
            return std::nullopt;
        out.push_back(access);
    }
    if (outer.failed())
        return std::nullopt;
    return out;
}

std::string memorySpaceName(uint64_t space)
{
    switch (space) {
    case 1: return "HBM";
    case 2: return "CMEM";
    case 3: return "VMEM";
    default: return "memory space " + std::to_string(space);
    }
}

std::string describeMemoryAccess(const std::vector<MemoryAccess> &accesses)
{
    if (accesses.empty())
        return "none";
    std::string out;
    for (const MemoryAccess &a : accesses) {
        if (!out.empty())
            out += " · ";
        out += a.operation == MemoryAccess::Operation::Read    ? "read "
               : a.operation == MemoryAccess::Operation::Write ? "write "
                                                               : "access ";
        out += memorySpaceName(a.memorySpace) + ' ' + formatBytes(a.bytes);
    }
    return out;
}

} // namespace tracedesk::core::analysis
