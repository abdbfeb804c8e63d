#include "core/base/heapreuse.h"

#ifdef __GLIBC__
#include <malloc.h>
#endif

namespace tracedesk::core {

namespace {
// glibc's default for M_MMAP_MAX.
constexpr int kDefaultMmapMax = 65536;
} // namespace

HeapReuse::HeapReuse()
{
#ifdef __GLIBC__
    ::mallopt(M_MMAP_MAX, 0);
#endif
}

HeapReuse::~HeapReuse()
{
#ifdef __GLIBC__
    ::mallopt(M_MMAP_MAX, kDefaultMmapMax);
#endif
}

} // namespace tracedesk::core
