#include "commands.h"
#include "options.h"

namespace tracedesk::cli {

const char *const kTfDataUsage = "  tfdata FILE|DIR --json\n      (not available in this build)";
int runTfData(int, char **) { return fail("tfdata: not available in this build"); }

} // namespace tracedesk::cli
