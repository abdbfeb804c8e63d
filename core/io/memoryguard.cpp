#include "core/io/memoryguard.h"

#include "core/io/memoryusage.h"

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <string>

namespace tracedesk::core {

namespace {

// The "MemAvailable:  <n> kB" line of /proc/meminfo, in bytes; 0 when absent.
uint64_t memAvailable()
{
    std::FILE *f = std::fopen("/proc/meminfo", "r");
    if (!f)
        return 0;
    char line[256];
    uint64_t bytes = 0;
    while (std::fgets(line, sizeof line, f)) {
        unsigned long long kb = 0;
        if (std::sscanf(line, "MemAvailable: %llu kB", &kb) == 1) {
            bytes = uint64_t(kb) * 1024;
            break;
        }
    }
    std::fclose(f);
    return bytes;
}

// A number read from a one-value cgroup file; 0 for "max", a missing file or garbage.
uint64_t cgroupValue(const char *path)
{
    std::ifstream in(path);
    std::string text;
    if (!(in >> text) || text == "max")
        return 0;
    uint64_t value = 0;
    for (char c : text) {
        if (c < '0' || c > '9')
            return 0;
        value = value * 10 + uint64_t(c - '0');
    }
    return value;
}

// What the process's cgroup still allows; 0 when there is no limit (or it cannot be read).
uint64_t cgroupRemaining()
{
    uint64_t limit = cgroupValue("/sys/fs/cgroup/memory.max");
    uint64_t usage = cgroupValue("/sys/fs/cgroup/memory.current");
    if (limit == 0) {
        limit = cgroupValue("/sys/fs/cgroup/memory/memory.limit_in_bytes");
        usage = cgroupValue("/sys/fs/cgroup/memory/memory.usage_in_bytes");
        // cgroup v1 reports "no limit" as a huge page-aligned number.
        if (limit >= (uint64_t(1) << 60))
            limit = 0;
    }
    if (limit == 0)
        return 0;
    return limit > usage ? limit - usage : 1;
}

} // namespace

uint64_t availableMemoryBytes()
{
    const uint64_t machine = memAvailable();
    const uint64_t group = cgroupRemaining();
    if (machine == 0)
        return group;
    return group == 0 ? machine : std::min(machine, group);
}

std::string formatBytes(uint64_t bytes)
{
    static const char *const units[] = {"B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
    double value = double(bytes);
    int unit = 0;
    while (value >= 1024.0 && unit < 6) {
        value /= 1024.0;
        ++unit;
    }
    char text[32];
    if (unit == 0)
        std::snprintf(text, sizeof text, "%llu B", static_cast<unsigned long long>(bytes));
    else
        std::snprintf(text, sizeof text, value < 10 ? "%.1f %s" : "%.0f %s", value, units[unit]);
    return text;
}

MemoryGuard::MemoryGuard(uint64_t limitBytes)
    : m_budget(limitBytes ? limitBytes : availableMemoryBytes()), m_rssAtStart(currentRssBytes())
{
}

Error MemoryGuard::tooBig(const std::string &path, uint64_t needBytes,
                          std::string_view suggestion) const
{
    std::string problem = "needs about " + formatBytes(needBytes) + " of memory to load, but only "
                          + formatBytes(m_budget) + " is available";
    if (!suggestion.empty())
        problem += "; " + std::string(suggestion);
    return fileError(path, problem);
}

Result<bool> MemoryGuard::admit(const std::string &path, uint64_t estimateBytes,
                                std::string_view suggestion) const
{
    if (m_budget == 0 || estimateBytes <= m_budget)
        return true;
    return tooBig(path, estimateBytes, suggestion);
}

Result<bool> MemoryGuard::checkGrowth(const std::string &path, std::string_view suggestion) const
{
    if (m_budget == 0)
        return true;
    const uint64_t now = currentRssBytes();
    if (now <= m_rssAtStart || now - m_rssAtStart <= m_budget)
        return true;
    return tooBig(path, now - m_rssAtStart, suggestion);
}

} // namespace tracedesk::core
