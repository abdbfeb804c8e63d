#pragma once

// Reads XSpace protobuf files (`<host>.xplane.pb`) straight into the event store: a hand-written
// wire-format walker decodes each XLine's events into track columns, lines in parallel.
// Several files (one per host of a run) load into one Trace, each plane labelled with its host;
// with LoadOptions::ranks only the hosts of those ranks (core/io/runranks.h: the rank in the
// file name, else the file's position), and the first warning says which are shown.

#include "core/base/loadcontrol.h"
#include "core/base/result.h"
#include "core/io/loadoptions.h"
#include "core/model/trace.h"

#include <string>
#include <string_view>
#include <vector>

namespace tracedesk::core {

Result<std::shared_ptr<Trace>> readXSpaceFiles(const std::vector<std::string> &files,
                                               LoadControl *control, const LoadOptions &options);

// The same for XSpace bytes already in memory; `name` stands for the file in messages and
// LoadInfo. The bytes must stay valid until the call returns.
Result<std::shared_ptr<Trace>> readXSpaceBytes(std::string_view bytes, const std::string &name,
                                               LoadControl *control, const LoadOptions &options);

// The host name a file stands for: `<host>.xplane.pb` -> `<host>`.
std::string hostFromXSpacePath(const std::string &path);

} // namespace tracedesk::core
