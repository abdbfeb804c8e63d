// Fuzzes the rocprofv3 CSV reader from bytes in memory: the header decides the file's kind and
// columns, then every row meets the field splitter (quotes, doubled quotes, cut-short rows) and
// the number parsers. Whatever loads is walked once so the store's invariants (rows inside their
// track, flows between valid slices, args readable) are exercised too.

#include "core/io/loadoptions.h"
#include "core/io/rocprof/rocprofreader.h"
#include "tests/fuzz/loadedtrace.h"

#include <cstddef>
#include <cstdint>

using namespace tracedesk::core;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    // Past a few MiB a file adds no new paths.
    if (size > (size_t(8) << 20))
        return 0;
    LoadOptions options;
    options.useCache = false;
    options.maxDecompressedBytes = size_t(64) << 20;
    auto result = readRocprofCsvBytes("fuzz.csv", data, size, nullptr, options);
    fuzzsupport::checkLoaded(result, "fuzz.csv");
    return 0;
}
