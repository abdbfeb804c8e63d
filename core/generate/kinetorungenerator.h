#pragma once

// Synthetic distributed runs: one PyTorch profiler (Kineto) trace per rank of a data-parallel
// job, for the distributed summary's tests and benchmarks.
//
// generateKinetoRun() writes `ranks` files `<dir>/rank-<i>.<stamp>.pt.trace.json`. Every file
// has distributedInfo {backend nccl, rank i, world_size ranks} and its own baseTimeNanoseconds
// (the ranks' clocks start up to ±250 µs apart; times inside a file are on its own clock). All
// ranks run the same steps and launch the same collectives in the same order: per step one
// NCCL all-gather (FSDP-style parameter gather, BFloat16) and then one all-reduce per gradient
// bucket (Float), each a `record_param_comms` cpu_op under an `nccl:<kind>` annotation with
// `Collective name`, `In msg nelems`, `Out msg nelems`, `dtype` and `Group size` args, and its
// NCCL kernel on stream 20 carrying the same args. Every collective is preceded by compute
// kernels on stream 7; each rank's compute takes the run's nominal time ±3 %, the slow rank's
// 30 % longer, so the slow rank reaches every collective last. A collective kernel starts when
// its rank gets there and ends, on every rank at the same absolute time, when the last rank has
// arrived plus the transfer time; so the others' kernels include their wait.
//
// `eventsPerRank` is per file (the whole run holds about ranks x eventsPerRank events); each file
// overshoots it by less than one step. The same options give byte-identical files. The ranks
// are written in lockstep, a collective at a time, each through its own streaming writer: memory
// is one write buffer (1 MiB) per rank whatever the event count. Existing files are refused
// unless `overwrite`; nothing is written when any is refused. Single-threaded.

#include "core/base/result.h"
#include "core/generate/kinetogenerator.h"
#include "core/io/rankrunoptions.h"

#include <cstdint>
#include <string>
#include <vector>

namespace tracedesk::core {

using KinetoRunOptions = RankRunOptions;

struct KinetoRunStats
{
    std::vector<std::string> files;      // by rank
    std::vector<KinetoTraceStats> ranks; // by rank
    int slowRank = 0;
    uint64_t steps = 0;
    uint64_t collectivesPerRank = 0; // NCCL kernels in each file
    uint64_t events = 0;             // over every file
    uint64_t fileBytes = 0;          // over every file
};

// "rank-3.1700000001000.pt.trace.json": rankFromFileName() reads the rank back.
std::string kinetoRankFileName(int rank, int64_t stamp);

Result<KinetoRunStats> generateKinetoRun(const KinetoRunOptions &options, const std::string &dir);

} // namespace tracedesk::core
