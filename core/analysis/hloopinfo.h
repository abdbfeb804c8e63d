#pragma once

// What the compiled HLO says about one device op: XProf-style category, expression text, the
// framework op from the instruction metadata, shape/layout and, for fusions, the fused
// instructions. Looked up once per distinct (program, HLO op) after the event scans, never per
// event. Pure functions over an immutable HloModuleIndex.

#include "core/analysis/opmetrics.h"
#include "core/hlo/hlomodules.h"

#include <string>
#include <string_view>

namespace tracedesk::core::analysis {

enum class HloLookup : uint8_t { NoModule, Found, NotInModule };

struct HloOpInfo
{
    std::string category;
    std::string expression;
    std::string provenance;
    std::string deduplicatedName;
    std::string layout;
    std::string source;                      // `file:line` from the instruction metadata
    std::vector<OpMetrics> fusionChildren;   // names, categories and expressions only
};

// NoModule when the program has no HLO (callers keep the kernel-stat fallback); NotInModule when
// the module is known but lacks the instruction (XProf drops such kernels).
HloLookup lookupHloOp(const hlo::HloModuleIndex &index, int64_t programId, std::string_view op,
                      HloOpInfo *out);

// `f32[5,1024]{1,0}`; tuples in brackets.
std::string hloShapeText(const xla::ShapeProto &shape);
std::string hloCategory(const xla::HloInstructionProto &inst);
// `file:line` of the Python source that produced an instruction; empty when not recorded.
std::string hloSourceLine(const xla::OpMetadata &metadata);

} // namespace tracedesk::core::analysis
