#include "core/io/memoryusage.h"

#include <cstdio>
#include <cstring>

#include <sys/resource.h>

#ifdef __GLIBC__
#include <malloc.h>
#endif

namespace tracedesk::core {

namespace {

// Value of a "<key>:   <n> kB" line of a /proc file, in bytes.
uint64_t procValue(const char *file, const char *key)
{
    std::FILE *f = std::fopen(file, "r");
    if (!f)
        return 0;
    char line[256];
    uint64_t bytes = 0;
    const size_t keyLength = std::strlen(key);
    while (std::fgets(line, sizeof line, f)) {
        if (std::strncmp(line, key, keyLength) == 0 && line[keyLength] == ':') {
            unsigned long long kb = 0;
            if (std::sscanf(line + keyLength + 1, "%llu", &kb) == 1)
                bytes = uint64_t(kb) * 1024;
            break;
        }
    }
    std::fclose(f);
    return bytes;
}

uint64_t statusValue(const char *key)
{
    return procValue("/proc/self/status", key);
}

} // namespace

uint64_t currentRssBytes()
{
    return statusValue("VmRSS");
}

uint64_t fileRssBytes()
{
    return statusValue("RssFile");
}

uint64_t heapInUseBytes()
{
#if defined(__GLIBC__) && (__GLIBC__ > 2 || __GLIBC_MINOR__ >= 33)
    const struct mallinfo2 info = ::mallinfo2();
    return uint64_t(info.uordblks) + uint64_t(info.hblkhd);
#else
    return 0;
#endif
}

uint64_t peakRssBytes()
{
    return statusValue("VmHWM");
}

uint64_t freeMemoryBytes()
{
    return procValue("/proc/meminfo", "MemFree");
}

double kernelCpuSeconds()
{
    struct rusage usage = {};
    if (::getrusage(RUSAGE_SELF, &usage) != 0)
        return 0;
    return double(usage.ru_stime.tv_sec) + double(usage.ru_stime.tv_usec) / 1e6;
}

bool resetPeakRss()
{
    std::FILE *f = std::fopen("/proc/self/clear_refs", "w");
    if (!f)
        return false;
    const bool written = std::fputs("5", f) >= 0;
    const bool closed = std::fclose(f) == 0;
    return written && closed;
}

} // namespace tracedesk::core
