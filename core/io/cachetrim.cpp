#include "core/io/cachetrim.h"

#include <algorithm>
#include <filesystem>
#include <string_view>
#include <vector>

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

namespace fs = std::filesystem;

namespace tracedesk::core {

namespace {

constexpr std::string_view kStoreSuffix = ".tdstore";

struct Store
{
    std::string path;
    uint64_t bytes = 0;
    int64_t lastUsedNs = 0;
};

std::vector<Store> listStores(const std::string &dir)
{
    std::vector<Store> out;
    std::error_code ec;
    for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
        const std::string name = it->path().filename().string();
        if (!name.ends_with(kStoreSuffix))
            continue;
        struct stat st = {};
        if (::stat(it->path().c_str(), &st) != 0 || !S_ISREG(st.st_mode))
            continue;
        out.push_back({it->path().string(), uint64_t(st.st_size),
                       int64_t(st.st_mtim.tv_sec) * 1000000000 + st.st_mtim.tv_nsec});
    }
    return out;
}

// Removes `path` unless someone holds a lease on it; false when it is in use.
bool removeUnlessInUse(const std::string &path)
{
    const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return true;   // already gone
    const bool free = ::flock(fd, LOCK_EX | LOCK_NB) == 0;
    if (free)
        ::unlink(path.c_str());
    ::close(fd);
    return free;
}

} // namespace

uint64_t cacheSizeBytes(const std::string &dir)
{
    uint64_t total = 0;
    for (const Store &s : listStores(dir))
        total += s.bytes;
    return total;
}

CacheTrimResult trimCache(const std::string &dir, uint64_t limitBytes)
{
    std::vector<Store> stores = listStores(dir);
    // Oldest use first; the path breaks ties so the order is the same on every run.
    std::sort(stores.begin(), stores.end(), [](const Store &a, const Store &b) {
        return a.lastUsedNs != b.lastUsedNs ? a.lastUsedNs < b.lastUsedNs : a.path < b.path;
    });
    CacheTrimResult result;
    for (const Store &s : stores)
        result.keptBytes += s.bytes;
    for (const Store &s : stores) {
        if (result.keptBytes <= limitBytes)
            break;
        if (!removeUnlessInUse(s.path))
            continue;
        result.keptBytes -= s.bytes;
        result.removedBytes += s.bytes;
        ++result.removedFiles;
    }
    return result;
}

void markCacheFileUsed(const std::string &path)
{
    ::utimensat(AT_FDCWD, path.c_str(), nullptr, 0);   // both times: now
}

std::shared_ptr<CacheFileLease> CacheFileLease::acquire(const std::string &path)
{
    const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return nullptr;
    if (::flock(fd, LOCK_SH | LOCK_NB) != 0) {
        ::close(fd);
        return nullptr;
    }
    return std::shared_ptr<CacheFileLease>(new CacheFileLease(fd));
}

CacheFileLease::~CacheFileLease()
{
    ::close(m_fd);
}

} // namespace tracedesk::core
