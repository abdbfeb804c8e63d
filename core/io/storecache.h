#pragma once

// StoreCache: a loaded Trace saved as a zstd-compressed columnar file in the user's cache
// directory, keyed by the source's identity (paths, sizes, mtimes, a hash of each file's
// first bytes) and validated by checksums. A stale or corrupt cache entry is ignored and
// rewritten; it never produces an error for the user.

#include "core/base/loadcontrol.h"
#include "core/base/result.h"
#include "core/io/loadoptions.h"
#include "core/model/trace.h"

#include <optional>
#include <string>
#include <atomic>
#include <vector>

namespace tracedesk::core {

std::string defaultCacheDir();
// The cache file for these sources, or an empty string when their identity cannot be read.
std::string cacheFileFor(const std::vector<std::string> &sources, const LoadOptions &options);

struct StoreWriteOptions
{
    // Written as the trace's LoadInfo instead of trace.info (a copy taken before the loader
    // added notes that only apply to this opening).
    const LoadInfo *info = nullptr;
    // Set from any thread to end the write: it returns cancelled and leaves no file behind.
    const std::atomic<bool> *stop = nullptr;
};

// Serialise / deserialise a whole trace (also used directly by tests and the fuzzer). The file
// appears under `path` whole or not at all (a temporary file, then a rename).
Result<bool> writeStoreFile(const Trace &trace, const std::string &path,
                            const StoreWriteOptions &options = {});
// `memoryLimitBytes` works as LoadOptions::memoryLimitBytes (0 = the memory available now): a
// store whose decoded size would not fit is refused before anything is allocated for it.
Result<std::shared_ptr<Trace>> readStoreFile(const std::string &path, LoadControl *control,
                                             uint64_t memoryLimitBytes = 0);

// Loader-facing helpers: silent on any failure.
std::shared_ptr<Trace> loadCachedTrace(const std::vector<std::string> &sources,
                                       const LoadOptions &options, LoadControl *control);
// `expectedCacheFile`, when given, is cacheFileFor() taken before the sources were read: the
// trace is only saved when the sources still have that identity (a file appended to during the
// load must not be cached under its new size with the old contents). Temporary files left by
// writers that died are removed here.
// `write` as writeStoreFile() takes it.
void saveCachedTrace(const Trace &trace, const std::vector<std::string> &sources,
                     const LoadOptions &options, const std::string &expectedCacheFile = {},
                     const StoreWriteOptions &write = {});
// Removes `*.tdstore.tmp-<pid>-<n>` files in `dir` whose writing process no longer runs.
void removeStaleCacheTemporaries(const std::string &dir);

} // namespace tracedesk::core
