#include "commands.h"
#include "options.h"

namespace tracedesk::cli {

const char *const kMemoryProfileUsage = "  memory-profile FILE --json\n      (not available in this build)";
int runMemoryProfile(int, char **) { return fail("memory-profile: not available in this build"); }
const char *const kMemoryViewerUsage = "  memory-viewer FILE --json\n      (not available in this build)";
int runMemoryViewer(int, char **) { return fail("memory-viewer: not available in this build"); }
const char *const kExtractHloUsage = "  extract-hlo FILE --json\n      (not available in this build)";
int runExtractHlo(int, char **) { return fail("extract-hlo: not available in this build"); }

} // namespace tracedesk::cli
