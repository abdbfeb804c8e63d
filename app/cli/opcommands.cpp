#include "commands.h"
#include "options.h"

namespace tracedesk::cli {

const char *const kOpProfileUsage = "  op-profile FILE --json\n      (not available in this build)";
int runOpProfile(int, char **) { return fail("op-profile: not available in this build"); }
const char *const kOpStatsUsage = "  op-stats FILE --json\n      (not available in this build)";
int runOpStats(int, char **) { return fail("op-stats: not available in this build"); }
const char *const kKernelStatsUsage = "  kernel-stats FILE --json\n      (not available in this build)";
int runKernelStats(int, char **) { return fail("kernel-stats: not available in this build"); }

} // namespace tracedesk::cli
