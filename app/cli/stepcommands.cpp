#include "commands.h"
#include "options.h"

namespace tracedesk::cli {

const char *const kOverviewUsage = "  overview FILE --json\n      (not available in this build)";
int runOverview(int, char **) { return fail("overview: not available in this build"); }
const char *const kInputPipelineUsage = "  input-pipeline FILE --json\n      (not available in this build)";
int runInputPipeline(int, char **) { return fail("input-pipeline: not available in this build"); }

} // namespace tracedesk::cli
