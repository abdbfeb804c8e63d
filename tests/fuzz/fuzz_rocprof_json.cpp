// Fuzzes the rocprofv3 JSON results reader from bytes in memory: simdjson meets the syntax, then
// the document walk meets every shape of value where a number, object or array belongs (agents,
// name tables, kernel symbols, every buffer record list, counter callbacks). Whatever loads is
// walked once so the store's invariants (rows inside their track, flows between valid slices,
// args readable) are exercised too.

#include "core/io/loadoptions.h"
#include "core/io/rocprof/rocprofreader.h"
#include "tests/fuzz/loadedtrace.h"

#include <cstddef>
#include <cstdint>

using namespace tracedesk::core;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    // Past a few MiB a document adds no new paths.
    if (size > (size_t(8) << 20))
        return 0;
    LoadOptions options;
    options.useCache = false;
    options.maxDecompressedBytes = size_t(64) << 20;
    auto result = readRocprofJsonBytes("fuzz.json", data, size, nullptr, options);
    fuzzsupport::checkLoaded(result, "fuzz.json");
    return 0;
}
