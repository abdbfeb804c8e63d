// `--rank N` of the PyTorch reports: which rank of a merged run (a folder of rank traces) the
// overview, op-stats, kernel-stats and memory-profile reports describe.

#include "options.h"
#include "pytorchcommands.h"

#include "core/analysis/pytorch/graphcapture.h"
#include "core/analysis/pytorch/kinetoindex.h"
#include "core/analysis/pytorch/rankanalyses.h"
#include "core/io/traceloader.h"

#include <filesystem>

#include <cstdio>

namespace tracedesk::cli {

using namespace core::analysis;

std::optional<std::string> rankOption(const ParsedArgs &args)
{
    if (!args.has("rank"))
        return std::nullopt;
    return args.value("rank");
}

std::optional<std::string> captureOption(const ParsedArgs &args)
{
    if (!args.has("capture"))
        return std::nullopt;
    return args.value("capture");
}

AnalysisCachePtr pytorchRankAnalyses(const AnalysisCachePtr &cache, const char *command,
                                     const std::optional<std::string> &rank, bool json,
                                     int *code)
{
    *code = kExitOk;
    const core::Trace &trace = cache->trace();
    const std::vector<std::string> labels = pytorch::rankSectionLabels(trace);
    uint32_t section = 0;
    if (rank) {
        unsigned long long n = 0;
        if (!parseCount(*rank, &n) || rank->find_first_not_of("0123456789") != std::string::npos) {
            *code = fail(std::string(command) + ": --rank wants a rank number", kExitUsage);
            return nullptr;
        }
        const core::DistributedInfo &own = trace.info.run.distributed;
        if (labels.empty()) {
            // One rank's own trace: its rank is the only one there is.
            if (!(own.present && own.rank == int64_t(n))) {
                *code = fail(std::string(command) + ": --rank " + *rank
                             + ": the trace is not a run of several ranks");
                return nullptr;
            }
        } else if (const auto found = pytorch::sectionOfRank(trace, int64_t(n))) {
            section = *found;
        } else {
            std::string have;
            for (const std::string &label : labels)
                have += (have.empty() ? "" : ", ") + label;
            *code = fail(std::string(command) + ": --rank " + *rank + ": the run has " + have);
            return nullptr;
        }
    }
    if (!labels.empty() && !json) {
        std::printf("PyTorch views of %s%s\n\n",
                    pytorch::kinetoScope(trace, section).scopeLabel.c_str(),
                    rank ? "" : " (--rank N picks another rank)");
    }
    return pytorch::rankAnalyses(cache, section);
}

bool attachGraphCapture(const AnalysisCachePtr &ranked, const std::optional<std::string> &path,
                        const char *command, int *code)
{
    if (!path)
        return true;
    auto capture = core::loadTrace(*path, nullptr, core::LoadOptions{});
    if (!capture) {
        *code = fail(std::string(command) + ": --capture: " + capture.message());
        return false;
    }
    if (capture.value()->info.run.framework != "pytorch") {
        *code = fail(std::string(command) + ": --capture " + *path +
                     ": not a PyTorch profiler (Kineto) trace");
        return false;
    }
    pytorch::GraphCaptureSource source;
    source.capture = capture.value();
    source.label = std::filesystem::path(*path).filename().string();
    ranked->put(std::make_shared<const pytorch::GraphCaptureSource>(std::move(source)));
    return true;
}

} // namespace tracedesk::cli
