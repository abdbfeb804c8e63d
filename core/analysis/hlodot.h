#pragma once

// The Graphviz DOT text of an HLO neighbourhood (hlograph.h): one box per instruction (name,
// opcode, shape), filled from white to red by its share of the device's op time, the chosen op
// outlined; edges labelled with the shape they carry; a fusion's expanded members in a cluster
// named after it. Node ids are "n<index>" of HloGraph::nodes, so a layout maps back to them.
// Pure function; any thread.

#include "core/analysis/hlograph.h"
#include "core/analysis/hlostats.h"

#include <map>
#include <string>

namespace tracedesk::core::analysis {

// `timeShare`: op name -> share of the device's op self time, 0..1 (missing: no time).
std::string hloGraphDot(const HloGraph &graph, const std::map<std::string, double> &timeShare);
// Each op of `module` (a displayName, "<name>(<program id>)") -> its share of all ops' self time
// in `stats`. Op names repeat across programs (every jitted function has its `custom-call.1`),
// so only that module's rows count.
std::map<std::string, double> hloTimeShares(const HloStats &stats, const std::string &module);
// "#rrggbb" of a node with that share: white at 0, red at 1.
std::string hloShareColour(double share);

} // namespace tracedesk::core::analysis
