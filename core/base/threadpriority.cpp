#include "core/base/threadpriority.h"

#if defined(__linux__)
#include <cerrno>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>
#endif

namespace tracedesk::core {

void lowerThisThreadPriority()
{
#if defined(__linux__)
    // On Linux the nice value is per thread: PRIO_PROCESS with a thread id sets that thread's.
    const auto tid = id_t(::syscall(SYS_gettid));
    errno = 0;
    const int current = ::getpriority(PRIO_PROCESS, tid);
    if (errno == 0 && current < kBackgroundNice)
        ::setpriority(PRIO_PROCESS, tid, kBackgroundNice);
#endif
}

} // namespace tracedesk::core
