#pragma once

// Hands memory the allocator holds but no longer uses back to the system (glibc's malloc_trim:
// freed chunks of every arena, not only the top of the main heap). Analyses free large scratch
// buffers from worker threads whose arenas outlive them; without this the process keeps their
// high-water mark. Costs a walk over the arenas' free lists: call it after large work, not in
// loops. A no-op where the C library has no such call.

namespace tracedesk::core {

void releaseFreedMemory();

} // namespace tracedesk::core
