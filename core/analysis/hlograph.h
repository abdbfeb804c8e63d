#pragma once

// The HLO graph around one op, as XProf's Graph Viewer shows it: the op, the instructions that
// feed it (operands) and those it feeds (users), out to `depth` edges in the computation that
// holds it. Fusions can be expanded into their fused instructions (a cluster per fusion).
// Each node carries its opcode, shape, category and source line; each edge the shape of the
// value it carries. At most `maxNodes` nodes, nearest first; `truncated` says when the limit cut.
//
// Pure function of an immutable HloModuleIndex; any thread.

#include "core/analysis/analysiscache.h"
#include "core/base/result.h"
#include "core/hlo/hlomodules.h"

#include <string>
#include <vector>

namespace tracedesk::core::analysis {

struct HloGraphOptions
{
    int depth = 2;              // edges from the op, each way
    bool expandFusions = false;
    int maxNodes = 250;
};

struct HloGraphNode
{
    std::string name;
    std::string opcode;
    std::string shape;
    std::string category;
    std::string source;         // `file:line` when recorded
    std::string fusion;         // the fusion this is a member of (expanded), else empty
    int distance = 0;           // edges from the op (members: their fusion's)
    bool isFusion = false;
    bool isCentre = false;
};

struct HloGraphEdge
{
    size_t from = 0;            // node index of the operand
    size_t to = 0;              // node index of the user
    std::string shape;          // what flows along the edge
};

struct HloGraph
{
    std::string module;         // "<module name>(<program id>)"
    std::string computation;
    std::vector<HloGraphNode> nodes;   // the op first
    std::vector<HloGraphEdge> edges;
    bool truncated = false;
};

// The op's neighbourhood in program `programId` (0: the first module holding an instruction
// of that name). An error names what is missing: no HLO in the profile, no such program, no
// such op.
Result<HloGraph> hloNeighbourhood(const hlo::HloModuleIndex &index, uint64_t programId,
                                  std::string_view op, const HloGraphOptions &options = {});

// The trace's HLO modules, parsed once per profile through the cache.
struct TraceHloModules
{
    std::shared_ptr<const hlo::HloModuleIndex> index;
};
std::shared_ptr<const TraceHloModules> traceHloModules(AnalysisCache &cache);

} // namespace tracedesk::core::analysis
