// Fuzzes the rocpd database reader (rocprofv3's rocpd, and rocmProfileData's RPD) from bytes in
// memory: SQLite opens the image read-only (its own page checks meet the corruption), then the
// run-suffix and column probing and every table's joins meet whatever rows survive. Whatever
// loads is walked
// once so the store's invariants (rows inside their track, flows between valid slices, args
// readable) are exercised too.

#include "core/io/loadoptions.h"
#include "core/io/rocprof/rocprofreader.h"
#include "tests/fuzz/loadedtrace.h"

#include <cstddef>
#include <cstdint>

using namespace tracedesk::core;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    // SQLite reads a page at a time; anything past a few MiB adds no new paths.
    if (size > (size_t(8) << 20))
        return 0;
    LoadOptions options;
    options.useCache = false;
    auto result = readRocpdBytes("fuzz.db", data, size, nullptr, options);
    fuzzsupport::checkLoaded(result, "fuzz.db");
    return 0;
}
