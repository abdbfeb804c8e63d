#pragma once

// RunFit: whether a distributed run opened as one trace fits the memory budget, and if not, how
// many of its ranks do — decided from file sizes before anything is loaded.
//
// Estimates (measured with `tracedesk-cli bench` on generated and real traces):
// - a Kineto rank keeps about 0.66 bytes of RSS per byte of JSON once loaded (124 bytes per
//   event in the store, 226 of RSS, ~340 bytes of JSON per event); counted as 3/4. While it
//   loads it peaks at chromeJsonLoadEstimate() of its JSON. JSON bytes: the file size, the
//   size a zstd header declares, or a gzip file's size field (modulo 4 GiB, so raised by 4 GiB
//   steps to at least the compressed size; else 10 x the compressed size);
// - XSpace hosts load together in one store: the reader's own estimate is 160 bytes per event
//   plus the file, and files hold 17 to 130 bytes per event; counted as 8 x the file size.
// A run's need: Kineto = the sum of its ranks' stores + the largest rank's load peak (ranks
// load as many at once as the budget leaves room for, at least one: rankLoadWorkers()); XSpace
// = the sum over its hosts. Ranks are kept in rank order until the next would not fit; at least
// one rank is always kept (its own reader then refuses it if it cannot load).
//
// Pure functions over file sizes; safe from any thread.

#include "core/io/runranks.h"

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace tracedesk::core {

struct RankCost
{
    uint64_t storeBytes = 0;   // kept once loaded
    uint64_t loadPeakBytes = 0; // transient while it loads (Kineto), 0 for XSpace hosts
};

// The estimate for one file of a run (Kineto JSON or XSpace by its name).
RankCost rankCost(const std::string &path);

struct RunFit
{
    std::vector<int64_t> ranks; // the ranks that fit, ascending (every rank when all fit)
    uint64_t runBytes = 0;      // the whole run's need
    uint64_t fitBytes = 0;      // the need of `ranks`
    uint64_t budget = 0;        // 0 = unknown: everything fits
    bool partial = false;       // some ranks were left out
};

// `files` in rank order (runFiles()); `budget` as MemoryGuard::budget().
RunFit fitRanks(const std::vector<RunFile> &files, uint64_t budget);

// The warning a load of the ranks that fit carries: "the whole run needs about 61 MiB to open,
// more than the 34 MiB available: only ranks 0-2 are opened, the distributed summary covers
// every rank".
std::string runFitNote(const RunFit &fit);
bool isRunFitNote(std::string_view warning);

// The need of these files loaded together (the rule above).
uint64_t runNeedBytes(const std::vector<RunFile> &files);

// How many Kineto ranks may load at once: what the budget leaves after the stores, divided by
// the largest load peak, between 1 and `cores`. `cores` when the budget is unknown.
unsigned rankLoadWorkers(const std::vector<std::string> &files, uint64_t budget, unsigned cores);

} // namespace tracedesk::core
