#pragma once

// Graph capture pairs: two PyTorch profiler (Kineto) traces opened together where one is the
// capture of the CUDA / HIP graphs the other replays (a serving engine's capture trace beside
// its replay). They open as one trace, the replay, with the capture attached
// (Trace::graphCapture), so the kernel and operator views can name the operator that recorded
// each replayed kernel (core/analysis/pytorch/graphcapture.h) instead of merging the two files
// as ranks of a run.
//
// A capture trace calls `*StreamBeginCapture*`; a replay trace calls `*GraphLaunch*`. The pair
// is recognised from the files' bytes alone (decompressed, up to a bound), before any parse.
//
// Pure functions of the files; safe from any thread.

#include <optional>
#include <string>
#include <vector>

namespace tracedesk::core {

struct GraphCapturePair
{
    std::string replay;
    std::string capture;
};

// The pair among exactly two trace files, or nullopt (not two files, not one of each kind).
std::optional<GraphCapturePair> findGraphCapturePair(const std::vector<std::string> &files);

} // namespace tracedesk::core
