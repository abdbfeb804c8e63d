#pragma once

// HeapReuse: while one lives, large allocations come from the allocator's heap instead of
// fresh memory mappings (glibc: M_MMAP_MAX 0). A phase that frees a large buffer and then
// allocates the next one (a load staging one event line after the other) then reuses the
// freed pages rather than having the kernel map and zero new ones: that was a fifth of a
// 100M-event load's time. The freed memory stays in the heap until trimmed
// (releaseFreedMemory()), so a phase whose peak matters more than its speed should not run
// under one. Process-wide: the setting holds while any HeapReuse lives (loads may overlap);
// any thread. A no-op where the C library has no such setting.

namespace tracedesk::core {

class HeapReuse
{
public:
    HeapReuse();
    ~HeapReuse();
    HeapReuse(const HeapReuse &) = delete;
    HeapReuse &operator=(const HeapReuse &) = delete;
};

} // namespace tracedesk::core
