#pragma once

// Plain-words explanations of capture outcomes, shared by the dialog and the CLI so both say
// the same thing. Pure functions.

#include "core/capture/capturesession.h"

#include <string>

namespace tracedesk::core::capture {

// "UNAVAILABLE", "DEADLINE_EXCEEDED", ... for a grpc::StatusCode value.
std::string statusCodeName(int code);

struct FailureContext
{
    std::string address;
    std::string serverText;     // gRPC status message
    int statusCode = 0;
    uint64_t deadlineMs = 0;
    int attempts = 1;
    std::string serverPath;     // ServerSideFile
    std::string runDir;         // ServerSideFile: where the file belongs locally
    uint64_t limitBytes = 0;    // TooLarge: the receive limit
};

std::string failureText(FailureKind kind, const FailureContext &context);

// One line per host plus a summary, as the CLI prints it.
std::string resultReport(const CaptureResult &result);

} // namespace tracedesk::core::capture
