// Fuzzes the Chrome trace JSON reader from bytes in memory: plain, gzip and zstd inputs are told
// apart by their magic bytes, so one target covers the decompressors, the top-level scanner, the
// event parser and the assembler. Whatever loads is walked once so the store's invariants
// (rows inside their track, args readable) are exercised too, and a Kineto (PyTorch profiler)
// trace runs every PyTorch analysis, so their walks over roles, side columns and flows meet
// whatever the reader let through.

#include "core/analysis/analysiscache.h"
#include "core/analysis/pytorch/kernelview.h"
#include "core/analysis/pytorch/operatorstats.h"
#include "core/analysis/pytorch/pytorchmemory.h"
#include "core/analysis/pytorch/pytorchoverview.h"
#include "core/io/chromejsonreader.h"
#include "core/io/loadoptions.h"

#include <cstddef>
#include <cstdint>
#include <cstdlib>

using namespace tracedesk::core;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    LoadOptions options;
    options.memoryLimitBytes = uint64_t(512) << 20;
    options.maxDecompressedBytes = uint64_t(64) << 20;
    options.useCache = false;
    auto result = readChromeJsonBytes("fuzz.json", data, size, nullptr, options);
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
                    || row.start[i] > INT64_MAX - row.duration[i])
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
    if (trace.info.run.framework == "pytorch") {
        namespace pt = analysis::pytorch;
        analysis::AnalysisCache cache(result.value());
        const auto overview = pt::pytorchOverview(cache);
        for (const auto &step : overview->steps) {
            TimePs sum = 0;
            for (TimePs c : step.cost)
                sum += c;
            if (sum != step.total())   // the categories split each step exactly
                std::abort();
        }
        pt::operatorStats(cache);
        pt::kernelView(cache);
        pt::pytorchMemory(cache);
    }
    return 0;
}
