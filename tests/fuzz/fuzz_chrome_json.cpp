// Fuzzes the Chrome trace JSON reader from bytes in memory: plain, gzip and zstd inputs are told
// apart by their magic bytes, so one target covers the decompressors, the top-level scanner, the
// event parser and the assembler. Whatever loads is checked against the store's invariants
// (loadedtrace.h), and a Kineto (PyTorch profiler)
// trace runs every PyTorch analysis, so their walks over roles, side columns and flows meet
// whatever the reader let through.

#include "core/analysis/analysiscache.h"
#include "core/analysis/pytorch/kernelview.h"
#include "core/analysis/pytorch/operatorstats.h"
#include "core/analysis/pytorch/pytorchmemory.h"
#include "core/analysis/pytorch/pytorchoverview.h"
#include "core/io/chromejsonreader.h"
#include "core/io/loadoptions.h"
#include "loadedtrace.h"

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
    fuzzsupport::checkLoaded(result, "fuzz.json");
    if (!result)
        return 0;
    const Trace &trace = *result.value();
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
