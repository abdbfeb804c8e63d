#pragma once

// The GPU-time flame graph of a PyTorch trace: the operator tree (operatortree.h) merged by
// stack of names, each frame as wide as the GPU time (kernels, memcpy, memset) its node and
// everything below it launched, so the graph reads "where did the device time come from" in
// the operators' own call structure, whichever rule attached each launch.
//
// Design note. Frames are the tree's nodes (operators, steps, DataLoader / Optimizer /
// collective ranges, and the annotations and Python frames that launched outside any
// operator); each thread's root is a top frame named `thread <tid>`. A node's self width is
// the GPU time of its own launches. With a graph capture (graphcapture.h), the replayed kernels
// a node launched are split off its self time into child frames `captured: <operator>`, one
// per capturing operator, so the replay shows the operators that built the graph under the
// call that replayed it. Activities with no recorded launch are the self time of the root that
// holds them. Widths are exact picoseconds; a frame is never narrower than its children.
//
// Pure function of immutable inputs; any thread.

#include "core/analysis/pytorch/graphcapture.h"
#include "core/analysis/pytorch/operatortree.h"
#include "core/query/flamegraph.h"

namespace tracedesk::core::analysis::pytorch {

inline constexpr std::string_view kCapturedFramePrefix = "captured: ";

FlameGraph deviceTimeFlameGraph(const Trace &trace, const OperatorTree &tree,
                                const GraphCaptureAttribution *capture = nullptr);

} // namespace tracedesk::core::analysis::pytorch
