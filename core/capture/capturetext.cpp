#include "core/capture/capturetext.h"

#include "core/io/memoryguard.h"

#include <cstdio>
#include <iterator>

namespace tracedesk::core::capture {

namespace {

std::string seconds(uint64_t ms)
{
    char text[32];
    if (ms % 1000 == 0)
        std::snprintf(text, sizeof text, "%llu s", static_cast<unsigned long long>(ms / 1000));
    else
        std::snprintf(text, sizeof text, "%.1f s", double(ms) / 1000.0);
    return text;
}

std::string attemptsText(int attempts)
{
    return attempts > 1 ? " (" + std::to_string(attempts) + " attempts)" : std::string();
}

} // namespace

std::string statusCodeName(int code)
{
    static const char *const kNames[] = {
        "OK",        "CANCELLED",          "UNKNOWN",         "INVALID_ARGUMENT",
        "DEADLINE_EXCEEDED", "NOT_FOUND",  "ALREADY_EXISTS",  "PERMISSION_DENIED",
        "RESOURCE_EXHAUSTED", "FAILED_PRECONDITION", "ABORTED", "OUT_OF_RANGE",
        "UNIMPLEMENTED", "INTERNAL",       "UNAVAILABLE",     "DATA_LOSS",
        "UNAUTHENTICATED"};
    if (code >= 0 && code < int(std::size(kNames)))
        return kNames[code];
    return "status " + std::to_string(code);
}

std::string failureText(FailureKind kind, const FailureContext &c)
{
    const std::string detail = c.serverText.empty() ? std::string()
                                                    : " (" + c.serverText + ")";
    switch (kind) {
    case FailureKind::None:
        return {};
    case FailureKind::Unreachable:
        return "Could not reach " + c.address + attemptsText(c.attempts) +
               ": no profiler server answered there. Check the host and port, that the program "
               "started its profiler server (tf.profiler.experimental.server.start(port) or "
               "jax.profiler.start_server(port)) and is still running, and that no firewall "
               "blocks the port." + detail;
    case FailureKind::TimedOut:
        return "No answer from " + c.address + " within " + seconds(c.deadlineMs) +
               ". The program may be blocked, or collecting a very large trace; try a shorter "
               "duration or lower tracer levels.";
    case FailureKind::EmptyTrace:
        return "The server at " + c.address + " answered but collected no trace events" +
               attemptsText(c.attempts) +
               ". This usually means the program did no work during the capture window: "
               "capture while the model is running steps, or use a longer duration. It also "
               "happens when another profiling session is already active in that program, or "
               "when all tracer levels are 0.";
    case FailureKind::ServerError:
        if (c.statusCode == 8)   // RESOURCE_EXHAUSTED
            return "The server at " + c.address + " refused or could not send the trace "
                   "(too large?)" + detail;
        return "The profiler server at " + c.address + " reported an error [" +
               statusCodeName(c.statusCode) + "]" + attemptsText(c.attempts) + ": " +
               (c.serverText.empty() ? std::string("no message") : c.serverText);
    case FailureKind::ServerSideFile:
        return c.address + " runs an older profiler server: it saved the trace on its own disk "
               "at " + c.serverPath + " instead of sending it. Copy that file into " +
               c.runDir + " (or capture into a logdir both machines share) to open it.";
    case FailureKind::SaveFailed:
        return "The trace from " + c.address + " arrived but could not be saved: " +
               c.serverText;
    case FailureKind::Cancelled:
        return "Cancelled; nothing was saved for " + c.address + ".";
    case FailureKind::TooLarge:
        return "The trace from " + c.address + " is too large for the memory available: "
               "receiving it would take more than the " + formatBytes(c.limitBytes) +
               " this capture can hold in memory, so it was refused and nothing was saved. "
               "Capture a shorter duration or lower tracer levels, capture fewer hosts at "
               "once, or close other programs and try again." + detail;
    case FailureKind::ConnectionLost:
        return "The connection to " + c.address + " was lost before the whole trace arrived" +
               attemptsText(c.attempts) + ": the program may have exited, crashed or been "
               "stopped. Nothing was saved for this host; check that the program is still "
               "running and capture again." + detail;
    }
    return {};
}

std::string resultReport(const CaptureResult &result)
{
    std::string out;
    for (const HostOutcome &h : result.hosts) {
        out += h.address + ": ";
        if (h.state == CaptureState::Done)
            out += "saved " + h.savedPath + " (" + std::to_string(h.bytes) + " bytes)";
        else
            out += h.message;
        out += "\n";
    }
    out += result.message + "\n";
    return out;
}

} // namespace tracedesk::core::capture
