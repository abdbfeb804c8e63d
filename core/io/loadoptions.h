#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace tracedesk::core {

struct LoadOptions
{
    // For a logdir with several runs: which run to open (empty = the newest).
    std::string runName;
    // A compressed input that expands past this is refused (decompression-bomb guard).
    uint64_t maxDecompressedBytes = uint64_t(16) << 30;
    // The memory a load may take (core/io/memoryguard.h); 0 = what the machine has available
    // when the load starts.
    uint64_t memoryLimitBytes = 0;
    // Reuse / write the store cache.
    bool useCache = true;
    // A run of rank traces: move each rank so its ProfilerStep#<alignStep> starts where the
    // earliest rank's does (for ranks whose clocks disagree). Empty: the files' own clocks.
    std::string alignStep;
    // The trace of the CUDA / HIP graph capture the loaded trace replays (`--capture FILE`):
    // loaded beside it as Trace::graphCapture. Files opened together pair without it
    // (graphcapturepair.h); this names the capture when they would not.
    std::string graphCapture;
    // A run of several ranks (rank traces, XSpace hosts): open only these ranks, numbered as
    // core/io/runranks.h says; empty = every rank. A rank the run lacks is an error naming it.
    // The load's warnings then say which ranks are shown ("showing ranks 0, 3 of 64").
    std::vector<int64_t> ranks;
    // With `ranks` empty: when the whole run would not fit the memory budget (core/io/runfit.h),
    // open only its first ranks that do, with a warning saying so. Off: every rank is opened and
    // the readers' own memory checks decide.
    bool fitRanksToMemory = false;
    // Where the store cache lives; empty = $XDG_CACHE_HOME/tracedesk (or ~/.cache/tracedesk).
    std::string cacheDir;
    // After a store is saved, the least recently used ones go until the cache fits this
    // (core/io/cachetrim.h); 0 = no limit.
    uint64_t cacheLimitBytes = uint64_t(8) << 30;
};

} // namespace tracedesk::core
