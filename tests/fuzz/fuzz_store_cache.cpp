// Fuzzes readStoreFile(): a store cache file is read back from the user's cache directory, where
// anything (a torn write, another build's format, a disk error) may have changed it.

#include "core/io/storecache.h"

#include <cstdint>
#include <cstdlib>
#include <string>

#include <unistd.h>

namespace {

// readStoreFile() maps a path, so each input is written to a file in memory-backed /dev/shm.
std::string writeInput(const uint8_t *data, size_t size)
{
    char name[] = "/dev/shm/fuzz-store-XXXXXX";
    const int fd = ::mkstemp(name);
    if (fd < 0)
        std::abort();
    for (size_t done = 0; done < size;) {
        const ssize_t n = ::write(fd, data + done, size - done);
        if (n <= 0)
            std::abort();
        done += size_t(n);
    }
    ::close(fd);
    return name;
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    using namespace tracedesk::core;
    const std::string path = writeInput(data, size);
    auto loaded = readStoreFile(path, nullptr, uint64_t(512) << 20);
    ::unlink(path.c_str());
    if (!loaded && loaded.error().message.find(path) == std::string::npos)
        std::abort();
    return 0;
}
