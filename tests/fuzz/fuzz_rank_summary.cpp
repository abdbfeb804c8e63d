// Fuzzes decodeSummary(): the reduce step reads rank summary files that cluster tasks wrote,
// copied between machines and file systems, where any of them may be cut short, from another
// build, or not a summary at all.

#include "core/analysis/distributed/summaryfile.h"

#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    using namespace tracedesk::core::analysis::distributed;
    const std::string name = "fuzzed.tdsummary";
    auto read = decodeSummary(std::string_view(reinterpret_cast<const char *>(data), size), name);
    if (!read) {
        // An error names the file.
        if (read.message().rfind(name + ": ", 0) != 0)
            std::abort();
        return 0;
    }
    // What was read writes back and reads again to the same summary.
    auto again = decodeSummary(encodeSummary(read.value()), name);
    if (!again || encodeSummary(again.value()) != encodeSummary(read.value()))
        std::abort();
    return 0;
}
