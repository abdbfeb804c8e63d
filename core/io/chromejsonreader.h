#pragma once

// Reads Chrome Trace Event Format JSON (`.json`, `.json.gz`, `.json.zst`; object or bare-array
// form) with simdjson into the event store. Phases X, B/E, i/I, C, M, b/e/n, s/t/f and flow v2
// bind ids; PyTorch/Kineto extensions. Malformed records are counted as warnings.

#include "core/base/loadcontrol.h"
#include "core/base/result.h"
#include "core/io/loadoptions.h"
#include "core/model/trace.h"

#include <string>

namespace tracedesk::core {

Result<std::shared_ptr<Trace>> readChromeJson(const std::string &path, LoadControl *control,
                                              const LoadOptions &options);

} // namespace tracedesk::core
