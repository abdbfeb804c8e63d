#pragma once

// XProf's `memory_access_breakdown` stat of an XLA op: a serialized MemoryAccessBreakdown
// (op_metrics.proto) listing, per operation type and memory space, the bytes the op read or
// wrote. Shown decoded in the details ("write HBM 5.0 GiB · read VMEM 12 KiB") instead of as an
// opaque byte string. Memory spaces: 1 HBM, 2 CMEM, 3 VMEM (TPU); others by number.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace tracedesk::core::analysis {

inline constexpr std::string_view kMemoryAccessBreakdownStat = "memory_access_breakdown";

struct MemoryAccess
{
    enum class Operation : uint8_t { Unknown, Read, Write };
    Operation operation = Operation::Unknown;
    uint64_t memorySpace = 0;
    uint64_t bytes = 0;
};

// nullopt when the payload is not a well-formed MemoryAccessBreakdown.
std::optional<std::vector<MemoryAccess>> decodeMemoryAccessBreakdown(std::string_view payload);

std::string memorySpaceName(uint64_t space);

// "write HBM 5.0 GiB · read VMEM 12 KiB" (in the payload's order); "none" when empty.
std::string describeMemoryAccess(const std::vector<MemoryAccess> &accesses);

} // namespace tracedesk::core::analysis
