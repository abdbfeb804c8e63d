#pragma once

#include <cstdint>
#include <limits>

namespace tracedesk::core {

// Time is picoseconds everywhere: exact for XSpace, and 1 hour fits 2^63 a million times.
using TimePs = int64_t;
// An interned string; 0 is always the empty string.
using StringId = uint32_t;
inline constexpr StringId kEmptyString = 0;
// Reference into an ArgsArena; 0 means "no args".
using ArgsRef = uint32_t;
inline constexpr ArgsRef kNoArgs = 0;
// Value of an absent side-column entry.
inline constexpr int64_t kNoValue = std::numeric_limits<int64_t>::min();

// A slice is addressed by its track, its row (nesting depth) and its index in the row.
struct SliceRef
{
    uint32_t track = 0;
    uint32_t row = 0;
    uint32_t index = 0;

    friend bool operator==(const SliceRef &, const SliceRef &) = default;
};

// Typed per-event values that analyses need without decoding args. String-valued columns hold a
// StringId. Each row stores a column only when one of its slices has the value; otherwise the
// value comes from the slice's EventKind (XSpace metadata stats), or is kNoValue.
enum class SideColumn : uint8_t {
    GroupId,       // step / group id (XSpace group_id, step id)
    StepNum,       // user step number (step_num)
    HloOp,         // StringId
    HloModule,     // StringId
    ProgramId,
    Flops,
    BytesAccessed,
    FrameworkOp,   // StringId (tf_op / tf_op_name)
    CorrelationId,
    // Kineto (PyTorch profiler) activity fields, mapped at load from their args.
    ExternalId,    // the CPU op / annotation a launch or GPU activity belongs to
    Stream,        // GPU stream of a GPU activity
    Device,        // GPU index of a GPU activity (its "device" arg)
    BlocksPerSm,   // kernel blocks per SM, in millionths (kNoValue when unknown or "inf")
    WarpsPerSm,    // kernel warps per SM, in millionths
    Occupancy,     // kernel est. achieved occupancy, percent (negative: unknown)
    Registers,     // kernel registers per thread
    SharedMemory,  // kernel shared memory bytes
    Grid,          // kernel grid, packed: x | y << 21 | z << 42
    Block,         // kernel block, packed like Grid
    Bytes,         // bytes of a memcpy / memset, or of a memory event (signed)
    InputShapes,   // StringId: an op's "Input Dims" as written
    CallStack,     // StringId: an op's "Call stack"
    Count
};
inline constexpr int kSideColumnCount = int(SideColumn::Count);
// Event kinds carry only the columns XSpace metadata stats fill (the ones before ExternalId);
// the Kineto columns are per slice. A million distinct names then cost 72 bytes each here.
inline constexpr int kKindSideColumnCount = int(SideColumn::ExternalId);

// What a slice is to the analyses, whatever format it came from. Readers set it per event kind
// from the format's own vocabulary (Kineto's "cat"), so analyses never look at category text.
enum class SliceRole : uint8_t {
    None,
    CpuOp,            // framework operator on a host thread (Kineto cpu_op / Operator)
    UserAnnotation,   // user range on a host thread (record_function, ProfilerStep#N)
    GpuAnnotation,    // the device-side copy of a user range, on a stream
    PythonFunction,   // Python tracer frame
    Runtime,          // launch or other runtime / driver API call on a host thread
    Kernel,           // GPU kernel
    Memcpy,           // GPU memory copy
    Memset,           // GPU memory set
    Sync,             // GPU synchronization (stream / event / context sync)
    MemoryEvent,      // allocator instant ([memory])
    Marker,           // capture-window markers (Kineto "Trace")
    Count
};

// Grid and block dimensions packed into one side value: 21 bits each.
inline constexpr int64_t packDim3(int64_t x, int64_t y, int64_t z)
{
    constexpr int64_t m = (int64_t(1) << 21) - 1;
    return (x & m) | (y & m) << 21 | (z & m) << 42;
}
inline constexpr int64_t dim3At(int64_t packed, int axis)
{
    return (packed >> (21 * axis)) & ((int64_t(1) << 21) - 1);
}

} // namespace tracedesk::core
