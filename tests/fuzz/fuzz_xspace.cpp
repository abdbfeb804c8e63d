// Fuzzes the XSpace reader, then walks the store it built so a reader that accepted bad input
// and left an inconsistent store is caught too. An input is one `<host>.xplane.pb`, read from
// memory; an input holding the marker kHostSplit is a run folder of two hosts (the bytes before
// and after the marker), read from files, which also exercises aligning hosts in time.

#include "core/io/loadoptions.h"
#include "core/io/storefile.h"
#include "core/io/xspacereader.h"

#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>
#include <vector>

#include <sys/stat.h>
#include <unistd.h>

namespace {

constexpr std::string_view kHostSplit = "\xffXSPLIT\xff";

void writeFile(const std::string &path, std::string_view bytes)
{
    FILE *f = std::fopen(path.c_str(), "wb");
    if (!f || std::fwrite(bytes.data(), 1, bytes.size(), f) != bytes.size())
        std::abort();
    std::fclose(f);
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    using namespace tracedesk::core;
    LoadOptions options;
    options.memoryLimitBytes = uint64_t(512) << 20;
    options.maxDecompressedBytes = uint64_t(64) << 20;
    options.useCache = false;
    const std::string_view bytes(reinterpret_cast<const char *>(data), size);
    const size_t split = bytes.find(kHostSplit);

    std::string expectedName = "fuzz.xplane.pb";
    Result<std::shared_ptr<Trace>> loaded = Error{};
    if (split == std::string_view::npos) {
        loaded = readXSpaceBytes(bytes, expectedName, nullptr, options);
    } else {
        // Two hosts of one run, as files in memory-backed /dev/shm.
        char folder[] = "/dev/shm/fuzz-xspace-XXXXXX";
        if (!::mkdtemp(folder))
            std::abort();
        const std::string a = std::string(folder) + "/a.xplane.pb";
        const std::string b = std::string(folder) + "/b.xplane.pb";
        writeFile(a, bytes.substr(0, split));
        writeFile(b, bytes.substr(split + kHostSplit.size()));
        loaded = readXSpaceFiles({a, b}, nullptr, options);
        ::unlink(a.c_str());
        ::unlink(b.c_str());
        ::rmdir(folder);
        expectedName = folder;
    }
    if (!loaded) {
        // Every refusal must name the input.
        if (loaded.error().message.find(expectedName) == std::string::npos)
            std::abort();
        return 0;
    }
    const Trace &trace = *loaded.value();
    if (!storefile::validateTrace(trace) || trace.end < trace.begin)
        std::abort();
    return 0;
}
