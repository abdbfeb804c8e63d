// Fuzzes the rocprofv3 JSON results reader from bytes in memory: simdjson meets the syntax, then
// the document walk meets every shape of value where a number, object or array belongs (agents,
// name tables, kernel symbols, every buffer record list, counter callbacks). Whatever loads is
// walked once so the store's invariants (rows inside their track, flows between valid slices,
// args readable) are exercised too.

#include "core/io/loadoptions.h"
#include "core/io/rocprof/rocprofreader.h"

#include <cstddef>
#include <cstdint>
#include <cstdlib>

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
    if (!result) {
        // Every refusal names the input.
        if (result.message().rfind("fuzz.json: ", 0) != 0)
            std::abort();
        return 0;
    }
    const Trace &trace = *result.value();
    uint64_t slices = 0;
    for (size_t t = 0; t < trace.tracks.size(); ++t) {
        const Track &track = trace.tracks[t];
        for (size_t r = 0; r < track.rows.size(); ++r) {
            const Row &row = track.rows[r];
            for (size_t i = 0; i < row.start.size(); ++i) {
                if (row.duration[i] < 0 || uint64_t(row.kind[i]) >= trace.kinds.size()
                    || row.start[i] > INT64_MAX - row.duration[i]
                    || (i > 0 && row.start[i] < row.start[i - 1] + row.duration[i - 1]))
                    std::abort();
                trace.forEachArg(SliceRef{uint32_t(t), uint32_t(r), uint32_t(i)},
                                 [](const ArgValue &) {});
                ++slices;
            }
        }
    }
    if (slices != trace.sliceCount())
        std::abort();
    for (const Flow &f : trace.flows) {
        if (!trace.valid(f.from) || !trace.valid(f.to))
            std::abort();
    }
    return 0;
}
