#pragma once

// MemoryGuard: whether a load still fits in the memory this machine can give it, so a profile too
// big for the machine stops with a message naming the file and the sizes instead of the kernel's
// OOM killer ending the whole application (and whatever else the user had open in it).
//
// The budget is fixed when the guard is made: LoadOptions::memoryLimitBytes when set, else the
// memory available at that moment (MemAvailable, lowered to the cgroup's remaining allowance where
// one applies). A reader asks admit() before it allocates for an estimate (from an index pass, a
// file size or a decompressed size) and checkGrowth() now and then while it fills the store, which
// compares how far the process has grown since the guard was made. A budget of 0 means unknown:
// nothing is refused. Immutable after construction; safe to share across the reader's threads.

#include "core/base/result.h"

#include <cstdint>
#include <string>
#include <string_view>

namespace tracedesk::core {

// MemAvailable from /proc/meminfo, capped by the cgroup (v2 or v1) limit minus its usage;
// 0 when neither can be read.
uint64_t availableMemoryBytes();

// "1.5 GiB", "320 MiB", "12 KiB", "17 B".
std::string formatBytes(uint64_t bytes);

class MemoryGuard
{
public:
    // limitBytes = 0: the memory available now.
    explicit MemoryGuard(uint64_t limitBytes = 0);

    uint64_t budget() const { return m_budget; }

    // Error when `estimateBytes` more would not fit the budget. The message names the file, the
    // estimate and the budget, and ends with `suggestion` when one is given.
    Result<bool> admit(const std::string &path, uint64_t estimateBytes,
                       std::string_view suggestion = {}) const;

    // Error when the process has grown by more than the budget since the guard was made.
    Result<bool> checkGrowth(const std::string &path, std::string_view suggestion = {}) const;

private:
    Error tooBig(const std::string &path, uint64_t needBytes, std::string_view suggestion) const;

    uint64_t m_budget = 0;
    uint64_t m_rssAtStart = 0;
};

// Suggestions the readers end their refusal with.
inline constexpr std::string_view kSuggestSingleHost =
    "open a single host's .xplane.pb instead of the whole run folder, or close other programs";
inline constexpr std::string_view kSuggestSmallerTrace =
    "capture a shorter trace, or close other programs and try again";

} // namespace tracedesk::core
