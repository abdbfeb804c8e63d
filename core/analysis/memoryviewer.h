#pragma once

// Memory viewer (FORMATS.md 2.13): XLA's buffer assignment of one HLO module in one memory
// space (color), replayed from its heap-simulator trace in program order.
//
// computeMemoryViewer() is a pure function of an xla::HloProto (any thread). Sizes are bytes
// (the UI converts to MiB). Heap series have one entry per simulator event: the heap after that
// event, plus the indefinite allocations (parameters, outputs, constants, thread-local), which
// live for the whole program.
//
// Invariants: heapSizes, unpaddedHeapSizes and instructionNames have the same length;
// peakPosition is the first index of the maximum (-1 when there was nothing to simulate);
// maxHeap and maxHeapBySize hold the same objects, and maxHeapToBySize / bySizeToMaxHeap are
// inverse permutations between them.

#include "core/analysis/analysiscache.h"
#include "core/base/result.h"
#include "core/hlo/hlomodules.h"

#include "hlo.pb.h"

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

namespace tracedesk::core::analysis {

inline constexpr int64_t kDefaultSmallBufferSize = 16384;

struct MemoryViewerOptions
{
    int64_t memoryColor = 0;           // 0 = default memory (HBM); 1 = TPU VMEM; 5 = host
    int64_t smallBufferSize = kDefaultSmallBufferSize;
};

enum class BufferCategory : uint8_t { Parameter, Output, ThreadLocal, Constant, Temporary };
const char *bufferCategoryName(BufferCategory c);

// One logical buffer of the chosen color.
struct ViewerBuffer
{
    int64_t id = 0;
    int64_t size = 0;                  // padded, as assigned
    int64_t unpaddedSize = 0;          // shape bytes without layout padding
    int64_t allocationIndex = -1;
    int64_t offset = 0;                // within its allocation
    BufferCategory category = BufferCategory::Temporary;
    std::string instructionName;
    std::string opCode;
    std::string shape;                 // e.g. "f32[8,128]{1,0}"
    std::string frameworkOp;           // OpMetadata.op_name
    std::string sourceInfo;            // file:line
    int32_t spanStart = -1;            // heap-series indices; -1 when not in the simulation
    int32_t spanLimit = -1;
};

struct HeapObject
{
    std::string label;
    int64_t bufferId = -1;             // -1 for the grouped small buffers
    int64_t size = 0;
    int64_t unpaddedSize = 0;
    int32_t colorIndex = 0;            // stable colour per object, in program order
};

struct MemoryViewerResult
{
    std::string moduleName;            // "<name>(<program id>)"
    std::string entryComputationName;
    int64_t memoryColor = 0;
    std::vector<int64_t> heapSizes;
    std::vector<int64_t> unpaddedHeapSizes;
    std::vector<std::string> instructionNames;
    int32_t peakPosition = -1;
    int64_t peakHeapBytes = 0;
    int64_t peakUnpaddedHeapBytes = 0;
    std::vector<HeapObject> maxHeap;         // live at the peak, in allocation order
    std::vector<HeapObject> maxHeapBySize;   // the same, by size descending
    std::vector<int32_t> maxHeapToBySize;
    std::vector<int32_t> bySizeToMaxHeap;
    std::vector<ViewerBuffer> buffers;       // every logical buffer of the color, by id
    std::vector<int64_t> indefiniteBufferIds;
    int64_t entryParametersBytes = 0;
    int64_t nonReusableBytes = 0;
    int64_t maybeLiveOutBytes = 0;
    int64_t totalAllocationBytes = 0;
    int64_t indefiniteAllocationBytes = 0;
    int64_t heapTraceIndex = -1;             // which heap-simulator trace was replayed

    const ViewerBuffer *buffer(int64_t id) const;
    // The UI's derived figures (memory_usage.ts).
    int64_t paddingOverheadBytes() const { return peakHeapBytes - peakUnpaddedHeapBytes; }
    int64_t temporaryBytes() const { return peakHeapBytes - indefiniteAllocationBytes; }
    int64_t temporaryWithFragmentationBytes() const
    {
        return totalAllocationBytes - indefiniteAllocationBytes;
    }
    double fragmentationPercent() const;
};

Result<MemoryViewerResult> computeMemoryViewer(const xla::HloProto &proto,
                                               const std::string &moduleName,
                                               const MemoryViewerOptions &options = {});
// Memory spaces (colors) present in the buffer assignment, ascending.
std::vector<int64_t> memorySpaces(const xla::HloProto &proto);
// Bytes of a shape without layout padding (tuples: 8 bytes per element pointer).
int64_t unpaddedShapeBytes(const xla::ShapeProto &shape);
std::string shapeToString(const xla::ShapeProto &shape);

// All HLO modules of a trace, parsed once (embedded and sidecar files).
struct HloModuleSet
{
    std::shared_ptr<const hlo::HloModuleIndex> index;
};
std::shared_ptr<const HloModuleSet> hloModuleSet(AnalysisCache &cache);

} // namespace tracedesk::core::analysis
