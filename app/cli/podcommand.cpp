#include "commands.h"
#include "options.h"

namespace tracedesk::cli {

const char *const kPodUsage = "  pod FILE|DIR --json\n      (not available in this build)";
int runPod(int, char **) { return fail("pod: not available in this build"); }

} // namespace tracedesk::cli
