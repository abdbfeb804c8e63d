#pragma once

// The steps GPU time and the critical path offer as windows. A PyTorch trace's steps are its
// host `ProfilerStep#N` spans (profilerStepWindows); without them, numbered step ranges
// (`iteration10` NVTX ranges, pytorch/numberedsteps.h), each its range's span under its name.
// A profile without either whose steps XProf's
// rules find (an XSpace's step markers: TensorFlow's step ids, a `Steps` line) offers those
// instead, each as the span its step covers, named "Step N": the critical path of one step of
// a 10M-event TensorFlow profile, where the whole profile is too large to search.

#include "core/analysis/analysiscache.h"
#include "core/analysis/gputime/gputime.h"

#include <optional>
#include <vector>

namespace tracedesk::core::analysis::gputime {

std::vector<TimeWindow> stepWindows(AnalysisCache &cache, const pytorch::KinetoIndex &index);
// Step `step`: ProfilerStep#<step>, else the numbered range <step>, else the XProf step named
// <step>; nullopt when none.
std::optional<TimeWindow> stepWindow(AnalysisCache &cache, const pytorch::KinetoIndex &index,
                                     int64_t step);

} // namespace tracedesk::core::analysis::gputime
