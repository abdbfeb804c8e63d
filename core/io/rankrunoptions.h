#pragma once

// What a synthetic distributed run looks like, whatever format its files are written in
// (kinetorungenerator.h, xspacerungenerator.h).

#include <cstdint>

namespace tracedesk::core {

struct RankRunOptions
{
    int ranks = 8;     // ranks (hosts), 1 .. 4096
    int slowRank = -1; // -1: ranks / 2
    uint64_t eventsPerRank = 100000;
    uint64_t seed = 1;
    bool overwrite = false;
};

} // namespace tracedesk::core
