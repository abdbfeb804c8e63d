#pragma once

// Keeping the store cache under a size limit.
//
// The cache holds one `<hash>.tdstore` per profile opened, and a rewritten profile gets a new
// hash and leaves its old file behind, so without a limit the folder only grows. trimCache()
// removes the least recently used stores until the rest fit the limit. A store's modification
// time is its last use: the writer sets it, and markCacheFileUsed() sets it whenever a store is
// read back. A store in use is never removed: a store loaded from the cache holds a shared
// flock on its file for as long as the Trace lives (CacheFileLease), in this process or
// another, and trimCache() removes a file only while holding an exclusive lock on it.
//
// Thread rules: any thread; several processes may trim one folder at the same time.

#include <cstdint>
#include <memory>
#include <string>

namespace tracedesk::core {

struct CacheTrimResult
{
    uint64_t keptBytes = 0;      // stores left (those in use included)
    uint64_t removedBytes = 0;
    size_t removedFiles = 0;
};

// Total size of the stores (`*.tdstore`) in `dir`.
uint64_t cacheSizeBytes(const std::string &dir);
// Removes least recently used stores until at most `limitBytes` remain; skips stores in use.
CacheTrimResult trimCache(const std::string &dir, uint64_t limitBytes);
// Removes every store not in use.
inline CacheTrimResult clearCache(const std::string &dir) { return trimCache(dir, 0); }
// Records a use of the store at `path` (its modification time becomes now).
void markCacheFileUsed(const std::string &path);

// A shared lock on a store file, held while a Trace read from it lives.
class CacheFileLease
{
public:
    // Null when the file cannot be opened or is being removed right now.
    static std::shared_ptr<CacheFileLease> acquire(const std::string &path);
    ~CacheFileLease();
    CacheFileLease(const CacheFileLease &) = delete;
    CacheFileLease &operator=(const CacheFileLease &) = delete;

private:
    explicit CacheFileLease(int fd) : m_fd(fd) {}
    int m_fd;
};

} // namespace tracedesk::core
