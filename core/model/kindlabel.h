#pragma once

// The name a slice is shown by in titles, area summaries and flame graphs.
//
// TPU profiles name XLA op events by their whole HLO instruction (`%fusion.3 = f32[8,128]{1,0}
// fusion(...), kind=kLoop, calls=%fused_computation.3`, hundreds of characters). XProf shows the
// op name (`fusion.3`, the name Op Profile and HLO stats use) and keeps the instruction for the
// details; so does sliceLabel(). The event's display name is no substitute: it names the kind
// of operation (`async-copy` for `copy-start.1`), not the op. Any other name is shown as it is.
// The label is a view into the name, so it lives as long as the trace's strings.

#include "core/model/trace.h"

#include <string_view>

namespace tracedesk::core {

// `%name = ...` or `ROOT %name = ...`: the text of an HLO instruction.
bool isHloInstructionText(std::string_view text);

// The instruction's name for an HLO instruction text, else `name` itself.
std::string_view sliceLabel(std::string_view name);
inline std::string_view kindLabel(const Trace &trace, const EventKind &kind)
{
    return sliceLabel(trace.string(kind.name));
}

} // namespace tracedesk::core
