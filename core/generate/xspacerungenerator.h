#pragma once

// Synthetic multi-host XSpace runs: one `<dir>/worker<i>.xplane.pb` per host of a data-parallel
// GPU job (XProf's run folder layout), for the distributed summary's tests and benchmarks.
//
// Each host has one GPU plane `/device:GPU:0` with a `Steps` line (one event per step, named by
// its number), compute kernels on `Stream #7(Compute)` and NCCL all-reduce kernels
// (`ncclDevKernel_AllReduce_Sum_f32_RING_LL`) on `Stream #20(nccl)`, and a Task Environment
// plane whose profile_start_time places the host's clock: the hosts start up to ±250 µs apart
// (times near 1000 s, so the merged clock keeps picoseconds). Every step runs the same buckets
// on every host: compute (the nominal time ±3 %, the slow host's 30 % longer), then one
// all-reduce that starts when its host arrives and ends on every host at the same absolute time,
// the last arrival plus the transfer. So the slow host arrives last at every collective and the
// others' kernels include their wait. The same options give byte-identical files; existing files
// are refused unless `overwrite`. Single-threaded; memory is one XSpaceWriter per host.

#include "core/base/result.h"
#include "core/io/rankrunoptions.h"

#include <cstdint>
#include <string>
#include <vector>

namespace tracedesk::core {

using XSpaceRunOptions = RankRunOptions;

struct XSpaceRunStats
{
    std::vector<std::string> files; // by host
    int slowRank = 0;
    uint64_t steps = 0;
    uint64_t collectivesPerRank = 0;
    uint64_t events = 0;    // over every file
    uint64_t fileBytes = 0; // over every file
};

// "worker3.xplane.pb": the host name (worker3) gives the rank back (rankname.h).
std::string xspaceRankFileName(int rank);

Result<XSpaceRunStats> generateXSpaceRun(const XSpaceRunOptions &options, const std::string &dir);

} // namespace tracedesk::core
