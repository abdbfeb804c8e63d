// Fuzzes the legacy per-tool file readers (core/legacy). The first input byte picks the tool,
// the rest is the file: 0 overview_page.pb, 1 input_pipeline.pb, 2 tensorflow_stats.pb,
// 3 op_profile.json (taken modulo 4).

#include "core/legacy/legacytools.h"

#include <cstdint>
#include <cstdlib>
#include <string>

#include <unistd.h>

namespace {

const char *const kSuffixes[4] = {".overview_page.pb", ".input_pipeline.pb",
                                  ".tensorflow_stats.pb", ".op_profile.json"};

// The readers take a path, so each input is written to a file in memory-backed /dev/shm.
std::string writeInput(const uint8_t *data, size_t size, int tool)
{
    std::string name = std::string("/dev/shm/fuzz-legacy-XXXXXX") + kSuffixes[tool];
    const int fd = ::mkstemps(name.data(), int(std::string(kSuffixes[tool]).size()));
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

template<typename R>
void check(const R &result, const std::string &path)
{
    if (!result && result.error().message.find(path) == std::string::npos)
        std::abort();
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    using namespace tracedesk::core::legacy;
    if (size == 0)
        return 0;
    const int tool = data[0] % 4;
    const std::string path = writeInput(data + 1, size - 1, tool);
    switch (tool) {
    case 0:
        check(readOverviewPageFile(path), path);
        break;
    case 1:
        check(readInputPipelineFile(path), path);
        break;
    case 2:
        check(readTfStatsFile(path), path);
        break;
    default:
        check(readOpProfileJsonFile(path), path);
        break;
    }
    ::unlink(path.c_str());
    return 0;
}
