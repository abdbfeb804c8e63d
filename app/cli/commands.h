#pragma once

// The tracedesk-cli commands. Each returns the process exit code (see options.h) and reports
// problems as "tracedesk-cli: <message>" on stderr. Each usage text is the command's block of
// the --help output.

namespace tracedesk::cli {

struct Command
{
    const char *name;
    int (*run)(int argc, char **argv);
    const char *const *usage;
};

int runSummary(int argc, char **argv);
int runGenerate(int argc, char **argv);
int runBench(int argc, char **argv);
int runOverview(int argc, char **argv);
int runInputPipeline(int argc, char **argv);
int runOpProfile(int argc, char **argv);
int runOpStats(int argc, char **argv);
int runHloStats(int argc, char **argv);
int runRoofline(int argc, char **argv);
int runHloGraph(int argc, char **argv);
int runKernelStats(int argc, char **argv);
int runMemoryProfile(int argc, char **argv);
int runMemoryViewer(int argc, char **argv);
int runExtractHlo(int argc, char **argv);
int runCapture(int argc, char **argv);
int runServe(int argc, char **argv);
int runDiff(int argc, char **argv);
int runPod(int argc, char **argv);
int runTfData(int argc, char **argv);
int runDistributed(int argc, char **argv); extern const char *const kDistributedUsage;
int runQuery(int argc, char **argv); extern const char *const kQueryUsage;
int runGpuTime(int argc, char **argv); extern const char *const kGpuTimeUsage;
int runCriticalPath(int argc, char **argv); extern const char *const kCriticalPathUsage;

extern const char *const kSummaryUsage;
extern const char *const kGenerateUsage;
extern const char *const kBenchUsage;
extern const char *const kOverviewUsage;
extern const char *const kInputPipelineUsage;
extern const char *const kOpProfileUsage;
extern const char *const kOpStatsUsage;
extern const char *const kHloStatsUsage;
extern const char *const kRooflineUsage;
extern const char *const kHloGraphUsage;
extern const char *const kKernelStatsUsage;
extern const char *const kMemoryProfileUsage;
extern const char *const kMemoryViewerUsage;
extern const char *const kExtractHloUsage;
extern const char *const kCaptureUsage;
extern const char *const kServeUsage;
extern const char *const kDiffUsage;
extern const char *const kPodUsage;
extern const char *const kTfDataUsage;

} // namespace tracedesk::cli
