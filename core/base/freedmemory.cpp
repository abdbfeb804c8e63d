#include "core/base/freedmemory.h"

#ifdef __GLIBC__
#include <malloc.h>
#endif

namespace tracedesk::core {

void releaseFreedMemory()
{
#ifdef __GLIBC__
    ::malloc_trim(0);
#endif
}

} // namespace tracedesk::core
