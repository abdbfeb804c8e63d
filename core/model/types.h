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
    Count
};
inline constexpr int kSideColumnCount = int(SideColumn::Count);

} // namespace tracedesk::core
