#include "core/base/heapreuse.h"

#include <mutex>

#ifdef __GLIBC__
#include <malloc.h>
#endif

namespace tracedesk::core {

namespace {
// glibc's default for M_MMAP_MAX.
constexpr int kDefaultMmapMax = 65536;
// Loads may overlap (two profiles opened for a comparison): the setting holds while any
// HeapReuse lives.
std::mutex g_mutex;
int g_live = 0;
} // namespace

HeapReuse::HeapReuse()
{
    std::lock_guard lock(g_mutex);
#ifdef __GLIBC__
    if (g_live == 0)
        ::mallopt(M_MMAP_MAX, 0);
#endif
    ++g_live;
}

HeapReuse::~HeapReuse()
{
    std::lock_guard lock(g_mutex);
    --g_live;
#ifdef __GLIBC__
    if (g_live == 0)
        ::mallopt(M_MMAP_MAX, kDefaultMmapMax);
#endif
}

} // namespace tracedesk::core
