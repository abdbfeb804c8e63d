#pragma once

// Rank runs: one PyTorch profiler (Kineto) trace per rank of a distributed job, opened as one
// Trace. Each file is read by the Chrome JSON reader on a worker (as many at once as there are
// cores, through parallelFor) and the per-rank stores are merged by mergeTraces():
//
// - Sections: every plane's host is "rank N", ranks in rank order. N is the file's
//   distributedInfo.rank, else the rank in its name (rank-3, rank_3, worker3, _3.), else its
//   position among the files.
// - One clock: each rank's times move by (its RunMetadata::clockOriginNs - the run's earliest),
//   so the merged time 0 is the earliest rank's time 0 (run.clockOriginNs is that origin).
//   With LoadOptions::alignStep each rank moves further, so its host ProfilerStep#N marker
//   starts where the earliest rank's does; a rank without that step is named in a warning.
// - LoadInfo: sources = every file given, hosts = the rank labels, run metadata of the first
//   rank, each rank's warnings prefixed with its file name. A rank that fails to load becomes
//   a warning naming its file; only when every rank fails is the load an error (naming the
//   folder). Progress: the ranks add their bytes to the one LoadControl; cancel stops them all.
// - Part of a run: with LoadOptions::ranks only the files of those ranks load (numbered by
//   core/io/runranks.h before loading, positions counted among every file given); a rank the
//   run lacks is an error naming it, and the first warning says "showing ranks 0, 3 of 64".
//   sources = the files of the chosen ranks.
// - Memory: as many ranks load at once as the budget leaves room for beside the finished
//   stores (core/io/runfit.h). A rank whose store the distributed summary left in the store
//   cache is taken from there.

#include "core/base/loadcontrol.h"
#include "core/base/result.h"
#include "core/io/loadoptions.h"
#include "core/model/trace.h"

#include <memory>
#include <string>
#include <vector>

namespace tracedesk::core {

// A Kineto trace by its name (`*.pt.trace.json[.gz|.zst]`) or, for other `.json[.gz]` files, by
// the Kineto keys near its start (schemaVersion, deviceProperties, distributedInfo, ...).
bool isKinetoTraceFile(const std::string &path);

// The files of `jsonFiles` that are Kineto traces, in the given order.
std::vector<std::string> kinetoTraceFiles(const std::vector<std::string> &jsonFiles);

// "rank N": the section label of a rank.
std::string rankLabel(int64_t rank);

Result<std::shared_ptr<Trace>> readChromeJsonRun(const std::vector<std::string> &files,
                                                 LoadControl *control, const LoadOptions &options);

} // namespace tracedesk::core
