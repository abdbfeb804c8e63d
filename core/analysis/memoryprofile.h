#pragma once

// Memory profile (FORMATS.md 2.12): the allocator's view of memory over time, from the
// `MemoryAllocation` / `MemoryDeallocation` events the BFC allocator writes on `/host:CPU`.
// One AllocatorProfile per (host, memory id); the memory id is `allocator_name`, else
// `index_on_host` / `device_ordinal` as text.
//
// computeMemoryProfiles() is a pure function of an immutable Trace (any thread). Times are trace
// times (ps from the trace origin), so a snapshot can be shown on the timeline directly.
//
// Invariants of an AllocatorProfile: `snapshots` is sorted by time (ties keep event order) and
// every step id is >= 0; `timeline` holds ascending indices into `snapshots`, at most
// kMaxTimelinePoints of them; `breakdown` is sorted as XProf sorts its table (allocation bytes
// desc, requested desc, then op, region, data type, shape) with identical rows merged.

#include "core/analysis/analysiscache.h"
#include "core/model/trace.h"

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace tracedesk::core::analysis {

inline constexpr size_t kMaxTimelinePoints = 1000;
inline constexpr const char *kUnusedPreallocatedOp = "unused preallocated device memory";
inline constexpr const char *kStackOp = "stack";

struct MemoryStats
{
    int64_t stackReservedBytes = 0;
    int64_t heapAllocatedBytes = 0;
    int64_t freeMemoryBytes = 0;
    double fragmentation = 0;           // 0..1
    int64_t peakBytesInUse = 0;         // allocator lifetime peak as reported

    int64_t inUse() const { return stackReservedBytes + heapAllocatedBytes; }
};

enum class MemoryActivity : uint8_t { Unknown, Allocation, Deallocation, Reservation, Expansion };

struct MemorySnapshot
{
    TimePs time = 0;
    MemoryStats stats;
    MemoryActivity activity = MemoryActivity::Unknown;
    int64_t requestedBytes = 0;
    int64_t allocationBytes = 0;
    uint64_t address = 0;
    int64_t stepId = -1;
    std::string opName;                 // tf_op
    std::string regionType;
    std::string dataType;               // TF DataType name ("float", "int32", ...)
    std::string shape;
};

struct MemoryProfileSummary
{
    int64_t allocations = 0;
    int64_t deallocations = 0;
    // XProf's two peaks: the allocator's own `peak_bytes_in_use` as reported by the last event
    // read (it counts no stack), and the max of stack + heap over the snapshots in the window.
    // The first can be below the second (a large stack reservation, or a reset allocator).
    int64_t peakBytesLifetime = 0;
    int64_t peakBytesInWindow = 0;
    TimePs peakTime = 0;
    int64_t peakSnapshot = -1;          // index into snapshots, -1 when there are none
    MemoryStats peakStats;              // at the peak; peakBytesInUse = stack + heap
    int64_t capacity = 0;               // stack + heap + free at the peak
};

struct MemoryBreakdownRow
{
    std::string opName;
    int64_t allocationBytes = 0;
    int64_t requestedBytes = 0;
    int64_t occurrences = 1;
    std::string regionType;
    std::string dataType;
    std::string shape;
    int64_t snapshotIndex = -1;         // -1 for the special rows
    bool special = false;               // `unused preallocated device memory` or `stack`
};

struct AllocatorProfile
{
    std::string host;
    std::string memoryId;
    std::vector<MemorySnapshot> snapshots;
    std::vector<uint32_t> timeline;     // sampled snapshot indices for the chart
    MemoryProfileSummary summary;
    std::vector<MemoryBreakdownRow> breakdown;
    int64_t peakStepId = -1;
};

struct MemoryProfileSet
{
    std::vector<AllocatorProfile> profiles;   // sorted by host, then memory id

    std::vector<std::string> hosts() const;
    std::vector<std::string> memoryIds(const std::string &host) const;
    const AllocatorProfile *find(const std::string &host, const std::string &memoryId) const;
};

MemoryProfileSet computeMemoryProfiles(const Trace &trace);
// Cached in the trace's AnalysisCache.
std::shared_ptr<const MemoryProfileSet> memoryProfiles(AnalysisCache &cache);

// Building blocks, exposed for tests and for callers with their own snapshot lists.
// Sorts, fills step ids and deallocation metadata, and computes summary, timeline, breakdown.
// `snapshots` come in XProf's reading order (lines in file order, each line's events by time):
// the summary is taken in that order, before sorting, as XProf does.
AllocatorProfile finishAllocatorProfile(std::string host, std::string memoryId,
                                        std::vector<MemorySnapshot> snapshots);
// Indices of the max-box-filtered series (FORMATS.md 2.12 step 5).
std::vector<uint32_t> sampleTimeline(const std::vector<MemorySnapshot> &snapshots,
                                     size_t maxPoints = kMaxTimelinePoints);
// TF DataType enum value -> its name as TensorFlow prints it ("INVALID" for 0 / unknown).
std::string tfDataTypeName(int64_t value);

} // namespace tracedesk::core::analysis
