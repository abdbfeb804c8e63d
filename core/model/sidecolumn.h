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
    case SideColumn::Count: break;
    }
    return {};
}

// String-valued columns hold a StringId rather than a number.
inline constexpr bool sideColumnHoldsString(SideColumn column)
{
    return column == SideColumn::HloOp || column == SideColumn::HloModule
           || column == SideColumn::FrameworkOp;
}

} // namespace tracedesk::core
