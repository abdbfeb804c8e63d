#pragma once

// extractXSpace: walks a serialized ProfileResponse (FORMATS.md 3.2) held in pieces, as gRPC
// delivers it, and streams the XSpace bytes to a sink without parsing or copying the trace:
// a response can be a gigabyte, and the saved file must be exactly what the server sent.
//
// The XSpace comes from `xspace = 8` (newest servers; several occurrences are concatenated,
// which is how protobuf merges repeated sub-messages) or else from the `tool_data = 6` entry
// named "xplane.pb" (TF 2.2-2.3 servers). Pure function; the pieces must outlive the call.

#include "core/base/result.h"

#include <atomic>
#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

namespace tracedesk::core::capture {

struct ResponseSummary
{
    bool emptyTrace = false;          // empty_trace = 7
    bool hasXSpace = false;           // an XSpace was found (field 8 or tool_data xplane.pb)
    bool fromToolData = false;        // it came from tool_data (old server generation)
    uint64_t xspaceBytes = 0;
    uint64_t responseBytes = 0;
    std::vector<std::string> toolNames;
};

// Returns false to abort (write error or cancel).
using ByteSink = std::function<bool(const char *data, size_t size)>;

Result<ResponseSummary> extractXSpace(const std::vector<std::string_view> &pieces,
                                      const ByteSink &sink,
                                      const std::atomic<bool> *cancel = nullptr);

} // namespace tracedesk::core::capture
