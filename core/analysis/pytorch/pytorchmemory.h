#pragma once

// PyTorchMemory: the memory view of a PyTorch profiler (Kineto) trace (../shared/PYTORCH.md
// §2.8), from its `[memory]` instants (slices with role MemoryEvent): per device the allocator
// curve and its peaks, the allocation/free pairs, and per-operator statistics.
//
// Design note. Records are taken in time order. A record's device is "CPU" (Device Type 0) or
// "GPU<Device Id>" (type 1); other backends are counted in `skippedRecords` and left out.
// - Curve: one point per record carrying Total Allocated and Total Reserved. Unlike
//   torch-tb-profiler, a record without `Addr` (PyTorch < 1.10) still gives a point, so the curve
//   exists for such files too. No downsampling here; views decimate what they draw.
// - Events table: an allocation waits on its (device, Addr) until a free (Bytes <= 0) at that
//   address closes it (a later allocation at the same address replaces a waiting one). Records
//   without Addr cannot be paired and are left out of the table.
// - Attribution (both tables): the deepest operator-tree node (operatortree.h) on the record's
//   thread with start <= t < end; the record belongs to it if that node is an operator (§2.1.6),
//   else to nothing. The table label of a pair is that of its allocation; an `aten::empty*`
//   allocation is shown as "<parent> (<op>)".
// - Statistics: per operator node, self values from its own records and inclusive values adding
//   those of all nodes below it; summed per (device, op name); Calls counts every operator node
//   of that name; rows whose six values are all 0 are dropped.
//
// Plain value; immutable once built, safe to share across threads. Times are trace times
// (TimePs, relative to the trace origin); sizes are bytes.

#include "core/analysis/analysiscache.h"
#include "core/analysis/pytorch/operatortree.h"
#include "core/model/trace.h"

#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace tracedesk::core::analysis::pytorch {

struct MemoryPoint
{
    TimePs time = 0;
    int64_t allocated = 0; // Total Allocated after the event, bytes
    int64_t reserved = 0;  // Total Reserved after the event, bytes
};

struct DeviceMemory
{
    std::string name;       // "CPU" or "GPU<id>"
    int64_t deviceType = 0; // Kineto Device Type: 0 CPU, 1 CUDA
    int64_t deviceId = -1;
    uint32_t recordCount = 0;
    std::vector<MemoryPoint> curve; // time order
    int64_t peakAllocated = 0;      // max Total Allocated, 0 without curve
    TimePs peakAllocatedTime = 0;   // first time the peak is reached
    int64_t peakReserved = 0;
    TimePs peakReservedTime = 0;
};

struct MemoryEventRow
{
    uint32_t device = 0; // index into PyTorchMemory::devices
    std::string op;      // allocating operator label, "<unknown>" when none
    int64_t size = 0;    // bytes: the allocation, or minus the unmatched free's Bytes
    std::optional<TimePs> allocTime;
    std::optional<TimePs> releaseTime;

    std::optional<TimePs> duration() const
    {
        if (!allocTime || !releaseTime)
            return std::nullopt;
        return *releaseTime - *allocTime;
    }
};

struct MemoryOpStats
{
    uint32_t device = 0; // index into PyTorchMemory::devices
    std::string op;
    int64_t calls = 0;
    int64_t sizeIncrease = 0;    // inclusive Σ Bytes
    int64_t allocationSize = 0;  // inclusive Σ positive Bytes
    int64_t allocationCount = 0; // inclusive number of allocations
    int64_t selfSizeIncrease = 0;
    int64_t selfAllocationSize = 0;
    int64_t selfAllocationCount = 0;
};

struct PyTorchMemory
{
    std::vector<DeviceMemory> devices;  // "CPU" first, then GPUs by id
    std::vector<MemoryEventRow> events; // pairs and lone frees in release order, then lone
                                        // allocations in allocation order
    std::vector<MemoryOpStats> stats;   // by device, then inclusive size increase descending
    uint32_t recordCount = 0;           // [memory] records read
    uint32_t skippedRecords = 0;        // of other device types
    uint32_t unattributedRecords = 0;   // on no operator

    bool empty() const { return devices.empty(); }
    // Index of the first GPU device, else of "CPU"; -1 when there are no devices.
    int defaultDevice() const;
    const DeviceMemory *device(std::string_view name) const;
};

PyTorchMemory computePyTorchMemory(const Trace &trace, const OperatorTree &tree);
PyTorchMemory computePyTorchMemory(const Trace &trace);
std::shared_ptr<const PyTorchMemory> pytorchMemory(AnalysisCache &cache);

} // namespace tracedesk::core::analysis::pytorch
