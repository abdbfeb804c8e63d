// Fuzzes the XSpace reader on one in-memory `<host>.xplane.pb`, then walks the store it built so
// a reader that accepted bad input and left an inconsistent store is caught too.

#include "core/io/loadoptions.h"
#include "core/io/storefile.h"
#include "core/io/xspacereader.h"

#include <cstdint>
#include <cstdlib>
#include <string_view>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    using namespace tracedesk::core;
    LoadOptions options;
    options.memoryLimitBytes = uint64_t(512) << 20;
    options.maxDecompressedBytes = uint64_t(64) << 20;
    options.useCache = false;
    const std::string_view bytes(reinterpret_cast<const char *>(data), size);
    auto loaded = readXSpaceBytes(bytes, "fuzz.xplane.pb", nullptr, options);
    if (!loaded) {
        // Every refusal must name the input.
        if (loaded.error().message.find("fuzz.xplane.pb") == std::string::npos)
            std::abort();
        return 0;
    }
    const Trace &trace = *loaded.value();
    if (!storefile::validateTrace(trace))
        std::abort();
    if (trace.end < trace.begin)
        std::abort();
    return 0;
}
