#pragma once

// The tracedesk-cli commands. Each returns the process exit code (see options.h) and reports
// problems as "tracedesk-cli: <message>" on stderr.

namespace tracedesk::cli {

int runSummary(int argc, char **argv);
int runGenerate(int argc, char **argv);
int runBench(int argc, char **argv);

extern const char *const kSummaryUsage;
extern const char *const kGenerateUsage;
extern const char *const kBenchUsage;

} // namespace tracedesk::cli
