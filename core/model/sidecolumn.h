#pragma once

// The stat name each side column stands for, so a value kept only in a side column can still be
// shown as an arg (and matched against args carrying the same name).

#include "core/model/types.h"

#include <string_view>

namespace tracedesk::core {

inline constexpr std::string_view sideColumnStatName(SideColumn column)
{
    switch (column) {
    case SideColumn::GroupId: return "group_id";
    case SideColumn::StepNum: return "step_num";
    case SideColumn::HloOp: return "hlo_op";
    case SideColumn::HloModule: return "hlo_module";
    case SideColumn::ProgramId: return "program_id";
    case SideColumn::Flops: return "flops";
    case SideColumn::BytesAccessed: return "bytes_accessed";
    case SideColumn::FrameworkOp: return "tf_op";
    case SideColumn::CorrelationId: return "correlation_id";
    case SideColumn::ExternalId: return "External id";
    case SideColumn::Stream: return "stream";
    case SideColumn::Device: return "device";
    case SideColumn::BlocksPerSm: return "blocks per SM";
    case SideColumn::WarpsPerSm: return "warps per SM";
    case SideColumn::Occupancy: return "est. achieved occupancy %";
    case SideColumn::Registers: return "registers per thread";
    case SideColumn::SharedMemory: return "shared memory";
    case SideColumn::Grid: return "grid";
    case SideColumn::Block: return "block";
    case SideColumn::Bytes: return "bytes";
    case SideColumn::InputShapes: return "Input Dims";
    case SideColumn::CallStack: return "Call stack";
    case SideColumn::Count: break;
    }
    return {};
}

// Columns whose numbers are not the value shown (packed or scaled): never shown as plain ints.
inline constexpr bool sideColumnIsEncoded(SideColumn column)
{
    return column == SideColumn::BlocksPerSm || column == SideColumn::WarpsPerSm
           || column == SideColumn::Grid || column == SideColumn::Block;
}

// String-valued columns hold a StringId rather than a number.
inline constexpr bool sideColumnHoldsString(SideColumn column)
{
    return column == SideColumn::HloOp || column == SideColumn::HloModule
           || column == SideColumn::FrameworkOp || column == SideColumn::InputShapes
           || column == SideColumn::CallStack;
}

} // namespace tracedesk::core
