#pragma once

// RunRanks: which rank each file of a distributed run stands for, before any file is loaded, so
// a part of the run can be opened (LoadOptions::ranks) and every view numbers ranks alike.
//
// Rule (the one the rank-run loader and the distributed summary apply after loading): a Kineto
// trace's distributedInfo.rank, read from the file's first 64 KiB (PyTorch writes its top-level
// keys before the event array; plain, gzip and zstd files alike), else the rank in the file
// name (rankname.h: rank-3, worker3, _3.json), else the file's position among the run's files as
// given. An XSpace host file (`*.xplane.pb`) has no distributedInfo: its name, else its
// position. Two files may claim one rank; both belong to it.
//
// Rank lists as users type them: "0-3,17" (ranges and single ranks, commas, spaces allowed).
//
// Pure functions; runFiles() reads the head of each file and is safe from any thread.

#include "core/base/result.h"

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace tracedesk::core {

struct RunFile
{
    std::string path;
    size_t position = 0;       // index among the run's files as given
    int64_t rank = -1;
    std::string rankSource;    // "distributedInfo", "file name" or "order"
};

// Every file with its rank, in rank order (ties in the order given).
std::vector<RunFile> runFiles(const std::vector<std::string> &files);

// The distinct ranks of `files`, ascending.
std::vector<int64_t> rankNumbers(const std::vector<RunFile> &files);

// The files of `ranks`, in rank order. An error names every rank the run does not have and the
// ranks it has: "<run>: has no rank 7, 9 (its ranks: 0-3)".
Result<std::vector<RunFile>> selectRanks(const std::vector<RunFile> &files,
                                         const std::vector<int64_t> &ranks,
                                         const std::string &runName);

// "0-3,17" -> {0, 1, 2, 3, 17} (sorted, without repeats). Errors say what is wrong with the
// text; at most kMaxListedRanks ranks.
inline constexpr size_t kMaxListedRanks = size_t(1) << 20;
Result<std::vector<int64_t>> parseRankList(std::string_view text);

// Sorted ranks written back compactly: runs of three or more as ranges ("0-3, 17", "0, 3").
std::string formatRankList(std::vector<int64_t> ranks);

// "showing ranks 0, 3 of 64": the note a load of part of a run carries.
std::string shownRanksNote(const std::vector<int64_t> &shown, size_t runRankCount);
// True for a warning shownRanksNote() wrote.
bool isShownRanksNote(std::string_view warning);

} // namespace tracedesk::core
