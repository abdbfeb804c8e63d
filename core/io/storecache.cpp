#include "core/io/storecache.h"

namespace tracedesk::core {

std::string defaultCacheDir() { return {}; }
std::string cacheFileFor(const std::vector<std::string> &, const LoadOptions &) { return {}; }
Result<bool> writeStoreFile(const Trace &, const std::string &path)
{
    return fileError(path, "store cache not available");
}
Result<std::shared_ptr<Trace>> readStoreFile(const std::string &path, LoadControl *)
{
    return fileError(path, "store cache not available");
}
std::shared_ptr<Trace> loadCachedTrace(const std::vector<std::string> &, const LoadOptions &, LoadControl *)
{
    return nullptr;
}
void saveCachedTrace(const Trace &, const std::vector<std::string> &, const LoadOptions &) {}

} // namespace tracedesk::core
