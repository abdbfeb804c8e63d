#pragma once

// Process memory figures for benchmarks, read from /proc/self/status (Linux).
//
// currentRssBytes() is VmRSS, peakRssBytes() is VmHWM (the high-water mark). resetPeakRss()
// asks the kernel to restart the high-water mark from the current RSS by writing "5" to
// /proc/self/clear_refs; it returns false where that is not permitted, and the peak then
// covers the whole process life. All functions return 0 / false when /proc is unavailable.
// Thread-safe (each call opens the files afresh).

#include <cstdint>

namespace tracedesk::core {

uint64_t currentRssBytes();
// The part of the RSS in file mappings (a store mapped from the cache, libraries): RssFile.
uint64_t fileRssBytes();
uint64_t peakRssBytes();
// Bytes the C library's allocator hands out right now (glibc: every arena and its own
// mappings); 0 where unknown. RSS minus file RSS minus this is memory freed but not returned.
uint64_t heapInUseBytes();
bool resetPeakRss();
// The machine's unused memory (MemFree of /proc/meminfo): not page cache. A load whose pages
// must first be reclaimed from the page cache spends seconds more in the kernel.
uint64_t freeMemoryBytes();
// CPU time the process (every thread) has spent in the kernel so far, in seconds.
double kernelCpuSeconds();

} // namespace tracedesk::core
