#include "core/io/storecache.h"

#include "core/io/cachetrim.h"
#include "core/io/storefile.h"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <cstdlib>
#include <filesystem>
#include <memory>

#include <signal.h>
#include <sys/stat.h>

namespace fs = std::filesystem;

namespace tracedesk::core {

namespace {

constexpr size_t kIdentityPrefixBytes = 1 << 20;

void mix(uint64_t &hash, uint64_t value)
{
    hash = storefile::fnv1a(&value, sizeof value, hash);
}

void mix(uint64_t &hash, const std::string &text)
{
    mix(hash, uint64_t(text.size()));
    hash = storefile::fnv1a(text.data(), text.size(), hash);
}

// Path, size, mtime (ns) and a hash of the first MiB: cheap, and changes whenever the file does
// in practice (a same-size rewrite within the same nanosecond would also have to keep the head).
bool mixIdentity(uint64_t &hash, const std::string &source)
{
    std::error_code ec;
    const fs::path absolute = fs::absolute(source, ec);
    if (ec)
        return false;
    struct stat st = {};
    if (::stat(absolute.c_str(), &st) != 0 || !S_ISREG(st.st_mode))
        return false;
    mix(hash, absolute.string());
    mix(hash, uint64_t(st.st_size));
    mix(hash, uint64_t(st.st_mtim.tv_sec) * 1000000000ull + uint64_t(st.st_mtim.tv_nsec));

    std::unique_ptr<std::FILE, int (*)(std::FILE *)> f(std::fopen(absolute.c_str(), "rb"),
                                                      std::fclose);
    if (!f)
        return false;
    std::vector<char> head(std::min<size_t>(kIdentityPrefixBytes, size_t(st.st_size)));
    if (std::fread(head.data(), 1, head.size(), f.get()) != head.size())
        return false;
    mix(hash, storefile::fnv1a(head.data(), head.size()));
    return true;
}

} // namespace

std::string defaultCacheDir()
{
    const char *xdg = std::getenv("XDG_CACHE_HOME");
    if (xdg && *xdg && fs::path(xdg).is_absolute())
        return (fs::path(xdg) / "tracedesk").string();
    const char *home = std::getenv("HOME");
    if (home && *home)
        return (fs::path(home) / ".cache" / "tracedesk").string();
    return {};
}

std::string cacheFileFor(const std::vector<std::string> &sources, const LoadOptions &options)
{
    const std::string dir = options.cacheDir.empty() ? defaultCacheDir() : options.cacheDir;
    if (dir.empty() || sources.empty())
        return {};
    uint64_t hash = storefile::fnv1a(storefile::kMagic, sizeof storefile::kMagic);
    mix(hash, uint64_t(storefile::kVersion));
    mix(hash, uint64_t(sources.size()));
    if (!options.alignStep.empty())
        mix(hash, "align-step " + options.alignStep); // a merged run moved by step differs
    if (!options.ranks.empty()) {
        std::string ranks = "ranks"; // part of a run is another store than the whole
        for (int64_t r : options.ranks)
            ranks += " " + std::to_string(r);
        mix(hash, ranks);
    }
    for (const auto &source : sources) {
        if (!mixIdentity(hash, source))
            return {};
    }
    char name[32];
    std::snprintf(name, sizeof name, "%016llx.tdstore", static_cast<unsigned long long>(hash));
    return (fs::path(dir) / name).string();
}

std::shared_ptr<Trace> loadCachedTrace(const std::vector<std::string> &sources,
                                       const LoadOptions &options, LoadControl *control)
{
    const std::string path = cacheFileFor(sources, options);
    std::error_code ec;
    if (path.empty() || !fs::is_regular_file(path, ec))
        return nullptr;
    // Held for as long as the trace lives, so trimming never removes a store in use.
    auto lease = CacheFileLease::acquire(path);
    if (!lease)
        return nullptr;
    auto loaded = readStoreFile(path, control, options.memoryLimitBytes);
    if (!loaded) {
        if (!loaded.isCancelled())
            fs::remove(path, ec); // corrupt or from an incompatible build: rewrite it later
        return nullptr;
    }
    markCacheFileUsed(path);
    struct Leased
    {
        std::shared_ptr<Trace> trace;
        std::shared_ptr<CacheFileLease> lease;
    };
    auto leased = std::make_shared<Leased>(Leased{std::move(loaded).value(), std::move(lease)});
    return std::shared_ptr<Trace>(leased, leased->trace.get());
}

void removeStaleCacheTemporaries(const std::string &dir)
{
    std::error_code ec;
    for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
        const std::string name = it->path().filename().string();
        const size_t mark = name.find(".tdstore.tmp-");
        if (mark == std::string::npos)
            continue;
        // The writer's pid follows the mark (storefilewriter.cpp, temporaryPathFor()).
        const char *digits = name.c_str() + mark + std::strlen(".tdstore.tmp-");
        char *after = nullptr;
        const long pid = std::strtol(digits, &after, 10);
        if (after == digits || pid <= 0)
            continue;
        if (::kill(pid_t(pid), 0) == 0 || errno != ESRCH)
            continue; // still being written (or not ours to judge)
        std::error_code rec;
        if (it->is_regular_file(rec))
            fs::remove(it->path(), rec);
    }
}

void saveCachedTrace(const Trace &trace, const std::vector<std::string> &sources,
                     const LoadOptions &options, const std::string &expectedCacheFile,
                     const StoreWriteOptions &write)
{
    const std::string path = cacheFileFor(sources, options);
    if (path.empty() || (!expectedCacheFile.empty() && path != expectedCacheFile))
        return;
    std::error_code ec;
    const fs::path dir = fs::path(path).parent_path();
    fs::create_directories(dir, ec);
    if (ec)
        return;
    removeStaleCacheTemporaries(dir.string());
    if (writeStoreFile(trace, path, write) && options.cacheLimitBytes > 0)
        trimCache(dir.string(), options.cacheLimitBytes);
}

} // namespace tracedesk::core
