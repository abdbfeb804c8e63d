#include "commands.h"
#include "options.h"

namespace tracedesk::cli {

const char *const kDiffUsage = "  diff A B --json\n      (not available in this build)";
int runDiff(int, char **) { return fail("diff: not available in this build"); }

} // namespace tracedesk::cli
