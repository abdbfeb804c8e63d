#pragma once

#include <cstdint>
#include <string>

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
    // Where the store cache lives; empty = $XDG_CACHE_HOME/tracedesk (or ~/.cache/tracedesk).
    std::string cacheDir;
    // After a store is saved, the least recently used ones go until the cache fits this
    // (core/io/cachetrim.h); 0 = no limit.
    uint64_t cacheLimitBytes = uint64_t(8) << 30;
};

} // namespace tracedesk::core
