// tracedesk-cli: summaries, analyses, captures, synthetic traces and benchmarks from the
// command line.

#include "commands.h"
#include "options.h"

#include "core/base/version.h"

#include <cstdio>
#include <cstring>
#include <iterator>
#include <string>

namespace {

using namespace tracedesk::cli;

const Command kCommands[] = {
    {"summary", runSummary, &kSummaryUsage},
    {"overview", runOverview, &kOverviewUsage},
    {"input-pipeline", runInputPipeline, &kInputPipelineUsage},
    {"op-profile", runOpProfile, &kOpProfileUsage},
    {"op-stats", runOpStats, &kOpStatsUsage},
    {"hlo-stats", runHloStats, &kHloStatsUsage},
    {"roofline", runRoofline, &kRooflineUsage},
    {"hlo-graph", runHloGraph, &kHloGraphUsage},
    {"kernel-stats", runKernelStats, &kKernelStatsUsage},
    {"memory-profile", runMemoryProfile, &kMemoryProfileUsage},
    {"memory-viewer", runMemoryViewer, &kMemoryViewerUsage},
    {"extract-hlo", runExtractHlo, &kExtractHloUsage},
    {"pod", runPod, &kPodUsage},
    {"tfdata", runTfData, &kTfDataUsage},
    {"distributed", runDistributed, &kDistributedUsage},
    {"gpu-time", runGpuTime, &kGpuTimeUsage},
    {"critical-path", runCriticalPath, &kCriticalPathUsage},
    {"query", runQuery, &kQueryUsage},
    {"diff", runDiff, &kDiffUsage},
    {"capture", runCapture, &kCaptureUsage},
    {"serve", runServe, &kServeUsage},
    {"generate", runGenerate, &kGenerateUsage},
    {"bench", runBench, &kBenchUsage},
};

void printHelp()
{
    std::printf("Usage: tracedesk-cli <command> [options]\n"
                "\n"
                "Reads ML performance profiles: XSpace (<host>.xplane.pb, run folders, logdirs),\n"
                "Chrome trace JSON (.json, .json.gz, .json.zst), Nsight Systems SQLite\n"
                "exports (.sqlite, from nsys export --type sqlite) and rocprofv3 results (the\n"
                "JSON document, or the CSV files: one of them, or their folder).\n"
                "\n"
                "Commands:\n");
    for (const Command &command : kCommands)
        std::printf("%s\n", *command.usage);
    std::printf("\n"
                "Options:\n"
                "  --help       show this help (also: tracedesk-cli <command> --help)\n"
                "  --version    show the version\n"
                "\n"
                "Exit status: 0 on success, 1 when a file cannot be read or written (or a\n"
                "capture fails), 2 on a usage error.\n");
}

} // namespace

int main(int argc, char **argv)
{
    if (argc < 2) {
        printHelp();
        return kExitUsage;
    }
    const std::string name = argv[1];
    if (name == "--help" || name == "-h" || name == "help") {
        printHelp();
        return kExitOk;
    }
    if (name == "--version" || name == "-v") {
        std::printf("tracedesk-cli %s\n", tracedesk::core::kVersion);
        return kExitOk;
    }
    for (const Command &command : kCommands) {
        if (name == command.name)
            return command.run(argc, argv);
    }
    return fail("unknown command '" + name + "' (try --help)", kExitUsage);
}
