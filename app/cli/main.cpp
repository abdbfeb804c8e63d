// tracedesk-cli: summaries, synthetic traces and benchmarks from the command line.

#include "commands.h"
#include "options.h"

#include "core/base/version.h"

#include <cstdio>
#include <cstring>
#include <string>

namespace {

void printHelp()
{
    std::printf("Usage: tracedesk-cli <command> [options]\n"
                "\n"
                "Reads ML performance profiles: XSpace (<host>.xplane.pb, run folders, logdirs)\n"
                "and Chrome trace JSON (.json, .json.gz, .json.zst).\n"
                "\n"
                "Commands:\n"
                "%s\n%s\n%s\n"
                "Options:\n"
                "  --help       show this help (also: tracedesk-cli <command> --help)\n"
                "  --version    show the version\n"
                "\n"
                "Exit status: 0 on success, 1 when a file cannot be read or written, 2 on a usage\n"
                "error.\n",
                tracedesk::cli::kSummaryUsage, tracedesk::cli::kGenerateUsage,
                tracedesk::cli::kBenchUsage);
}

} // namespace

int main(int argc, char **argv)
{
    using namespace tracedesk::cli;
    if (argc < 2) {
        printHelp();
        return kExitUsage;
    }
    const std::string command = argv[1];
    if (command == "--help" || command == "-h" || command == "help") {
        printHelp();
        return kExitOk;
    }
    if (command == "--version" || command == "-v") {
        std::printf("tracedesk-cli %s\n", tracedesk::core::kVersion);
        return kExitOk;
    }
    if (command == "summary")
        return runSummary(argc, argv);
    if (command == "generate")
        return runGenerate(argc, argv);
    if (command == "bench")
        return runBench(argc, argv);
    return fail("unknown command '" + command + "' (try --help)", kExitUsage);
}
