#pragma once

// The records rocprofv3 writes, whatever the output format (the JSON results document, the CSV
// set, the rocpd database): what the format readers decode and RocprofImporter stages. Times are
// rocprofv3's own ns (the host's monotonic clock); strings are views that live as long as the
// call that passes them.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace tracedesk::core::rocprof {

// A GPU or CPU as rocprofv3 lists it. Records name it by `key`: the agent handle in the JSON
// document, N of "Agent N" in the CSV files, the agent id in rocpd.
struct Agent
{
    int64_t key = 0;
    int64_t device = 0;       // the device id the store shows (the GPU index when known)
    bool gpu = true;          // assumed for an agent only named by its number
    bool gpuKnown = false;    // the format says it is a GPU, without naming it
    std::string name;         // the ISA, e.g. "gfx950"
    std::string product;      // e.g. "AMD Instinct MI350X"
    int64_t computeUnits = 0;
    int64_t wavefrontSize = 0;
    int64_t maxWavesPerCu = 0;
    uint64_t memoryBytes = 0;
};

struct Dim3
{
    int64_t x = -1, y = 1, z = 1;   // x < 0: not recorded
};

struct KernelDispatch
{
    int64_t agent = 0;
    int64_t queue = 0;
    int64_t stream = -1;
    int64_t tid = -1;
    std::optional<int64_t> correlation;
    int64_t dispatchId = -1;
    int64_t kernelId = -1;
    std::string_view name;
    int64_t startNs = 0;
    std::optional<int64_t> endNs;
    Dim3 grid;                     // work-items, as rocprofv3 reports them
    Dim3 workgroup;
    std::optional<int64_t> ldsBytes, scratchBytes, vgprs, accumVgprs, sgprs;
};

// A host API call: HIP (runtime and compiler), HSA, RCCL, rocDecode, ... by its domain; a
// marker (roctx) range or mark when `marker` is set, named by its message.
struct ApiCall
{
    std::string_view domain;       // e.g. "HIP_RUNTIME_API_EXT", "MARKER_CORE_API"
    std::string_view function;     // the call, or the marker's message
    int64_t pid = 0;
    int64_t tid = 0;
    std::optional<int64_t> correlation;
    int64_t startNs = 0;
    std::optional<int64_t> endNs;
    bool marker = false;
};

struct MemoryCopy
{
    std::string_view direction;    // e.g. "MEMORY_COPY_HOST_TO_DEVICE"
    int64_t srcAgent = -1;
    int64_t dstAgent = -1;
    int64_t stream = -1;
    std::optional<int64_t> correlation;
    std::optional<int64_t> bytes;
    int64_t startNs = 0;
    std::optional<int64_t> endNs;
};

// A memory allocation or scratch-memory operation on an agent.
struct MemoryOperation
{
    std::string_view operation;    // e.g. "MEMORY_ALLOCATION_ALLOCATE", "SCRATCH_MEMORY_ALLOC"
    std::string_view category;     // "memory_allocation" or "scratch_memory"
    int64_t agent = -1;
    std::optional<int64_t> bytes;
    std::string_view address;
    int64_t startNs = 0;
    std::optional<int64_t> endNs;
};

// One counter's value over one dispatch (every instance of the counter summed).
struct CounterSample
{
    int64_t agent = 0;
    std::string_view counter;
    double value = 0;
    int64_t startNs = 0;
    std::optional<int64_t> endNs;
};

} // namespace tracedesk::core::rocprof
