#pragma once

// RankAnalyses: the PyTorch analyses of one rank section of a merged run. A merged run
// (rankrunloader.h) holds several ranks' processes in one store; the PyTorch views describe one
// process, the first section unless another is picked. rankAnalyses(cache, k) is a cache whose
// kinetoIndex() covers section k only, so every PyTorch analysis asked of it (operator tree,
// operator and kernel views, steps, overview, memory) describes rank k. The sections' caches
// are made once and kept by the trace's own cache, so picking a rank again costs nothing.
//
// Only the PyTorch analyses (core/analysis/pytorch) follow the picked section; ask the trace's
// own cache for anything else. Section 0, and every section of a trace that is not a merged
// run, is the trace's own cache itself (its default scope is the first section).
//
// Thread rules: safe from any thread. Making a section's cache is cheap (no analysis runs until
// one is asked for), so a GUI thread may call it.

#include "core/analysis/analysiscache.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace tracedesk::core::analysis::pytorch {

// `cache` must be a trace's own cache (not one this function returned). Sections past the last
// clamp to the last; nullptr gives nullptr.
AnalysisCachePtr rankAnalyses(const AnalysisCachePtr &cache, uint32_t section);

// The labels of the sections a PyTorch view can pick ("rank 0", "rank 1", ...: the merged run's
// hosts), empty when the trace is not a merged run of several ranks.
std::vector<std::string> rankSectionLabels(const Trace &trace);

// The section labelled "rank <rank>", if the trace is a merged run that has that rank.
std::optional<uint32_t> sectionOfRank(const Trace &trace, int64_t rank);

} // namespace tracedesk::core::analysis::pytorch
