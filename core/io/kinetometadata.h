#pragma once

// Reads the top-level keys of a Kineto trace (deviceProperties, distributedInfo, schemaVersion
// and the free scalar properties) into the trace's RunMetadata. Values that do not have the
// expected shape are skipped; nothing here fails a load.

#include "core/model/runmetadata.h"

#include <string>
#include <utility>
#include <vector>

namespace tracedesk::core::kineto {

// `topLevel`: key -> raw JSON value text, in file order (ChromeJsonScanner::topLevel()).
// Returns true when the keys mark a Kineto trace (deviceProperties or schemaVersion present).
bool readRunMetadata(const std::vector<std::pair<std::string, std::string>> &topLevel,
                     RunMetadata *run);

} // namespace tracedesk::core::kineto
