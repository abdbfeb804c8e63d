#include "commands.h"
#include "options.h"

namespace tracedesk::cli {

const char *const kCaptureUsage = "  capture FILE --json\n      (not available in this build)";
int runCapture(int, char **) { return fail("capture: not available in this build"); }
const char *const kServeUsage = "  serve FILE --json\n      (not available in this build)";
int runServe(int, char **) { return fail("serve: not available in this build"); }

} // namespace tracedesk::cli
